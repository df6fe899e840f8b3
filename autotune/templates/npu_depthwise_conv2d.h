// NPU depthwise conv2d (batch 1) in NCHWc{B}, B = target.block(), in one of two mappings (the
// task argument `mapping`, since it decides the weights' layout):
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
//
// The schedule (NpuDepthwiseConv2dParams; the template's knobs, depthwise_template.cpp): output
// tiles of tile_cb channel blocks x tile_oh rows x tile_ow columns (tails allowed), their tile
// loops in `order`; the input tile and the accumulator per tile, the weights at the channel-tile
// loop (resident across the spatial tiles inside it); db_input, db_weights, db_output
// double-buffer the SRAM stages.
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_op.h"

namespace tessera {

enum class DepthwiseMapping : uint8_t { kVectorMac, kDiagonalGemm };

// "vector_mac", "diagonal_gemm".
const char* depthwise_mapping_name(DepthwiseMapping m);

struct NpuDepthwiseConv2dParams {
  int64_t tile_cb = 1, tile_oh = 1, tile_ow = 1;
  std::vector<std::string> order;  // the tile loops, outermost first; empty: axis order
  bool db_input = true, db_weights = true, db_output = true;
};

// Uses shape.C, H, W, R, S, stride, pad; shape.K must equal shape.C (one output per channel).
NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                           DepthwiseMapping mapping, const NpuDepthwiseConv2dParams& p);
NpuOp npu_depthwise_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                           DepthwiseMapping mapping = DepthwiseMapping::kVectorMac);

OnchipFootprint depthwise_conv2d_footprint(const npu::Target& target, const Conv2dShape& shape,
                                           DepthwiseMapping mapping,
                                           const NpuDepthwiseConv2dParams& p);
NpuDepthwiseConv2dParams default_depthwise_conv2d_params(const npu::Target& target,
                                                         const Conv2dShape& shape,
                                                         DepthwiseMapping mapping);

autotune::ConfigSpace depthwise_conv2d_space(const npu::Target& target, const Conv2dShape& shape,
                                             DepthwiseMapping mapping);
NpuDepthwiseConv2dParams depthwise_conv2d_params(const autotune::ConfigSpace& space,
                                                 const autotune::Config& config);
autotune::Config depthwise_conv2d_config(const autotune::ConfigSpace& space,
                                         const NpuDepthwiseConv2dParams& p);

}  // namespace tessera
