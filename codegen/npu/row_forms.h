// The row expressions of GEMM and vector statements as affine functions of the folded loops,
// evaluated per unrolled iteration by integer arithmetic.
//
// Each row is simplified once over all its variables into a linear form whose atoms are compiled
// (int_program.h). An instance under an environment — what linear_form(simplify(substitute(row,
// env))) gives — keeps the terms of unbound plain variables and folds every other atom into the
// constant by integer evaluation. When an atom uses an unbound variable (x / 4 with x folded) or is
// not decided by integer evaluation, the instance is computed the general way (simplify), so the
// answer is always the same as the simplifier's, only without simplifying per iteration.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "codegen/npu/fold_loops.h"
#include "compiler/arith/int_program.h"
#include "compiler/arith/linear_form.h"

namespace tessera {

// A row under an environment.
struct RowInstance {
  bool general = false;  // computed by the simplifier: `form` holds it
  LinearForm form;
  // Otherwise: the constant (wrapped to the row's type) and the terms of unbound plain variables
  // in the form's order, as (slot, coefficient).
  DType dtype = kIndexType;
  int64_t constant = 0;
  std::vector<std::pair<int, int64_t>> terms;

  // The row's stride in v (slot s): 0 when it does not use v, nullopt when v appears inside
  // another atom (linear_coef's answer).
  std::optional<int64_t> stride(const Var& v, int s) const;
};

class RowForm {
 public:
  // A term whose atom is a plain variable: its slot, the variable's type, its coefficient.
  struct PlainTerm {
    int slot;
    DType type;
    int64_t coef;
  };

  RowForm(const Expr& row, IntEnv* env);
  const Expr& row() const { return row_; }
  // The instance under env (unbound variables stay symbolic).
  void instance(const IntEnv& env, RowInstance* out) const;
  // The row's value when every atom is a plain variable bound to a constant (what affine_row
  // gives as the base with nothing folded), by a dot product over the slots; false when integer
  // arithmetic alone does not decide (an atom that is not a variable, a variable not bound to a
  // constant of its type): affine_row then answers.
  // When every atom is a plain variable: the form's terms in order, its constant and type (the
  // instance under env is then the constant plus the bound variables' terms, wrapped to the
  // type, and the unbound variables' terms); null otherwise.
  const std::vector<PlainTerm>* plain_terms() const { return plain_ ? &plain_terms_ : nullptr; }
  // value() over the box of vars (int_program.h): true when it decides at every point and its
  // wrap to the row's type changes nothing there (value() is then affine in vars).
  bool value_affine(const IntEnv& env, const AffineVar* vars, int n) const;
  int64_t constant() const { return form_.constant; }
  DType dtype() const { return form_.dtype; }
  bool value(const IntEnv& env, int64_t* out) const {
    if (!plain_) return false;
    uint64_t c = static_cast<uint64_t>(form_.constant);  // wraps, as instance()
    for (const PlainTerm& t : plain_terms_) {
      int64_t v;
      if (!env.constant(t.slot, t.type, &v)) return false;
      c += static_cast<uint64_t>(t.coef) * static_cast<uint64_t>(v);
    }
    *out = wrap_coef(static_cast<int64_t>(c), form_.dtype);
    return true;
  }

 private:
  Expr row_;
  LinearForm form_;              // linear_form(simplify(row))
  std::vector<int> slot_;        // per term: the slot of its atom when a plain variable, else -1
  std::vector<int> atom_;        // per term: its index among the other atoms, else -1
  std::vector<DType> var_type_;  // per term: the atom's type
  IntProgram atoms_;             // the atoms that are not plain variables, compiled together
  mutable std::vector<std::optional<int64_t>> atom_value_;  // scratch of instance()
  bool plain_ = false;
  std::vector<PlainTerm> plain_terms_;
  // The instance the general way (the simplifier), when integer evaluation does not decide.
  void general(const IntEnv& env, RowInstance* out) const;
};

// `inst` (the row's instance over a chain, its unfolded loops now bound in env) as an affine
// function of the folded loops; nullopt when it is not one (a term that is not a plain variable,
// or a variable neither folded nor bound to a constant).
std::optional<AffineRow> affine_row_from(const RowInstance& inst, const IntEnv& env,
                                         const std::vector<FoldLoop>& folded);
// The row itself under env (every variable but the folded ones bound) as an affine function of
// the folded loops; nullopt when it is not one.
std::optional<AffineRow> affine_row(const RowForm& row, const IntEnv& env,
                                    const std::vector<FoldLoop>& folded, RowInstance* scratch);

}  // namespace tessera
