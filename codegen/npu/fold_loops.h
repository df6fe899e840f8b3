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
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "compiler/arith/linear_form.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/substitute.h"

namespace tessera {

struct FoldLoop {
  Var var;
  int64_t min = 0, extent = 1;
};

// addr(i0, i1) = base + stride[0]*i0 + stride[1]*i1 where i0, i1 count from 0 over the folded
// loops (outer first).
struct AffineRow {
  int64_t base = 0;
  int64_t stride[2] = {0, 0};
};

// The linear forms of the row expressions under an environment, as
// linear_form(simplify(substitute(row, env))) gives them, without simplifying per unrolled
// iteration: each row is simplified once over all its variables; an instance keeps the terms of
// its unbound variables and evaluates every other atom under env by integer arithmetic (eval_int).
// When an atom uses an unbound variable (x / 4 with x folded) or is not decided by integer
// evaluation, the instance is computed the general way, so the answer is always the same.
class RowForms {
 public:
  LinearForm instance(const Expr& row, const VarMap& env);

 private:
  struct Compiled {
    Expr row;              // keeps the key alive
    LinearForm form;       // linear_form(simplify(row))
    std::vector<bool> plain;  // per term: its atom is a variable
  };
  std::map<const ExprNode*, Compiled> cache_;  // looked up only, never iterated
};

// The row expressions of a GEMM (acc, inp, wgt) or vector statement (dst, src[, src2]).
std::vector<Expr> leaf_rows(const Stmt& leaf);

// Indices into `chain` of the loops to fold (outer first; at most two), or empty. `env` binds
// the variables of enclosing unrolled loops and lets.
// forms_out, when given, receives the forms of leaf_rows(leaf) under env (chain variables unbound).
std::vector<size_t> choose_fold(const std::vector<FoldLoop>& chain, const Stmt& leaf,
                                const VarMap& env, RowForms* forms,
                                std::vector<LinearForm>* forms_out = nullptr);

// `row` with env substituted, as an affine function of the folded loops; nullopt when it is not
// one (it uses another unbound variable, or a folded variable non-linearly).
std::optional<AffineRow> affine_row(const Expr& row, const VarMap& env,
                                    const std::vector<FoldLoop>& folded, RowForms* forms);

// affine_row from the row's form over the chain (choose_fold's forms_out) once the chain's
// unfolded loops are bound in env, by integer arithmetic: the same answer as affine_row, or nullopt
// when the form is not made of plain variables bound in env or folded (then ask affine_row).
std::optional<AffineRow> affine_row_from(const LinearForm& chain_form, const VarMap& env,
                                         const std::vector<FoldLoop>& folded);

}  // namespace tessera
