#include "autotune/templates/npu_conv2d.h"

#include <algorithm>
#include <limits>

#include "schedule/tensor_intrin.h"

namespace tessera {

namespace {
// At the logical shape: channels padded to the lanes add MACs, bytes and requantizes.
Work conv2d_work(const Conv2dShape& sh) {
  return Work{uint64_t(sh.macs()),
              uint64_t(sh.C * sh.H * sh.W + sh.K * sh.C * sh.R * sh.S + sh.K * sh.OH() * sh.OW()),
              uint64_t(sh.K * sh.OH() * sh.OW())};
}
}  // namespace

NpuOp npu_conv2d(const Conv2dShape& sh, const Requant& q, const NpuConv2dParams& p) {
  const int64_t CB = ceil_div(sh.C, kNpuLanes), KB = ceil_div(sh.K, kNpuLanes);
  const int64_t OH = sh.OH(), OW = sh.OW();
  Tensor X = placeholder({CB, sh.H, sh.W, kNpuLanes}, DType::kInt8, "X");
  Tensor W = placeholder({KB, CB, sh.R, sh.S, kNpuLanes, kNpuLanes}, DType::kInt8, "W");
  Tensor P = zero_padded(X, sh.pad);
  IterVar rc = reduce_axis(0, CB, "rc");
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  IterVar i = reduce_axis(0, kNpuLanes, "i");
  Expr st = make_int(sh.stride);
  Tensor acc =
      compute({KB, OH, OW, kNpuLanes},
              [&](const std::vector<Var>& v) {
                Expr x = cast(DType::kInt32,
                              P({rc->var, v[1] * st + rr->var, v[2] * st + rs->var, i->var}));
                Expr w = cast(DType::kInt32, W({v[0], rc->var, rr->var, rs->var, v[3], i->var}));
                return sum(binary_op(ExprKind::kMul, x, w), {rc, rr, rs, i});
              },
              "acc", {"k", "oh", "ow", "o"});
  Tensor Y = compute(
      {KB, OH, OW, kNpuLanes},
      [&](const std::vector<Var>& v) {
        return requant_expr(acc({v[0], v[1], v[2], v[3]}), q);
      },
      "Y", {"k", "oh", "ow", "o"}, conv2d_work(sh));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Stage a = schedule_conv_tiles(sch, Y, acc, P, W, p.tile_kb, p.tile_oh, p.double_buffer);
  const auto& ax = acc.op()->axis;
  if (p.fold_channels) {
    a.reorder({ax[0], rr, rs, ax[1], rc, ax[2], ax[3], i});
  } else {
    a.reorder({ax[0], rc, rr, rs, ax[1], ax[2], ax[3], i});
  }
  a.tensorize(ax[3], npu_gemm_intrin());
  return NpuOp{"conv2d", {X, W, Y}, s};
}

NpuConv2dParams default_conv2d_params(const Conv2dShape& sh, int64_t sram_bytes,
                                      int64_t acc_bytes) {
  const int64_t CB = ceil_div(sh.C, kNpuLanes), KB = ceil_div(sh.K, kNpuLanes);
  const int64_t OH = sh.OH(), OW = sh.OW(), Wp = sh.W + 2 * sh.pad;
  const int64_t sram_rows = sram_bytes / kNpuLanes, acc_rows = acc_bytes / (4 * kNpuLanes);
  NpuConv2dParams best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int64_t kb = 1; kb <= KB; ++kb) {
    for (int64_t oh = 1; oh <= OH; ++oh) {
      for (bool fold : {false, true}) {
        int64_t acc_need = kb * oh * OW;
        int64_t in_rows = CB * ((oh - 1) * sh.stride + sh.R) * Wp;
        int64_t w_rows = kb * CB * sh.R * sh.S * kNpuLanes;
        int64_t sram_need = 2 * w_rows + 2 * in_rows + kb * oh * OW;
        if (acc_need > acc_rows || sram_need > sram_rows) continue;
        int64_t tiles = ceil_div(KB, kb) * ceil_div(OH, oh);
        // MAC-array steps (tiles over-cover the edges) plus 20 cycles per GEMM instruction.
        double steps = static_cast<double>(tiles) * kb * oh * OW * CB * sh.R * sh.S;
        double gemms = fold ? static_cast<double>(tiles) * kb * sh.R * sh.S * oh
                            : static_cast<double>(tiles) * kb * CB * sh.R * sh.S;
        double compute = steps + 20 * gemms + tiles * (2 * 10 + 2 * kb * oh * OW);
        // DDR: the input tile per tile, the weights per output-channel tile, the output once.
        double ddr = (static_cast<double>(tiles) * in_rows * kNpuLanes +
                      static_cast<double>(KB) * CB * sh.R * sh.S * 256 +
                      static_cast<double>(KB) * OH * OW * kNpuLanes) /
                         16.0 +
                     tiles * 100.0;
        double cost = std::max(compute, ddr) + 0.05 * std::min(compute, ddr);
        if (cost < best_cost) {
          best_cost = cost;
          best.tile_kb = kb;
          best.tile_oh = oh;
          best.fold_channels = fold;
          best.double_buffer = true;
        }
      }
    }
  }
  return best;
}

}  // namespace tessera
