// NPU conv2d (batch 1) in NCHWc{B}, B = target.block():
//   X [CB, H, W, B], W [KB, CB, R, S, B, B] -> Y [KB, OH, OW, B]
//   Y[k, oh, ow] = requant(sum_{c, r, s} Xpad[c, oh*stride + r, ow*stride + s] * W[k, c, r, s])
// The zero padding is a stage (P) computed per tile in SRAM: the DMA pads it on load.
#pragma once

#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuConv2dParams {
  int64_t tile_oh = 4;  // output rows per tile
  int64_t tile_kb = 4;  // output channel blocks per tile
  bool double_buffer = true;
  // Which two loops a GEMM instruction covers: output rows x columns (false), or input channel
  // blocks x output columns (true: better for small feature maps, where a row is short).
  bool fold_channels = false;
};

struct Conv2dShape {
  int64_t C, H, W, K, R, S, stride, pad;
  int64_t OH() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - S) / stride + 1; }
  int64_t macs() const { return K * OH() * OW() * C * R * S; }
};

NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                 const NpuConv2dParams& p = NpuConv2dParams());

// Parameters for `shape` that fit the target's SRAM and accumulator, chosen by a small analytic
// model of the target (MAC-array steps plus its per-instruction costs against its DMA traffic and
// DDR bandwidth); the tuner replaces it.
NpuConv2dParams default_conv2d_params(const npu::Target& target, const Conv2dShape& shape);

}  // namespace tessera
