// inject_npu_ops: turns the innermost loop nests of an NPU schedule into NPU statements.
//
// After flatten_storage, every stage's innermost nest is `for ..: for l in 0..B: dst[a + l] = v`,
// B the target's block (the elements of one on-chip row). The lane loop becomes one row
// operation; what it becomes depends on the memories:
//   * global -> sram/acc copy (optionally `select(cond, X[..], 0)` for a zero-padded border):
//     an NpuDma load; the next two loops become its cols (consecutive rows, contiguous in DDR)
//     and rows (any strides); the padding conditions become the DMA's pad fields;
//   * sram/acc -> global copy: an NpuDma store, same shape rules, no padding;
//   * on-chip -> on-chip: an NpuVector op: zero (the init of a reduction: mul by 0), copy,
//     add/sub/mul/min/max with a row or an immediate, requantize, relu (max with 0), and an
//     int8 add written as a saturating clamp of int32 sums.
// Loops above the matched ones stay (codegen/npu folds or unrolls them). Tail guards (split
// tails, regions past the domain) shrink a DMA to the region they allow; a load's padding
// condition pads. What the NPU cannot run is a LowerError naming the stage: a copy whose lanes
// are not contiguous (the DMA cannot express it), an element-wise store no rule matches, an
// intermediate buffer that is not on chip (compiler/passes/npu_rules.h). A 1-lane target's lane
// loops (removed by simplify) are put back before matching.
#pragma once

#include "compiler/ir/ir.h"
#include "runtime/npu/target.h"

namespace tessera {

Stmt inject_npu_ops(const Stmt& s, const npu::Target& target);

}  // namespace tessera
