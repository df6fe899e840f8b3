#include "autotune/templates/npu_max_pool2d.h"

#include <algorithm>

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

void check_pool_shape(const char* op, const Pool2dShape& sh) {
  check_size_arg(op, "C", sh.C, "channels");
  check_window_args(op, sh.H, sh.W, sh.R, sh.S, sh.stride, sh.pad);
  if (sh.pad >= sh.R || sh.pad >= sh.S) {
    // Otherwise a window could lie entirely in the padding and have no maximum.
    throw ArgumentError(
        str(op, ": pad = ", sh.pad, " must be smaller than the window ", sh.R, "x", sh.S));
  }
}

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& sh,
                     const NpuMaxPool2dParams& p) {
  check_pool_shape("npu_max_pool2d", sh);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tile_cb", p.tile_cb},
                         {"tile_oh", p.tile_oh},
                         {"tile_ow", p.tile_ow}}) {
    if (v < 1) throw ScheduleError(str("npu_max_pool2d: ", name, " = ", v, " must be at least 1"));
  }
  check_tile_order("npu_max_pool2d", p.order, {"cb", "oh", "ow"});
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
                     "Y", {"c", "oh", "ow", "l"}, max_pool_work(sh));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  sch[P].set_scope("sram");
  sch[pool].set_scope("sram");
  OutputTiles t =
      tile_output(sch[Y], {"cb", "oh", "ow"}, {p.tile_cb, p.tile_oh, p.tile_ow}, p.order);
  sch[pool].compute_at(sch[Y], t.innermost());
  sch[P].compute_at(sch[Y], t.innermost());
  // Taps outermost: each tap is one pass of max over the tile's rows and columns.
  const auto& ax = pool.op()->axis;
  sch[pool].reorder({ax[0], rr, rs, ax[1], ax[2], ax[3]});
  if (p.db_input) sch[P].double_buffer();
  if (p.db_output) sch[pool].double_buffer();
  return NpuOp{"max_pool2d", {X, Y}, s};
}

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& shape) {
  check_pool_shape("npu_max_pool2d", shape);
  return npu_max_pool2d(target, shape, default_max_pool2d_params(target, shape));
}

OnchipFootprint max_pool2d_footprint(const npu::Target& target, const Pool2dShape& sh,
                                     const NpuMaxPool2dParams& p) {
  check_pool_shape("max_pool2d_footprint", sh);
  const int64_t CB = ceil_div(sh.C, target.block());
  const int64_t cb = std::min(p.tile_cb, CB), oh = std::min(p.tile_oh, sh.OH()),
                ow = std::min(p.tile_ow, sh.OW());
  int64_t input = cb * std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad) *
                  std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad);
  OnchipFootprint f;
  f.sram_rows = input * (p.db_input ? 2 : 1) + cb * oh * ow * (p.db_output ? 2 : 1);
  return f;
}

}  // namespace tessera
