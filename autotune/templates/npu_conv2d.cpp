#include "autotune/templates/npu_conv2d.h"

#include <algorithm>
#include <limits>

#include "schedule/tensor_intrin.h"

namespace tessera {

NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& sh, const Requant& q,
                 const NpuConv2dParams& p) {
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B), KB = ceil_div(sh.K, B);
  const int64_t OH = sh.OH(), OW = sh.OW();
  Tensor X = placeholder({CB, sh.H, sh.W, B}, DType::kInt8, "X");
  Tensor W = placeholder({KB, CB, sh.R, sh.S, B, B}, DType::kInt8, "W");
  Tensor P = zero_padded(X, sh.pad);
  IterVar rc = reduce_axis(0, CB, "rc");
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  IterVar i = reduce_axis(0, B, "i");
  Expr st = make_int(sh.stride);
  Tensor acc =
      compute({KB, OH, OW, B},
              [&](const std::vector<Var>& v) {
                Expr x = cast(DType::kInt32,
                              P({rc->var, v[1] * st + rr->var, v[2] * st + rs->var, i->var}));
                Expr w = cast(DType::kInt32, W({v[0], rc->var, rr->var, rs->var, v[3], i->var}));
                return sum(binary_op(ExprKind::kMul, x, w), {rc, rr, rs, i});
              },
              "acc", {"k", "oh", "ow", "o"});
  Tensor Y = compute({KB, OH, OW, B},
                     [&](const std::vector<Var>& v) {
                       return requant_expr(acc({v[0], v[1], v[2], v[3]}), q);
                     },
                     "Y", {"k", "oh", "ow", "o"});

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Stage a = schedule_conv_tiles(sch, Y, acc, P, W, p.tile_kb, p.tile_oh, p.double_buffer);
  const auto& ax = acc.op()->axis;
  if (p.fold_channels) {
    a.reorder({ax[0], rr, rs, ax[1], rc, ax[2], ax[3], i});
  } else {
    a.reorder({ax[0], rc, rr, rs, ax[1], ax[2], ax[3], i});
  }
  a.tensorize(ax[3], npu_gemm_intrin(target));
  return NpuOp{"conv2d", {X, W, Y}, s};
}

NpuConv2dParams default_conv2d_params(const npu::Target& t, const Conv2dShape& sh) {
  const int64_t B = t.block();
  const int64_t CB = ceil_div(sh.C, B), KB = ceil_div(sh.K, B);
  const int64_t OH = sh.OH(), OW = sh.OW(), Wp = sh.W + 2 * sh.pad;
  const int64_t sram_rows = t.sram_rows(), acc_rows = t.acc_rows();
  const double gemm_fixed = double(t.gemm_fixed_cycles),
               vector_fixed = double(t.vector_fixed_cycles);
  const double vector_row = double(t.vector_cycles_per_row());
  const double ddr_bpc = double(t.ddr_bytes_per_cycle), dma_fixed = double(t.dma_fixed_cycles);
  const double dma_row = double(t.dma_row_cycles);
  NpuConv2dParams best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int64_t kb = 1; kb <= KB; ++kb) {
    for (int64_t oh = 1; oh <= OH; ++oh) {
      for (bool fold : {false, true}) {
        int64_t acc_need = kb * oh * OW;
        int64_t in_rows = CB * ((oh - 1) * sh.stride + sh.R) * Wp;
        int64_t w_rows = kb * CB * sh.R * sh.S * B;
        int64_t sram_need = 2 * w_rows + 2 * in_rows + kb * oh * OW;
        if (acc_need > acc_rows || sram_need > sram_rows) continue;
        int64_t tiles = ceil_div(KB, kb) * ceil_div(OH, oh);
        // MAC-array steps (tiles over-cover the edges) plus the fixed cost of every GEMM
        // instruction; two vector passes (init or requantize) over the tile's rows.
        double steps = static_cast<double>(tiles) * kb * oh * OW * CB * sh.R * sh.S;
        double gemms = fold ? static_cast<double>(tiles) * kb * sh.R * sh.S * oh
                            : static_cast<double>(tiles) * kb * CB * sh.R * sh.S;
        double compute =
            steps + gemm_fixed * gemms + tiles * (2 * vector_fixed + 2 * vector_row * kb * oh * OW);
        // The load queue: the input tile per tile (one DMA per channel block when the border is
        // padded, each DDR row of it one row cost), the weights per output-channel tile, the
        // output once; every DMA pays its request latency on the queue.
        double bytes = static_cast<double>(tiles) * in_rows * B +
                       static_cast<double>(KB) * CB * sh.R * sh.S * B * B +
                       static_cast<double>(KB) * OH * OW * B;
        double in_dmas = sh.pad > 0 ? double(CB) : 1.0;
        double ddr_rows = static_cast<double>(tiles) * CB * ((oh - 1) * sh.stride + sh.R);
        double ddr = bytes / ddr_bpc + ddr_rows * dma_row + tiles * (in_dmas + 1) * dma_fixed;
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
