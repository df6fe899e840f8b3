#include "autotune/templates/npu_dense.h"

#include <algorithm>

#include "schedule/tensor_intrin.h"

namespace tessera {

NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q,
                const NpuDenseParams& p) {
  const int64_t B = target.block();
  const int64_t KB = ceil_div(K, B), NB = ceil_div(N, B);
  Tensor X = placeholder({M, KB, B}, DType::kInt8, "X");
  Tensor W = placeholder({NB, KB, B, B}, DType::kInt8, "W");
  IterVar kb = reduce_axis(0, KB, "kb");
  IterVar i = reduce_axis(0, B, "i");
  Tensor acc = compute({M, NB, B},
                       [&](const std::vector<Var>& v) {
                         Expr x = cast(DType::kInt32, X({v[0], kb->var, i->var}));
                         Expr w = cast(DType::kInt32, W({v[1], kb->var, v[2], i->var}));
                         return sum(binary_op(ExprKind::kMul, x, w), {kb, i});
                       },
                       "acc", {"m", "nb", "o"});
  Tensor Y = compute({M, NB, B},
                     [&](const std::vector<Var>& v) {
                       return requant_expr(acc({v[0], v[1], v[2]}), q);
                     },
                     "Y", {"m", "nb", "o"});

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor xs = sch.cache_read(X, "sram", {acc.op()});
  Tensor ws = sch.cache_read(W, "sram", {acc.op()});
  sch[acc].set_scope("acc");
  // Output tiles of tile_m rows x tile_nb blocks; the whole reduction per tile.
  Stage y = sch[Y];
  auto [mo, mi] = y.split(y.node()->op->axis[0], p.tile_m);
  auto [nbo, nbi] = y.split(y.node()->op->axis[1], p.tile_nb);
  y.reorder({mo, nbo, mi, nbi, y.node()->op->axis[2]});
  Stage a = sch[acc];
  a.compute_at(y, nbo);
  sch[ys].compute_at(y, nbo);
  sch[ws].compute_at(y, nbo);
  sch[xs].compute_at(y, mo);
  const auto& ax = acc.op()->axis;
  a.reorder({ax[1], kb, ax[0], ax[2], i});
  a.tensorize(ax[2], npu_gemm_intrin(target));
  if (p.double_buffer) {
    sch[xs].double_buffer();
    sch[ws].double_buffer();
  }
  return NpuOp{"dense", {X, W, Y}, s};
}

NpuDenseParams default_dense_params(const npu::Target& target, int64_t M, int64_t K, int64_t N) {
  const int64_t B = target.block();
  const int64_t KB = ceil_div(K, B), NB = ceil_div(N, B);
  const int64_t sram_rows = target.sram_rows(), acc_rows = target.acc_rows();
  NpuDenseParams p;
  p.double_buffer = true;
  p.tile_nb = std::min<int64_t>(NB, 8);
  // Double-buffered weights take at most half the SRAM.
  while (p.tile_nb > 1 && 2 * p.tile_nb * KB * B > sram_rows / 2) --p.tile_nb;
  p.tile_m = std::max<int64_t>(1, std::min(M, acc_rows / p.tile_nb));
  auto sram_need = [&] {
    return 2 * p.tile_m * KB + 2 * p.tile_nb * KB * B + p.tile_m * p.tile_nb;
  };
  while (p.tile_m > 1 && sram_need() > sram_rows) p.tile_m /= 2;
  // A tile that does not divide M leaves a guard on the rows of every tile, which keeps the GEMM
  // from folding them (one instruction per row): take the largest divisor of M that is at least
  // half the tile, when there is one.
  for (int64_t t = p.tile_m; 2 * t >= p.tile_m; --t) {
    if (M % t == 0) {
      p.tile_m = t;
      break;
    }
  }
  return p;
}

}  // namespace tessera
