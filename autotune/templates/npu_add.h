// NPU elementwise add of two int8 activations (a residual connection), batch 1, NCHWc{block}:
//   A, B [CB, H, W, block] -> Y [CB, H, W, block]   (block = target.block())
//   Y = int8(clamp(int32(A) + int32(B), -128, 127)), then max(Y, 0) if relu.
// On the machine: one vector add with a tensor operand (SRAM results saturate to int8, which is
// exactly the clamp) and, with relu, one vector relu, per tile.
//
// The schedule (NpuAddParams; the template's knobs, add_template.cpp): tiles of tile_cb channel
// blocks x tile_h rows x tile_w columns (tails allowed), their tile loops in `order`; per tile
// both inputs and the result in SRAM, double-buffered by db_input (both inputs) and db_output.
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/npu_template.h"

namespace tessera {

struct NpuAddParams {
  int64_t tile_cb = 1, tile_h = 1, tile_w = 1;
  std::vector<std::string> order;  // the tile loops, outermost first; empty: axis order
  bool db_input = true, db_output = true;
};

// ArgumentError naming `op` and the field unless C, H, W are in [1, kMaxOperatorExtent].
void check_add_shape(const char* op, int64_t C, int64_t H, int64_t W);

NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu,
              const NpuAddParams& p);
NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu);

OnchipFootprint add_footprint(const npu::Target& target, int64_t C, int64_t H, int64_t W,
                              const NpuAddParams& p);
NpuAddParams default_add_params(const npu::Target& target, int64_t C, int64_t H, int64_t W,
                                bool relu);

autotune::ConfigSpace add_space(const npu::Target& target, int64_t C, int64_t H, int64_t W);
NpuAddParams add_params(const autotune::ConfigSpace& space, const autotune::Config& config);
autotune::Config add_config(const autotune::ConfigSpace& space, const NpuAddParams& p);

}  // namespace tessera
