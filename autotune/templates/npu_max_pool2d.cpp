#include "autotune/templates/npu_max_pool2d.h"

#include "runtime/base/error.h"

namespace tessera {

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& sh,
                     const NpuMaxPool2dParams& p) {
  if (sh.pad >= sh.R || sh.pad >= sh.S) {
    // Otherwise a window could lie entirely in the padding and have no maximum.
    throw UserError(str("npu_max_pool2d: pad = ", sh.pad, " must be smaller than the window ", sh.R,
                        "x", sh.S));
  }
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
  Tensor Y = compute({CB, OH, OW, B},
                     [&](const std::vector<Var>& v) {
                       return pool({v[0], v[1], v[2], v[3]});
                     },
                     "Y", {"c", "oh", "ow", "l"});

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
