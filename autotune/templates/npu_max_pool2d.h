// NPU max pooling (batch 1) in NCHWc{B}, B = target.block():
//   X [CB, H, W, B] -> Y [CB, OH, OW, B]
//   Y[c, oh, ow] = max over the window positions (r, s) that fall inside X of
//                  X[c, oh*stride + r - pad, ow*stride + s - pad]
// i.e. max pooling whose padding is -infinity (equivalently -128 for int8).
//
// Padding. The DMA can only pad with zeros, and zero is not neutral for max (a window at the
// border whose inputs are all negative would give 0). So the zero-padded tile P only serves to
// keep every read in range; the reduction's window is clipped with a `where` condition, so padded
// positions are never read. Costs: with pad > 0 the guard sits directly around the row op,
// so every output row of every tap is its own vector instruction (no loop folding); with pad = 0
// there is no guard and the tap loops fold into two-level vector instructions.
//
// On the machine: the reduction stage lives in SRAM; its init (-128) is a vector constant fill,
// its update Y = max(Y, P) a vector max with a tensor operand; P is a DMA load.
#pragma once

#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuMaxPool2dParams {
  int64_t tile_oh = 8;  // output rows per tile
  int64_t tile_cb = 4;  // channel blocks per tile
  bool double_buffer = true;
};

struct Pool2dShape {
  int64_t C, H, W, R, S, stride, pad;
  int64_t OH() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - S) / stride + 1; }
};

NpuOp npu_max_pool2d(const npu::Target& target, const Pool2dShape& shape,
                     const NpuMaxPool2dParams& p = NpuMaxPool2dParams());

}  // namespace tessera
