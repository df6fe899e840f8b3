// Interval bound analysis: the range of values an integer expression can take when some of its
// variables range over known intervals. Bounds may be symbolic (expressions over variables that
// have no range, which are treated as fixed points) or constant.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "compiler/ir/ir.h"

namespace tessera {

// [min, max], both inclusive. An undefined bound means unbounded on that side.
struct Interval {
  Expr min;
  Expr max;
  static Interval point(const Expr& e) { return {e, e}; }
  static Interval everything() { return {Expr(), Expr()}; }
  static Interval range(int64_t min, int64_t extent);  // [min, min + extent - 1], int32 constants
  bool bounded() const { return min.defined() && max.defined(); }
};

using VarRanges = std::map<Var, Interval, VarLess>;

// The interval of e's values when each variable in `ranges` takes any value in its interval and
// every other variable is a fixed (symbolic) point. The result's bounds are simplified; they are
// exact for affine expressions whose variables each appear once, and otherwise a conservative
// superset. Handles + - * (by constants and by intervals of known sign), floor / and % by
// positive constants, min, max, select, casts.
Interval eval_interval(const Expr& e, const VarRanges& ranges);

// The union of two intervals (min of mins, max of maxes), simplified.
Interval interval_union(const Interval& a, const Interval& b);

// Constant lower/upper bounds of e under constant variable ranges; nullopt when unbounded or when
// e depends on a variable with no constant range.
std::optional<int64_t> const_lower_bound(const Expr& e, const VarRanges& ranges);
std::optional<int64_t> const_upper_bound(const Expr& e, const VarRanges& ranges);

}  // namespace tessera
