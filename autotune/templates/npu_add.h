// NPU elementwise add of two int8 activations (a residual connection), batch 1, NCHWc{block}:
//   A, B [CB, H, W, block] -> Y [CB, H, W, block]   (block = target.block())
//   Y = int8(clamp(int32(A) + int32(B), -128, 127)), then max(Y, 0) if relu.
// On the machine: one vector add with a tensor operand (SRAM results saturate to int8, which is
// exactly the clamp) and, with relu, one vector relu, per tile of rows.
#pragma once

#include "autotune/templates/npu_op.h"

namespace tessera {

struct NpuAddParams {
  int64_t tile_h = 8;   // rows (of H) per tile
  int64_t tile_cb = 4;  // channel blocks per tile
  bool double_buffer = true;
};

NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu,
              const NpuAddParams& p = NpuAddParams());

}  // namespace tessera
