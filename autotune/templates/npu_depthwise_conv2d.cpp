#include "autotune/templates/npu_depthwise_conv2d.h"

#include "runtime/base/error.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& sh, const Requant& q,
                           const NpuDepthwiseConv2dParams& p) {
  if (sh.K != sh.C) {
    throw UserError(str("npu_depthwise_conv2d: K = ", sh.K, " must equal C = ", sh.C,
                        " (one output channel per input channel)"));
  }
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B);
  const int64_t OH = sh.OH(), OW = sh.OW();
  Tensor X = placeholder({CB, sh.H, sh.W, B}, DType::kInt8, "X");
  Tensor W = placeholder({CB, sh.R, sh.S, B, B}, DType::kInt8, "W");
  Tensor P = zero_padded(X, sh.pad);
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  IterVar i = reduce_axis(0, B, "i");
  Expr st = make_int(sh.stride);
  // The input block is the output block (v[0]): no reduction over channel blocks.
  Tensor acc = compute(
      {CB, OH, OW, B},
      [&](const std::vector<Var>& v) {
        Expr x = cast(DType::kInt32, P({v[0], v[1] * st + rr->var, v[2] * st + rs->var, i->var}));
        Expr w = cast(DType::kInt32, W({v[0], rr->var, rs->var, v[3], i->var}));
        return sum(binary_op(ExprKind::kMul, x, w), {rr, rs, i});
      },
      "acc", {"c", "oh", "ow", "o"});
  Tensor Y = compute({CB, OH, OW, B},
                     [&](const std::vector<Var>& v) {
                       return requant_expr(acc({v[0], v[1], v[2], v[3]}), q);
                     },
                     "Y", {"c", "oh", "ow", "o"});

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Stage a = schedule_conv_tiles(sch, Y, acc, P, W, p.tile_cb, p.tile_oh, p.double_buffer);
  const auto& ax = acc.op()->axis;
  a.reorder({ax[0], rr, rs, ax[1], ax[2], ax[3], i});
  a.tensorize(ax[3], npu_gemm_intrin(target));
  return NpuOp{"depthwise_conv2d", {X, W, Y}, s};
}

}  // namespace tessera
