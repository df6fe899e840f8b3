#include "autotune/templates/npu_add.h"

namespace tessera {

NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu,
              const NpuAddParams& p) {
  const int64_t blk = target.block();
  const int64_t CB = ceil_div(C, blk);
  Tensor A = placeholder({CB, H, W, blk}, DType::kInt8, "A");
  Tensor B = placeholder({CB, H, W, blk}, DType::kInt8, "B");
  Tensor Y = compute(
      {CB, H, W, blk},
      [&](const std::vector<Var>& v) {
        Expr s = binary_op(ExprKind::kAdd, cast(DType::kInt32, A({v[0], v[1], v[2], v[3]})),
                           cast(DType::kInt32, B({v[0], v[1], v[2], v[3]})));
        // Written as the saturating clamp that inject_npu_ops recognises as an int8 vector add.
        Expr r = cast(DType::kInt8,
                      binary_op(ExprKind::kMin,
                                binary_op(ExprKind::kMax, s, int_literal(-128, DType::kInt32)),
                                int_literal(127, DType::kInt32)));
        if (relu) r = binary_op(ExprKind::kMax, r, int_literal(0, DType::kInt8));
        return r;
      },
      "Y", {"c", "h", "w", "l"});

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor as = sch.cache_read(A, "sram", {ys.op()});
  Tensor bs = sch.cache_read(B, "sram", {ys.op()});
  Stage y = sch[Y];
  const auto& yax = y.node()->op->axis;
  auto [co, ci] = y.split(yax[0], p.tile_cb);
  auto [ho, hi] = y.split(yax[1], p.tile_h);
  y.reorder({co, ho, ci, hi, yax[2], yax[3]});
  sch[ys].compute_at(y, ho);
  sch[as].compute_at(y, ho);
  sch[bs].compute_at(y, ho);
  if (p.double_buffer) {
    sch[as].double_buffer();
    sch[bs].double_buffer();
  }
  return NpuOp{"add", {A, B, Y}, s};
}

}  // namespace tessera
