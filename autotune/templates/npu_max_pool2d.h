// NPU max pooling (batch 1) in NCHWc{B}, B = target.block():
//   X [CB, H, W, B] -> Y [CB, OH, OW, B]
//   Y[c, oh, ow] = max over the window positions (r, s) that fall inside X of
//                  X[c, oh*stride + r - pad, ow*stride + s - pad]
// i.e. max pooling whose padding is -infinity (equivalently -128 for int8).
//
// Padding. The DMA can only pad with zeros, and zero is not neutral for max (a window at the
// border whose inputs are all negative would give 0). So the zero-padded tile P only serves to
// keep every read in range; the reduction's window is clipped with a `where` condition, so padded
// positions are never read.
//
// On the machine: the reduction stage lives in SRAM; its init (-128) is a vector constant fill,
// its update Y = max(Y, P) a vector max with a tensor operand; P is a DMA load.
//
// The schedule (NpuMaxPool2dParams; the template's knobs, max_pool2d_template.cpp): output tiles
// of tile_cb channel blocks x tile_oh rows x tile_ow columns (tails allowed), their tile loops in
// `order`; per tile the input window P and the result, double-buffered by db_input, db_output.
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/npu_template.h"

namespace tessera {

struct NpuMaxPool2dParams {
  int64_t tile_cb = 1, tile_oh = 1, tile_ow = 1;
  std::vector<std::string> order;  // the tile loops, outermost first; empty: axis order
  bool db_input = true, db_output = true;
};

struct Pool2dShape {
  int64_t C, H, W, R, S, stride, pad;
  int64_t OH() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - S) / stride + 1; }
};

// ArgumentError naming `op` and the field for a size outside [1, kMaxOperatorExtent], a negative
// pad, a pad as large as the window (a window could lie wholly in the padding) or a window larger than the input.
void check_pool_shape(const char* op, const Pool2dShape& shape);

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& shape,
                     const NpuMaxPool2dParams& p);
NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& shape);

OnchipFootprint max_pool2d_footprint(const npu::Target& target, const Pool2dShape& shape,
                                     const NpuMaxPool2dParams& p);
NpuMaxPool2dParams default_max_pool2d_params(const npu::Target& target, const Pool2dShape& shape);

autotune::ConfigSpace max_pool2d_space(const npu::Target& target, const Pool2dShape& shape);
NpuMaxPool2dParams max_pool2d_params(const autotune::ConfigSpace& space,
                                     const autotune::Config& config);
autotune::Config max_pool2d_config(const autotune::ConfigSpace& space, const NpuMaxPool2dParams& p);

}  // namespace tessera
