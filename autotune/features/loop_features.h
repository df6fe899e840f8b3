// Cost-model features of a lowered function's loop IR (docs/tuner_features.md lists every one).
//
// Cheap: one walk over the loop IR as lower() returns it (loops are not unrolled), no code
// generation. A fixed length, the same for every function and target, with stable names, so
// that one cost model reads the features of every template and shape:
//   - the main nest: the loops around the main statement (the GEMM executed most often; else
//     the vector statement, else the DMA, else the buffer store executed most often), outermost
//     first, in kMainNestSlots slots: extent, annotation (the loop kind), and how many DMAs run
//     per iteration of the loop outside the next loop of the nest (where loads are hoisted to);
//   - counts: loops by kind, nesting depth, ifs, NPU statements (static, and dynamic: times the
//     extents of their loops, an if counting its larger branch);
//   - per argument buffer (argument_slots.h): how deep in the main nest its DMAs sit (its reuse:
//     a tile loaded outside a loop is reused by all of that loop's iterations) and their number;
//   - the declared on-chip footprint: the bytes of the sram and acc allocations (both copies of a
//     double-buffered one) over the target's capacities.
// Missing values (a slot with no loop, a buffer with no DMA) are -1; counts are log2(1 + n).
#pragma once

#include <string>
#include <vector>

#include "compiler/lowered_func.h"
#include "runtime/npu/target.h"

namespace tessera::autotune {

constexpr int kMainNestSlots = 8;

std::vector<float> loop_features(const LoweredFunc& f, const npu::Target& target);

// One name per feature, in order ("loop.0.extent", "arg.in1.dma_depth", ...).
const std::vector<std::string>& loop_feature_names();

}  // namespace tessera::autotune
