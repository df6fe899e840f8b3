// The tiled int8 GEMM C[64x64] = requantize(A[64x64] . B[64x64]) used by several tests, written
// with the assembler in two schedules: serial (each step waits for the previous one) and double
// buffered (load, compute and store overlap, ordered by tokens). 16 iterations, one per 16x16
// output tile (mb, nb).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/npu/assembler.h"

namespace tessera::npu::testing {

struct GemmParams {
  int32_t multiplier = 1 << 20;
  uint8_t shift = 30;
  int8_t zero_point = -3;
};

// B packed for the MAC array: tile (nb, kb) is 16 rows o of 16 bytes i, holding
// B[kb*16+i][nb*16+o].
std::vector<int8_t> pack_gemm_weights(const std::vector<int8_t>& b);

Kernel gemm64_kernel(const Target& target, bool double_buffered, const GemmParams& params);

// `t` with the fidelity costs (instruction fetch, accumulator read-after-write latency, padding
// writes) set to zero and one compute unit: the timing model as it was before they existed, which
// the per-rule tests and the hand-computed GEMM figures below describe.
Target without_fidelity_costs(Target t);

// Cycle figures computed by hand from the target's cost fields, per iteration of the kernel
// (on a target without fidelity costs).
struct GemmCosts {
  int64_t load, compute, store;
};
GemmCosts gemm64_costs_per_iteration(const Target& t);

}  // namespace tessera::npu::testing
