// NPU depthwise conv2d (batch 1) in NCHWc{B}, B = target.block(), run on the GEMM intrinsic with
// diagonal weight tiles:
//   X [CB, H, W, B], W [CB, R, S, B (out), B (in)] -> Y [CB, OH, OW, B]
//   Y[c, oh, ow, o] = requant(sum_{r, s, i} Xpad[c, oh*stride + r, ow*stride + s, i] * W[c, r, s,
//   o, i])
// with W[c, r, s, o, i] = w[B c + o, r, s] if o == i else 0 (host helper:
// npu_layout.pack_depthwise_weight_diagonal). It is conv2d with a single input block per output
// block. Only the diagonal of each B x B tile is non-zero, so it uses 1/B of the MAC array: the
// price of reusing the GEMM intrinsic instead of a per-lane vector multiply-accumulate.
// The zero padding is a stage (P) computed per tile in SRAM: the DMA pads it on load.
#pragma once

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuDepthwiseConv2dParams {
  int64_t tile_oh = 4;  // output rows per tile
  int64_t tile_cb = 4;  // channel blocks per tile
  bool double_buffer = true;
};

// Uses shape.C, H, W, R, S, stride, pad; shape.K must equal shape.C (one output per channel).
NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                           const NpuDepthwiseConv2dParams& p = NpuDepthwiseConv2dParams());

}  // namespace tessera
