#include "autotune/templates/npu_depthwise_conv2d.h"

#include <algorithm>

#include "runtime/base/error.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

const char* depthwise_mapping_name(DepthwiseMapping m) {
  return m == DepthwiseMapping::kDiagonalGemm ? "diagonal_gemm" : "vector_mac";
}

namespace {

// At the logical shape: one MAC per tap and channel (the diagonal-GEMM mapping's weight tiles do
// B times as many: each lane's tile row is zero but for its own channel).
Work depthwise_work(const Conv2dShape& sh) {
  uint64_t out = uint64_t(sh.C * sh.OH() * sh.OW());
  return Work{out * uint64_t(sh.R * sh.S), uint64_t(sh.C * sh.H * sh.W + sh.C * sh.R * sh.S) + out,
              out};
}

void check(const Conv2dShape& sh, const NpuDepthwiseConv2dParams& p) {
  check_conv_shape("npu_depthwise_conv2d", sh);
  if (sh.K != sh.C) {
    throw ArgumentError(str("npu_depthwise_conv2d: K = ", sh.K, " must equal C = ", sh.C,
                            " (one output channel per input channel)"));
  }
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tile_cb", p.tile_cb},
                         {"tile_oh", p.tile_oh},
                         {"tile_ow", p.tile_ow}}) {
    if (v < 1) {
      throw ScheduleError(str("npu_depthwise_conv2d: ", name, " = ", v, " must be at least 1"));
    }
  }
  check_tile_order("npu_depthwise_conv2d", p.order, {"cb", "oh", "ow"});
}

}  // namespace

NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& sh, const Requant& q,
                           DepthwiseMapping mapping, const NpuDepthwiseConv2dParams& p) {
  check(sh, p);
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B);
  const int64_t OH = sh.OH(), OW = sh.OW();
  const bool diagonal = mapping == DepthwiseMapping::kDiagonalGemm;
  Tensor X = placeholder({CB, sh.H, sh.W, B}, DType::kInt8, "X");
  Tensor W = diagonal ? placeholder({CB, sh.R, sh.S, B, B}, DType::kInt8, "W")
                      : placeholder({CB, sh.R, sh.S, B}, DType::kInt8, "W");
  Tensor P = zero_padded(X, sh.pad);
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  IterVar i = reduce_axis(0, B, "i");
  Expr st = make_int(sh.stride);
  // The input block is the output block (v[0]): no reduction over channel blocks. The vector
  // mapping multiplies lane by lane; the diagonal one reduces over the block's lanes with a
  // weight tile that is zero off the diagonal.
  Tensor acc = compute({CB, OH, OW, B},
                       [&](const std::vector<Var>& v) {
                         Expr oh = v[1] * st + rr->var, ow = v[2] * st + rs->var;
                         if (!diagonal) {
                           Expr x = cast(DType::kInt32, P({v[0], oh, ow, v[3]}));
                           Expr w = cast(DType::kInt32, W({v[0], rr->var, rs->var, v[3]}));
                           return sum(binary_op(ExprKind::kMul, x, w), {rr, rs});
                         }
                         Expr x = cast(DType::kInt32, P({v[0], oh, ow, i->var}));
                         Expr w = cast(DType::kInt32, W({v[0], rr->var, rs->var, v[3], i->var}));
                         return sum(binary_op(ExprKind::kMul, x, w), {rr, rs, i});
                       },
                       "acc", {"c", "oh", "ow", "o"});
  Tensor Y = compute(
      {CB, OH, OW, B},
      [&](const std::vector<Var>& v) {
        return requant_expr(acc({v[0], v[1], v[2], v[3]}), q);
      },
      "Y", {"c", "oh", "ow", "o"}, depthwise_work(sh));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor ws = sch.cache_read(W, "sram", {acc.op()});
  sch[P].set_scope("sram");
  sch[acc].set_scope("acc");
  OutputTiles t =
      tile_output(sch[Y], {"cb", "oh", "ow"}, {p.tile_cb, p.tile_oh, p.tile_ow}, p.order);
  Stage a = sch[acc];
  a.compute_at(sch[Y], t.innermost());
  sch[ys].compute_at(sch[Y], t.innermost());
  sch[P].compute_at(sch[Y], t.innermost());
  sch[ws].compute_at(sch[Y], t.outer("cb"));
  const auto& ax = acc.op()->axis;
  if (diagonal) {
    a.reorder({ax[0], rr, rs, ax[1], ax[2], ax[3], i});
    a.tensorize(ax[3], npu_gemm_intrin(target));
  } else {
    // Taps outermost: per tap one vector instruction over the tile's rows and columns.
    a.reorder({ax[0], rr, rs, ax[1], ax[2], ax[3]});
    a.tensorize(ax[3], npu_vmac_intrin(target));
  }
  if (p.db_input) sch[P].double_buffer();
  if (p.db_weights) sch[ws].double_buffer();
  if (p.db_output) sch[ys].double_buffer();
  return NpuOp{"depthwise_conv2d", {X, W, Y}, s};
}

NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                           DepthwiseMapping mapping) {
  check_conv_shape("npu_depthwise_conv2d", shape);
  return npu_depthwise_conv2d(target, shape, q, mapping,
                              default_depthwise_conv2d_params(target, shape, mapping));
}

OnchipFootprint depthwise_conv2d_footprint(const npu::Target& target, const Conv2dShape& sh,
                                           DepthwiseMapping mapping,
                                           const NpuDepthwiseConv2dParams& p) {
  check_conv_shape("depthwise_conv2d_footprint", sh);
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B);
  const int64_t cb = std::min(p.tile_cb, CB), oh = std::min(p.tile_oh, sh.OH()),
                ow = std::min(p.tile_ow, sh.OW());
  int64_t input = cb * std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad) *
                  std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad);
  // A row of B weights per tap and block, or a B x B diagonal tile.
  int64_t weights = cb * sh.R * sh.S * (mapping == DepthwiseMapping::kDiagonalGemm ? B : 1);
  int64_t out = cb * oh * ow;
  OnchipFootprint f;
  f.sram_rows =
      input * (p.db_input ? 2 : 1) + weights * (p.db_weights ? 2 : 1) + out * (p.db_output ? 2 : 1);
  f.acc_rows = out;
  return f;
}

}  // namespace tessera
