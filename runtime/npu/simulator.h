// The cycle-level NPU simulator: one implementation, two modes.
//
//   timing:     no data; event-driven over the three queues (load, compute, store), which run in
//               parallel, ordered only by dependency tokens and the fetcher; load and store share
//               the DDR port. Deterministic: the same kernel gives the same cycles on every run.
//   functional: the same schedule, and each instruction also moves/computes real data, bit-exact:
//               it reads its sources when it starts and writes its results when it ends, so data
//               moves in the order the timing model runs instructions. The hazard check (on by
//               default) reports any access two queues make to the same range without a token or
//               queue order between them (check_hazards.h), so a missing token is an error.
//
// Both modes first run prepare_program() (static checks) and then the same scheduler, so they
// raise the same errors and report the same statistics. Every rule is in docs/npu_isa.md.
// Errors are SimulationErrors naming the instruction's index and disassembly; deadlock is
// detected (no unit can make progress), never waited out.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

enum class SimMode { kFunctional, kTiming };

struct UnitStats {
  uint64_t busy_cycles = 0;     // executing an instruction (a DMA's latency and transfer)
  uint64_t stalled_cycles = 0;  // an instruction is dispatched but waits: token, DDR port
  uint64_t insns = 0;
};

struct SimStats {
  uint64_t cycles = 0;                // when the last instruction of any queue completes
  std::array<UnitStats, 3> units;     // indexed by Queue: load, compute, store
  // The compute queue's two execution units apart: cycles running GEMMs (MAC array) and vector
  // instructions (vector unit). With compute_units = 2 they overlap; the compute queue's busy
  // cycles count a cycle once when either runs.
  uint64_t mac_busy_cycles = 0;
  uint64_t vector_busy_cycles = 0;
  uint64_t ddr_port_busy_cycles = 0;  // DMA transfers and instruction-fetch bursts
  uint64_t ddr_bytes_read = 0;        // by loads
  uint64_t ddr_bytes_written = 0;     // by stores
  uint64_t ddr_bytes_fetched = 0;  // instructions read by the fetcher (Target::fetch_burst_insns)
  uint64_t sram_peak_bytes = 0;    // high-water mark: (highest SRAM row touched + 1) x row bytes
  uint64_t acc_peak_bytes = 0;
  std::array<uint64_t, kNumOpcodes> insn_count{};  // indexed by opcode value
  uint64_t macs = 0;
  uint64_t vector_ops = 0;  // element operations

  const UnitStats& unit(Queue q) const { return units[static_cast<int>(q)]; }
  uint64_t count(Opcode op) const { return insn_count[static_cast<uint8_t>(op)]; }
  uint64_t total_insns() const;
};

// The default bound on a program's work (PreparedProgram::work), 2^36 = 6.9e10: about 40 s of
// functional simulation where the project measures (1.8e9 MACs/s), and about 100 times the work
// of the largest ResNet-18 layer as the operator library builds it (conv1: 6.4e8).
constexpr uint64_t kDefaultMaxWork = uint64_t(1) << 36;

// How a simulation runs, beyond its mode. The defaults are what every caller wants unless it says
// otherwise.
struct SimOptions {
  // Both modes refuse, before running anything, a program whose work (MACs, vector lane
  // operations, bytes moved on chip, one per instruction) exceeds this: a SimulationError naming
  // the instruction at which the total passes it. Both modes, so that timing mode (which is fast
  // whatever the work) rejects what functional mode would, as for every other check.
  uint64_t max_work = kDefaultMaxWork;
  // Asked before every instruction starts; when it returns true the run stops with a
  // SimulationError naming the next instruction. For interrupts (the Python bindings check for
  // Ctrl-C) and time limits. Keep it cheap: it is called once per instruction.
  std::function<bool()> should_stop;
  // Functional mode: report races between queues (check_hazards.h) as a SimulationError. Timing
  // mode moves no data and ignores it.
  bool check_hazards = true;
};

// `ddr` is the kernel's DDR space (kernel.ddr_bytes() bytes, laid out by its buffer table); it is
// read and written in functional mode and must be null in timing mode.
SimStats simulate(const Kernel& kernel, const Target& target, SimMode mode,
                  std::vector<uint8_t>* ddr, const SimOptions& options = SimOptions());

inline SimStats simulate_timing(const Kernel& kernel, const Target& target,
                                const SimOptions& options = SimOptions()) {
  return simulate(kernel, target, SimMode::kTiming, nullptr, options);
}
inline SimStats simulate_functional(const Kernel& kernel, const Target& target,
                                    std::vector<uint8_t>& ddr,
                                    const SimOptions& options = SimOptions()) {
  return simulate(kernel, target, SimMode::kFunctional, &ddr, options);
}

}  // namespace tessera::npu
