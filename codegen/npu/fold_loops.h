// Which loops around a GEMM or vector statement become the instruction's two loop levels.
//
// A chain is the loops that perfectly nest one GEMM/vector statement (each loop's body is the next
// loop or the statement). A loop can fold when every row expression of the statement is affine in
// its variable with a constant stride in [0, 65535] (the ISA's u16 stride fields) and its extent
// is at most 65535. Folding loops i < j makes one instruction per iteration of the other (unrolled)
// loops, with ext0 = extent of i, ext1 = extent of j.
//
// Folding the innermost loops keeps the statement order exactly, so it is always legal (a `reset`
// GEMM that revisits an accumulator row keeps the last product, just as the loops say). Folding
// other loops reorders iterations; that is legal for an accumulating GEMM or vector mac (int32
// sums wrap, so any order gives the same bits) and for a reset GEMM whose accumulator row differs
// in every iteration of the chain; never for other vector statements. Among the legal choices the
// fewest instructions wins; ties go to the order-preserving one, then to the outermost loops.
//
// The choice is made from integers only (extents and strides), because the selector makes it for
// every instance of a chain (row_forms.h computes the strides by integer arithmetic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

struct FoldLoop {
  const Var* var = nullptr;  // the loop's variable (the For node's, which outlives this)
  int slot = -1;             // the variable's IntEnv slot
  int64_t min = 0, extent = 1;
};

// addr(i0, i1) = base + stride[0]*i0 + stride[1]*i1 where i0, i1 count from 0 over the folded
// loops (outer first).
struct AffineRow {
  int64_t base = 0;
  int64_t stride[2] = {0, 0};
};

// One chain instance as the choice sees it.
struct FoldProblem {
  std::vector<int64_t> extent;  // per chain loop, outer first
  // Per row of the statement (leaf_rows order), per loop: the row's stride in the loop's variable
  // (0 when it does not use it), nullopt when the row is not affine in it. Row-major.
  std::vector<std::optional<int64_t>> stride;
  size_t rows = 0;
  bool accumulate = false;  // a GEMM without reset or a vector mac: any order gives the same bits
  bool reset_gemm = false;  // a GEMM with reset: any order when row 0 (acc) is injective
  const std::optional<int64_t>& at(size_t row, size_t loop) const {
    return stride[row * extent.size() + loop];
  }
};

// The loops to fold: count 0 (none), 1 or 2, indices into the chain, outer first.
struct FoldChoice {
  int count = 0;
  size_t loop[2] = {0, 0};
  bool folds(size_t i) const { return (count > 0 && loop[0] == i) || (count > 1 && loop[1] == i); }
};

FoldChoice choose_fold(const FoldProblem& p);

// The row expressions of a GEMM (acc, inp, wgt) or vector statement (dst, src[, src2]).
std::vector<Expr> leaf_rows(const Stmt& leaf);

}  // namespace tessera
