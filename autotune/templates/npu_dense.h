// NPU dense: Y[m, n] = requant(sum_k X[m, k] * W[n, k]) in packed layouts, B = target.block()
//   X [M, KB, B], W [NB, KB, B, B] -> Y [M, NB, B]   (KB = ceil(K/B), NB = ceil(N/B)).
#pragma once

#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuDenseParams {
  int64_t tile_m = 64;  // rows of X per tile (GEMM steps per instruction)
  int64_t tile_nb = 4;  // output blocks per tile (accumulator rows: tile_m * tile_nb)
  bool double_buffer = true;
};

NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q,
                const NpuDenseParams& p = NpuDenseParams());

// Tiles for an M x K x N dense that fit the target's SRAM and accumulator: as many output
// blocks per tile as the weights allow (up to 8), then as many rows as the accumulator holds
// (preferring a divisor of M down to half that: a tail tile's guard keeps GEMMs from folding).
NpuDenseParams default_dense_params(const npu::Target& target, int64_t M, int64_t K, int64_t N);

}  // namespace tessera
