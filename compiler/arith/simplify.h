// The simplifier: constant folding, canonical affine forms, floor division and modulo with known
// bounds, and removal of conditions that loop ranges decide.
//
// Rules (each one a test in tests/cpp/core/simplify_test.cpp):
//   * constants fold, in the expression's own type with the IR's semantics (floor div/mod;
//     integer results wrap as the C backend's two's complement would for that width);
//   * integer + - * expressions over variables become a canonical sum of terms
//     (c0 + c1*v1 + ... in the variables' creation order), so x*4 + 1 - x*4 == 1;
//   * (a*c + b) / c == a + b / c and (a*c + b) % c == b % c for constant c > 0, and
//     x / c == 0, x % c == x when 0 <= x < c is known from the ranges;
//   * min/max/comparisons decided by interval bounds fold to one side or to a constant;
//   * in a statement, each For's variable is known to range over [min, min + extent - 1] in its
//     body; an IfThenElse whose condition is decided is replaced by the taken branch; loops of
//     extent 1 are replaced by their body with the variable substituted; loops of extent 0 vanish.
// The simplifier never changes what a program computes; it only shortens how.
#pragma once

#include "compiler/arith/interval.h"
#include "compiler/ir/ir.h"

namespace tessera {

Expr simplify(const Expr& e, const VarRanges& ranges = {});
Stmt simplify(const Stmt& s, const VarRanges& ranges = {});

// True when cond (bool) holds for every value of the variables in their ranges. False means
// "could not prove", not "is false".
bool can_prove(const Expr& cond, const VarRanges& ranges = {});

}  // namespace tessera
