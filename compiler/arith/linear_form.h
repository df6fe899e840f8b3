// The canonical affine form of an integer expression: constant + sum of coefficient * atom.
//
// An atom is any sub-expression that is not itself a sum, a difference, a product by a constant
// or a constant: a variable, x / 4, x % 4, min(..), a load, a product of two non-constant factors.
// Parsing flattens + - and * by constants; terms are kept in structural_compare order (variables
// first, by creation) with equal atoms merged and zero coefficients dropped, so two expressions
// with the same affine meaning have the same form: x*4 + 1 - x*4 is the constant 1.
//
// Coefficients and the constant are kept wrapped to the type's width (as signed values), which is
// exact: + - * on integers of a fixed width are arithmetic modulo 2^bits, where reassociation
// and collecting terms are valid. (Anything that compares or divides is not; callers that reason
// about orders or quotients must bound the values separately.)
//
// Normalisation also merges the split-and-fuse pattern (x / c) * c + x % c into x, which is exact
// for floor division with any non-zero c.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

struct LinearTerm {
  Expr atom;
  int64_t coef;
};

struct LinearForm {
  DType dtype = kIndexType;
  std::vector<LinearTerm> terms;  // canonical order, distinct atoms, non-zero coefficients
  int64_t constant = 0;
  bool is_constant() const { return terms.empty(); }
};

// The canonical form of e (an integer expression). Atoms are taken as they are: simplify them
// first for the best result.
LinearForm linear_form(const Expr& e);
// The constant c in type t as a form.
LinearForm linear_constant(int64_t c, DType t);
// a + scale * b, normalised. a and b must have the same type.
LinearForm linear_add(const LinearForm& a, const LinearForm& b, int64_t scale = 1);
// scale * a, normalised.
LinearForm linear_scale(const LinearForm& a, int64_t scale);
// The expression for a form: terms in order with positive terms first where possible, the
// constant last: ((io * 32) + ii) + 31, (3 - x), ((x * 4) - y).
Expr linear_form_to_expr(const LinearForm& f);

// For index arithmetic (int32/int64 reading no memory): the canonical expression of a + scale * b,
// linear_form_to_expr(linear_add(linear_form(a), linear_form(b), scale)), and of a * b,
// linear_form_to_expr(linear_form(a * b)). While an ArithMemo lives (arith_memo.h) the result's
// form is remembered, so linear_form of it does not parse it again: the simplifier works
// bottom-up and parses each sum it built as an operand of the next ((x + y) + z) + w.
Expr linear_sum_expr(const Expr& a, const Expr& b, int64_t scale);
Expr linear_product_expr(const Expr& a, const Expr& b);

// The coefficient of v in f when v appears only as a plain term (0 when it does not appear);
// nullopt when v appears inside another atom (x / 4, x * y, min(..)), so that f is not affine in v.
// The one stride query of the NPU passes (tensorize, inject_npu_ops, codegen's loop folding).
std::optional<int64_t> linear_coef(const LinearForm& f, const Var& v);
// linear_coef of e's form (simplify e first for the best result).
std::optional<int64_t> linear_coef(const Expr& e, const Var& v);

// A coefficient or constant wrapped to t's width, as a signed value (uint8 as int8).
int64_t wrap_coef(int64_t v, DType t);

}  // namespace tessera
