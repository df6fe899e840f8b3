#include "autotune/templates/npu_max_pool2d.h"

#include "autotune/templates/npu_shape_checks.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {
// At the logical shape: one max per window element that lies inside the image.
Work max_pool_work(const Pool2dShape& sh) {
  auto inside = [&](int64_t out, int64_t taps, int64_t size) {  // sum over outputs of taps in
    uint64_t n = 0;
    for (int64_t o = 0; o < out; ++o)
      for (int64_t r = 0; r < taps; ++r)
        n += o * sh.stride + r - sh.pad >= 0 && o * sh.stride + r - sh.pad < size;
    return n;
  };
  uint64_t out = uint64_t(sh.C * sh.OH() * sh.OW());
  return Work{0, uint64_t(sh.C * sh.H * sh.W) + out,
              uint64_t(sh.C) * inside(sh.OH(), sh.R, sh.H) * inside(sh.OW(), sh.S, sh.W)};
}
}  // namespace

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& sh,
                     const NpuMaxPool2dParams& p) {
  check_max_pool2d_shape(sh);  // includes pad < window: no window entirely in the padding
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B);
  const int64_t OH = sh.OH(), OW = sh.OW(), Hp = sh.H + 2 * sh.pad, Wp = sh.W + 2 * sh.pad;
  Tensor X = placeholder({CB, sh.H, sh.W, B}, DType::kInt8, "X");
  Expr pad = make_int(sh.pad);
  auto inside = [&](const Expr& h, const Expr& w) {  // (h, w) in padded coordinates
    return binary_op(ExprKind::kAnd,
                     binary_op(ExprKind::kAnd, h >= pad, h < make_int(sh.H + sh.pad)),
                     binary_op(ExprKind::kAnd, w >= pad, w < make_int(sh.W + sh.pad)));
  };
  Tensor P = compute({CB, Hp, Wp, B},
                     [&](const std::vector<Var>& v) {
                       return select(inside(v[1], v[2]), X({v[0], v[1] - pad, v[2] - pad, v[3]}),
                                     int_literal(0, DType::kInt8));
                     },
                     "P", {"c", "h", "w", "l"});
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  Expr st = make_int(sh.stride);
  Tensor pool = compute({CB, OH, OW, B},
                        [&](const std::vector<Var>& v) {
                          Expr h = v[1] * st + rr->var, w = v[2] * st + rs->var;
                          Expr where = sh.pad > 0 ? inside(h, w) : Expr();
                          return max_reduce(P({v[0], h, w, v[3]}), {rr, rs}, where);
                        },
                        "pool", {"c", "oh", "ow", "l"});
  Tensor Y = compute(
      {CB, OH, OW, B},
      [&](const std::vector<Var>& v) {
        return pool({v[0], v[1], v[2], v[3]});
      },
      "Y", {"c", "oh", "ow", "l"}, max_pool_work(sh));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  sch[P].set_scope("sram");
  sch[pool].set_scope("sram");
  Stage y = sch[Y];
  const auto& yax = y.node()->op->axis;
  auto [co, ci] = y.split(yax[0], p.tile_cb);
  auto [oho, ohi] = y.split(yax[1], p.tile_oh);
  y.reorder({co, oho, ci, ohi, yax[2], yax[3]});
  sch[pool].compute_at(y, oho);
  sch[P].compute_at(y, oho);
  // Taps outermost: each tap is one pass of max over the tile's rows and columns.
  const auto& ax = pool.op()->axis;
  sch[pool].reorder({ax[0], rr, rs, ax[1], ax[2], ax[3]});
  if (p.double_buffer) sch[P].double_buffer();
  return NpuOp{"max_pool2d", {X, Y}, s};
}

}  // namespace tessera
