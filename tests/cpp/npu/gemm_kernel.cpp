#include "gemm_kernel.h"

namespace tessera::npu::testing {

std::vector<int8_t> pack_gemm_weights(const std::vector<int8_t>& b) {
  std::vector<int8_t> w(64 * 64);
  for (int nb = 0; nb < 4; ++nb)
    for (int kb = 0; kb < 4; ++kb)
      for (int o = 0; o < 16; ++o)
        for (int i = 0; i < 16; ++i)
          w[((nb * 4 + kb) * 16 + o) * 16 + i] = b[(kb * 16 + i) * 64 + nb * 16 + o];
  return w;
}

// SRAM rows: inp buffers at 0 and 64 (16 m x 4 kb rows each), weight buffers at 128 and 192
// (4 tiles of 16 rows), int8 output tiles at 256 and 272. Accumulator rows: 0 and 16.
Kernel gemm64_kernel(const Target& target, bool db, const GemmParams& p) {
  Assembler a(target, db ? "gemm64_double_buffered" : "gemm64_serial");
  uint32_t A = a.buffer("A", {64, 64}, DType::kInt8, BufferRole::kInput);
  uint32_t W = a.buffer("W", {4, 4, 16, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t C = a.buffer("C", {64, 64}, DType::kInt8, BufferRole::kOutput);
  const int n = 16;
  for (int it = 0; it < n; ++it) {
    int mb = it / 4, nb = it % 4, b = db ? it % 2 : 0;
    uint32_t inp = b * 64, wgt = 128 + b * 64, out = 256 + b * 16, accb = b * 16;
    bool first = db ? it < 2 : it < 1;  // no buffer to wait for yet
    bool more = db ? it + 2 < n : it + 1 < n;
    a.load(Mem::kSram, inp, 4, A + mb * 16 * 64, 64, 16, 4, first ? 0 : kPopNext);
    a.load(Mem::kSram, wgt, 64, W + nb * 1024, 1024, 1, 64, kPushNext);
    a.gemm(true, 16, 1, at(accb, 1), at(inp, 4), at(wgt), kPopPrev);
    a.gemm(false, 16, 3, at(accb, 1), at(inp + 1, 4, 1), at(wgt + 16, 0, 16));
    unsigned requant_deps = kPushNext;
    if (db && !first) requant_deps |= kPopNext;  // output tile b was stored
    if (db && more) requant_deps |= kPushPrev;   // input buffer b is free again
    a.requantize(16, 1, sram(out, 1), acc(accb, 1), p.multiplier, p.shift, p.zero_point,
                 requant_deps);
    unsigned store_deps = kPopPrev;
    if (!db || more) store_deps |= kPushPrev;
    a.store(Mem::kSram, out, 1, C + mb * 16 * 64 + nb * 16, 64, 16, 1, store_deps);
    if (!db && more) a.sync(Queue::kCompute, kPopNext | kPushPrev);  // store done -> next load
  }
  return a.finish(db ? 0 : kPopNext);
}

Target without_fidelity_costs(Target t) {
  t.fetch_burst_insns = 0;
  t.acc_raw_latency_cycles = 0;
  t.pad_unit_cycles = 0;
  t.compute_units = 1;
  return t;
}

GemmCosts gemm64_costs_per_iteration(const Target& t) {
  auto dma = [&t](int64_t rows, int64_t bytes) {
    return t.dma_fixed_cycles + (bytes + t.ddr_bytes_per_cycle - 1) / t.ddr_bytes_per_cycle +
           rows * t.dma_row_cycles;
  };
  GemmCosts c;
  c.load = dma(16, 16 * 64) + dma(1, 1024);
  c.compute =
      (t.gemm_fixed_cycles + 16) + (t.gemm_fixed_cycles + 48) + (t.vector_fixed_cycles + 16);
  c.store = dma(16, 16 * 16);
  return c;
}

}  // namespace tessera::npu::testing
