// tensorize: proves that the loops of a stage under its tensorize axis compute the stage's
// tensor intrinsic, and builds the statement the intrinsic becomes.
//
// For the GEMM intrinsic of a BO x BI array the proof checks, and a mismatch raises
// ScheduleError printing both the loop body and the intrinsic:
//   * the loops under the axis are exactly o (data-parallel, extent BO) and i (reduction,
//     extent BI), unsplit;
//   * the body is a sum of int32(inp) * int32(wgt) with inp and wgt int8 and the stage int32;
//   * strides: the output's flat index moves 1 per o and 0 per i; inp's 1 per i and 0 per o;
//     wgt's 1 per i and BI per o; each starts on a row;
//   * memory: the output is in scope acc, inp and wgt in scope sram.
#pragma once

#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/infer_bounds.h"
#include "schedule/schedule.h"

namespace tessera {

// `store` is the stage's accumulator buffer and `store_index` its (multi-dimensional) index;
// `source` the reduction's source with reads already turned into buffer reads; `level` the
// position of the tensorize axis among the stage's loops.
Stmt tensorize(const StageNode& st, const StageBounds& b, size_t level, const Buffer& store,
               const std::vector<Expr>& store_index, const Expr& source);

// The row-major flat index of `index` into `b`.
Expr flat_index(const Buffer& b, const std::vector<Expr>& index);

}  // namespace tessera
