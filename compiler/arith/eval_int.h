// Integer evaluation of an expression whose variables are bound to constants: the value that
// simplify(substitute(e, env)) folds to, computed without building expressions.
//
//   std::optional<int64_t> v = eval_int(e, env);  // nullopt: not decided here
//
// Semantics are const_fold's (integer results wrap to their type's width; Div and Mod are floor
// division and floor modulo; comparisons and logical operators give 0 or 1; a Select evaluates
// the branch its condition takes; integer and bool casts wrap). nullopt whenever this function
// cannot be sure of that value: an unbound variable (or one bound to a non-constant), a float or
// a load, division or modulo by zero, operands of different types. Callers then take the general
// path (simplify), so an answer never differs from it; nullopt is not an error.
// The hot path of the NPU instruction selector, which evaluates addresses per unrolled iteration.
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/ir/ir.h"
#include "compiler/ir/substitute.h"

namespace tessera {

std::optional<int64_t> eval_int(const Expr& e, const VarMap& env);

}  // namespace tessera
