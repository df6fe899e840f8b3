// The NPU operator library: int8 operators in NPU-friendly packed layouts, each with a
// hand-written default schedule whose split factors and choices come from a small parameter
// struct (the auto-tuner fills the same struct from a config).
//
// Every operator is built for one NPU target (npu::Target): B below is its block, the side of its
// (square) MAC array, target.block(); tile sizes that fit come from its SRAM and accumulator
// sizes and the default parameters' cost model from its costs.
// Layouts (host-side pack/unpack helpers, taking the target: python/tessera/npu_layout.py):
//   activations  NCHWc{B} without the batch: [C/B, H, W, B] (channels padded to a multiple of B)
//   dense input  [M, K/B, B];  dense weight [N/B, K/B, B (out), B (in)]
//   conv weight  [K/B, C/B, R, S, B (out), B (in)]
//   depthwise    [C/B, R, S, B]
// Arithmetic: int8 x int8 products accumulate in int32 (wrapping), then requantize to int8
// (docs/npu_isa.md), optionally followed by relu.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/te/te.h"
#include "runtime/npu/target.h"
#include "schedule/schedule.h"

namespace tessera {

// int32 -> int8: clamp(((x * multiplier) >>r shift) + zero_point), then max(., 0) if relu.
struct Requant {
  int64_t multiplier = 1;
  int64_t shift = 0;
  int64_t zero_point = 0;
  bool relu = false;
};

// One operator instance: its tensors (inputs..., output; packed layouts) and its schedule.
struct NpuOp {
  std::string name;
  std::vector<Tensor> args;
  std::shared_ptr<Schedule> schedule;
};

// requantize (and relu) of an int32 accumulator element, as the library writes it.
Expr requant_expr(const Expr& acc, const Requant& q);

int64_t ceil_div(int64_t a, int64_t b);

// P = X [blocks, H, W, B] with `pad` zero rows and columns around each block: the stage the
// DMA fills with its padding on load.
Tensor zero_padded(const Tensor& X, int64_t pad);

// The schedule the convolution-like operators share (conv2d, depthwise conv2d): the output Y
// [blocks, rows, cols, B] tiled by `tile_blocks` channel blocks and `tile_rows` rows; per tile
// the padded input P (scope sram, loaded with its padding by DMA), the accumulator `acc`
// (scope acc) and the requantized result (sram); the weights W (sram) per channel-block tile.
// Double buffering, when asked, applies to P and the weights. Returns acc's stage, whose loop
// order and tensorize the operator still chooses.
Stage schedule_conv_tiles(Schedule& sch, const Tensor& Y, const Tensor& acc, const Tensor& P,
                          const Tensor& W, int64_t tile_blocks, int64_t tile_rows,
                          bool double_buffer);

}  // namespace tessera
