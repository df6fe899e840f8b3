// NPU dense: Y[m, n] = requant(sum_k X[m, k] * W[n, k]) in packed layouts
//   X [M, KB, 16], W [NB, KB, 16, 16] -> Y [M, NB, 16]   (KB = ceil(K/16), NB = ceil(N/16)).
#pragma once

#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuDenseParams {
  int64_t tile_m = 64;  // rows of X per tile (GEMM steps per instruction)
  int64_t tile_nb = 4;  // output blocks per tile (accumulator rows: tile_m * tile_nb)
  bool double_buffer = true;
};

NpuOp npu_dense(int64_t M, int64_t K, int64_t N, const Requant& q,
                const NpuDenseParams& p = NpuDenseParams());

// Tiles for an M x K x N dense that fit the target's SRAM and accumulator: as many output
// blocks per tile as the weights allow (up to 8), then as many rows as the accumulator holds.
NpuDenseParams default_dense_params(int64_t M, int64_t K, int64_t N,
                                    int64_t sram_bytes = 256 * 1024, int64_t acc_bytes = 64 * 1024);

}  // namespace tessera
