// NPU dense: Y[m, n] = requant(sum_k X[m, k] * W[n, k]) in packed layouts, B = target.block()
//   X [M, KB, B], W [NB, KB, B, B] -> Y [M, NB, B]   (KB = ceil(K/B), NB = ceil(N/B)).
//
// The schedule (NpuDenseParams; the template's knobs, dense_template.cpp): output tiles of
// tile_m rows x tile_nb blocks (tails allowed: a tail tile is one shorter instruction), their tile
// loops in `order` (outermost first); per tile the int32 sums stay in the accumulator while the
// reduction runs over K tiles of tile_kb blocks. With tile_kb < KB the input and weight tiles are
// loaded per K tile; otherwise the input tile at the row-tile loop and the weights at the
// block-tile loop, so the order decides which stays resident (weights: nb outermost). fold: what
// a GEMM instruction covers besides the rows: "kb" the K steps (the accumulator zeroed first by a
// vector pass), "nb" the output blocks (K steps outermost, the first one a reset step: no pass).
// db_input, db_weights, db_output double-buffer the three SRAM stages; db_acc the accumulator tile
// (offered on targets whose MAC array and vector unit overlap: the requantize of one tile then
// runs beside the next tile's GEMMs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autotune/templates/npu_template.h"

namespace tessera {

// Which loop a GEMM instruction folds with the tile's rows (see npu_dense).
enum class DenseFold : uint8_t { kSteps, kBlocks };

struct NpuDenseParams {
  int64_t tile_m = 1, tile_nb = 1, tile_kb = 1;
  DenseFold fold = DenseFold::kSteps;
  std::vector<std::string> order;  // the tile loops, outermost first; empty: axis order
  bool db_input = true, db_weights = true, db_output = true;
  bool db_acc = false;
};

// ArgumentError naming `op` and the field unless M, K, N are in [1, kMaxOperatorExtent].
void check_dense_shape(const char* op, int64_t M, int64_t K, int64_t N);

// ScheduleError naming the parameter for tiles < 1 or an order that is not one of m, nb.
// The true work of a dense layer at the logical shape: K and N padded to the lanes add MACs,
// bytes and requantizes that no kernel needs.
Work dense_work(int64_t M, int64_t K, int64_t N);

// `work`: the operator's true work when the dense computes another operator (a convolution over
// its im2col matrix: the image is its input, not the matrix); default the dense's own.
NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q,
                const NpuDenseParams& p, const std::optional<Work>& work = std::nullopt);
// With default_dense_params.
NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q);

OnchipFootprint dense_footprint(const npu::Target& target, int64_t M, int64_t K, int64_t N,
                                const NpuDenseParams& p);

// The point of the space that the cost model (npu_cost_model.h) rates best among those that fit.
NpuDenseParams default_dense_params(const npu::Target& target, int64_t M, int64_t K, int64_t N);

// The template's space (tile_m up to the accumulator's rows), and conversions.
autotune::ConfigSpace dense_space(const npu::Target& target, int64_t M, int64_t K, int64_t N);
NpuDenseParams dense_params(const autotune::ConfigSpace& space, const autotune::Config& config);
autotune::Config dense_config(const autotune::ConfigSpace& space, const NpuDenseParams& p);

}  // namespace tessera
