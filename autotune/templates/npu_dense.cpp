#include "autotune/templates/npu_dense.h"

#include <algorithm>

#include "autotune/templates/npu_shape_checks.h"
#include "runtime/base/error.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

Work dense_work(int64_t M, int64_t K, int64_t N) {
  return Work{uint64_t(M * K * N), uint64_t(M * K + N * K + M * N), uint64_t(M * N)};
}

void check_dense_shape(const char* op, int64_t M, int64_t K, int64_t N) {
  check_size_arg(op, "M", M, "rows of the input");
  check_size_arg(op, "K", K, "reduction length");
  check_size_arg(op, "N", N, "output features");
}

NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q,
                const NpuDenseParams& p, const std::optional<Work>& work) {
  check_dense_shape("npu_dense", M, K, N);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tile_m", p.tile_m},
                         {"tile_nb", p.tile_nb},
                         {"tile_kb", p.tile_kb}}) {
    if (v < 1) throw ScheduleError(str("npu_dense: ", name, " = ", v, " must be at least 1"));
  }
  check_tile_order("npu_dense", p.order, {"m", "nb"});
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
                     "Y", {"m", "nb", "o"}, work ? *work : dense_work(M, K, N));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor xs = sch.cache_read(X, "sram", {acc.op()});
  Tensor ws = sch.cache_read(W, "sram", {acc.op()});
  sch[acc].set_scope("acc");
  OutputTiles t = tile_output(sch[Y], {"m", "nb"}, {p.tile_m, p.tile_nb}, p.order);
  Stage a = sch[acc];
  a.compute_at(sch[Y], t.innermost());
  sch[ys].compute_at(sch[Y], t.innermost());
  const auto& ax = acc.op()->axis;
  // fold kb: the blocks loop outermost, the GEMM folds the two largest of the K steps and the
  // rows, after a vector pass that zeroes the tile; fold nb: the K steps outermost, the GEMM
  // folds the blocks and the rows, its first K step a reset.
  std::vector<IterVar> loops;
  IterVar kbi = kb;
  if (p.tile_kb < KB) {
    auto [kbo, inner] = a.split(kb, p.tile_kb);
    kbi = inner;
    loops.push_back(kbo);
    sch[xs].compute_at(a, kbo);
    sch[ws].compute_at(a, kbo);
  } else {
    sch[xs].compute_at(sch[Y], t.outer("m"));
    sch[ws].compute_at(sch[Y], t.outer("nb"));
  }
  if (p.fold == DenseFold::kBlocks) {
    loops.insert(loops.end(), {kbi, ax[1], ax[0], ax[2], i});
  } else {
    loops.insert(loops.end(), {ax[1], kbi, ax[0], ax[2], i});
  }
  a.reorder(loops);
  a.tensorize(ax[2], npu_gemm_intrin(target));
  if (p.db_input) sch[xs].double_buffer();
  if (p.db_weights) sch[ws].double_buffer();
  if (p.db_output) sch[ys].double_buffer();
  if (p.db_acc) a.double_buffer();
  return NpuOp{"dense", {X, W, Y}, s};
}

NpuOp npu_dense(const npu::Target& target, int64_t M, int64_t K, int64_t N, const Requant& q) {
  check_dense_shape("npu_dense", M, K, N);
  return npu_dense(target, M, K, N, q, default_dense_params(target, M, K, N));
}

OnchipFootprint dense_footprint(const npu::Target& target, int64_t M, int64_t K, int64_t N,
                                const NpuDenseParams& p) {
  check_dense_shape("dense_footprint", M, K, N);
  const int64_t B = target.block();
  const int64_t KB = ceil_div(K, B), NB = ceil_div(N, B);
  const int64_t m = std::min(p.tile_m, M), nb = std::min(p.tile_nb, NB),
                kb = std::min(p.tile_kb, KB);
  OnchipFootprint f;
  f.sram_rows = m * kb * (p.db_input ? 2 : 1) + nb * kb * B * (p.db_weights ? 2 : 1) +
                m * nb * (p.db_output ? 2 : 1);
  f.acc_rows = m * nb * (p.db_acc ? 2 : 1);
  return f;
}

}  // namespace tessera
