#include "autotune/templates/npu_op.h"

namespace tessera {

Expr requant_expr(const Expr& acc, const Requant& q) {
  Expr r = requantize(acc, q.multiplier, q.shift, q.zero_point);
  if (q.relu) r = binary_op(ExprKind::kMax, r, int_literal(0, DType::kInt8));
  return r;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

Tensor zero_padded(const Tensor& X, int64_t pad) {
  const auto& sh = X.shape();  // [blocks, H, W, B]
  Expr p = make_int(pad);
  return compute(
      {sh[0], sh[1] + 2 * pad, sh[2] + 2 * pad, sh[3]},
      [&](const std::vector<Var>& v) {
        Expr inside = binary_op(ExprKind::kAnd,
                                binary_op(ExprKind::kAnd, v[1] >= p, v[1] < make_int(sh[1] + pad)),
                                binary_op(ExprKind::kAnd, v[2] >= p, v[2] < make_int(sh[2] + pad)));
        return select(inside, X({v[0], v[1] - p, v[2] - p, v[3]}), int_literal(0, DType::kInt8));
      },
      "P", {"c", "h", "w", "l"});
}

Stage schedule_conv_tiles(Schedule& sch, const Tensor& Y, const Tensor& acc, const Tensor& P,
                          const Tensor& W, int64_t tile_blocks, int64_t tile_rows,
                          bool double_buffer) {
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor ws = sch.cache_read(W, "sram", {acc.op()});
  sch[P].set_scope("sram");
  sch[acc].set_scope("acc");
  Stage y = sch[Y];
  const auto& yax = y.node()->op->axis;
  auto [bo, bi] = y.split(yax[0], tile_blocks);
  auto [ro, ri] = y.split(yax[1], tile_rows);
  y.reorder({bo, ro, bi, ri, yax[2], yax[3]});
  Stage a = sch[acc];
  a.compute_at(y, ro);
  sch[ys].compute_at(y, ro);
  sch[P].compute_at(y, ro);
  sch[ws].compute_at(y, bo);
  if (double_buffer) {
    sch[P].double_buffer();
    sch[ws].double_buffer();
  }
  return a;
}

}  // namespace tessera
