// The simplifier: constant folding, canonical affine forms, floor division and modulo with known
// bounds, and removal of conditions that loop ranges decide.
//
// Rules (each one a test in tests/cpp/core/arith_simplify_test.cpp and
// arith_simplify_stmt_test.cpp; the per-node rules are listed in rewrite.h):
//   * constants fold, in the expression's own type with the IR's semantics (floor div/mod;
//     integer results wrap as the C backend's two's complement would for that width); division
//     by zero is never folded; floats fold only when both operands are constants;
//   * integer + - * expressions over variables become a canonical sum of terms
//     (c1*v1 + ... + c0, variables in creation order, the constant last), so x*4 + 1 - x*4 == 1;
//   * (a*c + b) / c == a + b / c and (a*c + b) % c == b % c for constant c > 0, and
//     x / c == 0, x % c == x when 0 <= x < c is known from the ranges;
//     (x / c)*c + x % c == x;
//   * min/max/comparisons decided by interval bounds fold to one side or to a constant;
//   * in a statement, each For's variable is known to range over [min, min + extent - 1] in its
//     body (a Let's variable is known to equal its value); an IfThenElse whose condition is
//     decided is replaced by the taken branch; loops of extent 1 are replaced by their body with
//     the variable substituted; loops whose extent is provably <= 0 vanish, and so do
//     allocations, attributes, lets and ifs left with nothing inside. A statement that vanishes
//     entirely is returned as an undefined Stmt (the IR's empty statement, as in make_seq).
// The simplifier never changes what a program computes; it only shortens how. int32/int64
// arithmetic is treated as not overflowing (it holds indices); int8/int16/uint8 wrap and only the
// rules that are exact under wrapping apply to them.
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
