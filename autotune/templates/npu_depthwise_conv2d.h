// NPU depthwise conv2d (batch 1) in NCHWc{B}, B = target.block(), in one of two mappings:
//
// Vector MAC (the default): the vector unit's per-lane multiply-accumulate (npu_vmac_intrin),
//   X [CB, H, W, B], W [CB, R, S, B] -> Y [CB, OH, OW, B]
//   Y[c, oh, ow, l] = requant(sum_{r, s} Xpad[c, oh*stride + r, ow*stride + s, l] * W[c, r, s, l])
// with W[c, r, s, l] = w[B c + l, r, s] (host helper: npu_layout.pack_depthwise_weight). One
// vector instruction per tap and tile: the first tap multiplies (mul), the others accumulate
// (mac), each row of B channels in ceil(B / vector_lanes) cycles.
//
// Diagonal GEMM: the MAC array with diagonal weight tiles (npu_gemm_intrin),
//   W [CB, R, S, B (out), B (in)], W[c, r, s, o, i] = w[B c + o, r, s] if o == i else 0
// (host helper: npu_layout.pack_depthwise_weight_diagonal): conv2d with a single input block per
// output block. Only the diagonal of each tile is non-zero, so it uses 1/B of the array and moves
// B times the weight bytes.
//
// The zero padding is a stage (P) computed per tile in SRAM: the DMA pads it on load.
#pragma once

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_op.h"

namespace tessera {

enum class DepthwiseMapping : uint8_t { kVectorMac, kDiagonalGemm };

struct NpuDepthwiseConv2dParams {
  int64_t tile_oh = 4;  // output rows per tile
  int64_t tile_cb = 4;  // channel blocks per tile
  bool double_buffer = true;
  DepthwiseMapping mapping = DepthwiseMapping::kVectorMac;
};

// Uses shape.C, H, W, R, S, stride, pad; shape.K must equal shape.C (one output per channel).
NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                           const NpuDepthwiseConv2dParams& p = NpuDepthwiseConv2dParams());

}  // namespace tessera
