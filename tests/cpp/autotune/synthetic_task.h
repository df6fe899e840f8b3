// A synthetic, deterministic tuning task for the auto-tuner's tests: the tile sizes, tile-loop
// order, instruction folding, unrolling and double buffering of a 3x3 convolution of a given
// shape (by default C=64, H=W=56, K=128), on a small NPU (64 KiB SRAM, 16 KiB accumulator), with
// an analytic cost written independently of the tuner: MAC-array utilisation, per-instruction
// overheads, DMA traffic with reuse decided by the loop order, DMA latency hidden by double
// buffering, compute/transfer overlap. Its regions that cannot run:
//   - the validity check: the on-chip footprint (input, weight and output tiles, doubled when
//     double-buffered) over the SRAM;
//   - not in the check, found only by measuring: the accumulator tile over its size (a
//     compile_error) and column folding with a tail tile (an invalid_config, thrown as a
//     ScheduleError).
// Identical kernels: a tile loop with one iteration does not exist in the kernel, so configs that
// differ only in where such a loop sits get the same fingerprint (and the same cycles).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "autotune/executor.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune::testing {

struct SyntheticShape {
  int64_t C = 64, H = 56, W = 56, K = 128;
};

class SyntheticConv {
 public:
  explicit SyntheticConv(SyntheticShape shape = {});
  const TuningTask& task() const { return task_; }
  // The cycles of a config, or std::nullopt where it cannot run (accumulator overflow, column
  // folding with a tail). The validity check is not applied here.
  std::optional<int64_t> cycles(const Config& config) const;
  // cycles() as a measurement, with the fingerprint described above.
  MeasureResult measure(const MeasureInput& input, const MeasureContext& context) const;
  // measure() as a function that keeps what it needs alive.
  MeasureFn measure_fn() const;

  struct Tables;

 private:
  std::shared_ptr<const Tables> tables_;
  TuningTask task_;
};

// The default shape.
TuningTask synthetic_task();
std::optional<int64_t> synthetic_cycles(const ConfigSpace& space, const Config& config);
MeasureResult measure_synthetic(const MeasureInput& input, const MeasureContext& context);

}  // namespace tessera::autotune::testing
