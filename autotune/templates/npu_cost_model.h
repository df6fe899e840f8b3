// A small analytic model of an NPU kernel's time, for the templates' shape-aware defaults: each
// template counts the instructions and bytes its schedule would issue for a config, and the model
// turns them into cycles with the target's costs (docs/npu_isa.md section 6). It reads every cost
// and size from the target; it is a guide for choosing among configs, not the simulator.
#pragma once

#include <cstdint>

#include "runtime/npu/target.h"

namespace tessera {

class CostModel {
 public:
  explicit CostModel(const npu::Target& t) : t_(t) {}

  // `count` GEMM instructions doing `steps` MAC-array steps in all.
  void gemms(double count, double steps);
  // `count` vector instructions over `rows` on-chip rows in all.
  void vectors(double count, double rows);
  // `count` DMA loads (stores) of `bytes` bytes in `ddr_rows` DDR rows each.
  void loads(double count, double bytes, double ddr_rows);
  void stores(double count, double bytes, double ddr_rows);
  // The first tile's load and the last tile's store, which nothing overlaps.
  void pipeline(double fill_cycles) { fill_ += fill_cycles; }

  // The estimate: the busiest of the compute queue, the load and store queues and the DDR port,
  // plus the fill; when transfers are not double-buffered, compute and loads serialise.
  double cycles(bool overlapped) const;
  // The compute queue's time: GEMMs plus vector instructions, or, when they overlap (a two-unit
  // target with the accumulator double-buffered: overlap_vector), the longer of the two plus a
  // stall that grows as they balance.
  double compute() const;
  void overlap_vector(bool on) { overlap_vector_ = on; }
  double load() const { return load_; }
  // The estimate's parts (cycles) and instruction counts, for the tuner's features
  // (template_features.h).
  double gemm_cycles() const { return gemm_; }
  double vector_cycles() const { return vector_; }
  double store() const { return store_; }
  double port() const { return port_; }
  double fill() const { return fill_; }
  double gemm_count() const { return gemm_count_; }
  double dma_count() const { return dma_count_; }
  // One DMA of `bytes` in `ddr_rows` rows: its queue time (latency + transfer).
  double dma(double bytes, double ddr_rows) const;

 private:
  const npu::Target& t_;
  double gemm_ = 0, vector_ = 0, load_ = 0, store_ = 0, port_ = 0, fill_ = 0;
  double gemm_count_ = 0, dma_count_ = 0;
  bool overlap_vector_ = false;
};

}  // namespace tessera
