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
//   depthwise    [C/B, R, S, B] (vector MAC mapping; [C/B, R, S, B, B] diagonal tiles for the GEMM one)
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

// The tile loops of an output stage: its first axes (named `names`, in axis order) split by
// `factors` (tails allowed: lowering guards them); the outer loops in `order` (a permutation of
// `names`, outermost first; empty: axis order), then the inner loops in axis order, then the
// stage's other axes.
class OutputTiles {
 public:
  OutputTiles(std::vector<std::string> names, std::vector<IterVar> outer,
              std::vector<IterVar> inner, std::vector<std::string> order)
      : names_(std::move(names)),
        outer_(std::move(outer)),
        inner_(std::move(inner)),
        order_(std::move(order)) {}
  IterVar outer(const std::string& name) const;
  IterVar inner(const std::string& name) const;
  // The innermost tile loop: one iteration is one output tile.
  IterVar innermost() const { return outer(order_.back()); }
  // Of the outer loops of `names`, the one innermost in the order: where a stage that depends on
  // those tiles only is computed.
  IterVar inner_of(const std::vector<std::string>& names) const;

 private:
  size_t position(const std::string& name) const;
  std::vector<std::string> names_;
  std::vector<IterVar> outer_, inner_;
  std::vector<std::string> order_;
};
OutputTiles tile_output(Stage y, const std::vector<std::string>& names,
                        const std::vector<int64_t>& factors, const std::vector<std::string>& order);

// `order`, or `names` (axis order) when it is empty.
std::vector<std::string> tile_order(const std::vector<std::string>& order,
                                    const std::vector<std::string>& names);

// Whether a GEMM operator's space offers double buffering of the accumulator (the knob db_acc):
// on a target whose MAC array and vector unit run concurrently (Target::compute_units = 2) it
// lets the next tile's GEMMs write other accumulator rows than this tile's requantize reads, so
// the two overlap (docs/npu_isa.md section 6, rule 6); on one compute unit it would only take
// accumulator rows, so the knob is not offered there.
inline bool offers_db_acc(const npu::Target& t) { return t.compute_units == 2; }

// ScheduleError naming `op` unless `order` is empty or a permutation of `names`.
void check_tile_order(const char* op, const std::vector<std::string>& order,
                      const std::vector<std::string>& names);

}  // namespace tessera
