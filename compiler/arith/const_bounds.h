// Constant bounds of an integer expression under variable ranges: the fast analysis behind every
// decision the simplifier makes (is this guard always true? is 0 <= y < 32?).
//
// Each variable in `ranges` takes any value of its interval; the interval's bounds may themselves
// be expressions over other ranged variables (a loop nest), which are bounded in turn. Variables
// without a range are unbounded. Beyond bounding each node from its children, two steps make the
// bounds of sums tight where loop nests need it:
//   * a ranged variable whose bound is symbolic is replaced by that bound inside the sum, so that
//     io*32 + ii with ii <= min(32, 100 - io*32) - 1 is bounded by min(io*32 + 31, 99) <= 99;
//   * a min/max/select term is distributed over the rest of the sum, so that
//     min(io*32 + 31, 99) - io*32 + 1 == min(32, 100 - io*32) <= 32.
// Both are limited by a fixed budget per query, so the cost stays linear in practice.
//
// uint32/uint64: a constant is its value (a uint64 above INT64_MAX is unbounded); anything else
// is the type's range (uint32) or unbounded (uint64), never analysed as signed numbers.
// Overflow: for int8/int16/uint8/bool the bounds are exact about wrapping (a sum that may leave
// the type's range gets the whole range). For int32/int64 a constant bound outside the type makes
// the result unbounded, but symbolic reasoning assumes index arithmetic does not overflow, as
// every loop-nest compiler does.
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/arith/interval.h"
#include "compiler/arith/linear_form.h"

namespace tessera {

// [min, max], inclusive; nullopt means unbounded on that side.
struct ConstBounds {
  std::optional<int64_t> min;
  std::optional<int64_t> max;
};

// Bounds of e (integer or bool; anything else is unbounded). e is not simplified first.
ConstBounds const_bounds(const Expr& e, const VarRanges& ranges);
ConstBounds const_bounds(const LinearForm& f, const VarRanges& ranges);

}  // namespace tessera
