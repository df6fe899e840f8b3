// Interval bound analysis (compiler/arith/interval.h): the cases bound inference relies on.
#include <gtest/gtest.h>

#include "compiler/arith/interval.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

std::string str_of(const Interval& i) {
  return "[" + (i.min.defined() ? to_string(i.min) : std::string("-inf")) + ", " +
         (i.max.defined() ? to_string(i.max) : std::string("+inf")) + "]";
}

TEST(Interval, RangeIsInclusiveOfMinAndExclusiveOfEnd) {
  EXPECT_EQ(str_of(Interval::range(4, 8)), "[4, 11]");
}

TEST(Interval, SplitAccessIsSymbolicInOuterVariable) {
  Var io("io"), ii("ii"), k("k");
  VarRanges r{{ii, Interval::range(0, 32)}, {k, Interval::range(0, 64)}};
  EXPECT_EQ(str_of(eval_interval(io * 32 + ii, r)), "[(io * 32), ((io * 32) + 31)]");
  EXPECT_EQ(str_of(eval_interval(k, r)), "[0, 63]");
}

TEST(Interval, ExpressionWithoutRangedVariablesIsAPoint) {
  Var f("f");
  EXPECT_EQ(str_of(eval_interval(f / 24, {})), "[(f / 24), (f / 24)]");
}

TEST(Interval, FusedLoopDivisionAndModulo) {
  Var f("f");
  VarRanges r{{f, Interval::range(0, 96)}};
  EXPECT_EQ(str_of(eval_interval(f / 24, r)), "[0, 3]");
  EXPECT_EQ(str_of(eval_interval(f % 24, r)), "[0, 23]");
}

TEST(Interval, ModuloWithinOnePeriodIsExact) {
  Var f("f");
  EXPECT_EQ(str_of(eval_interval(f % 24, {{f, Interval::range(26, 4)}})), "[2, 5]");
}

// A fused loop split by a factor that divides the inner extent: one outer iteration's inner
// part never crosses a row, so % and / of it are tight (TVM's PassUpDomain for fuse).
TEST(Interval, SymbolicModuloWithinOnePeriodIsTight) {
  Var o("o"), ii("ii");
  VarRanges r{{ii, Interval::range(0, 3)}};
  EXPECT_EQ(str_of(eval_interval((o * 3 + ii) % 12, r)), "[((o % 4) * 3), (((o % 4) * 3) + 2)]");
  EXPECT_EQ(str_of(eval_interval((o * 3 + ii) / 12, r)), "[(o / 4), (o / 4)]");
  // 4 does not divide 12 by 3s, but o*4 % 12 is at most 8 and 8 + 2 < 12: still one period.
  EXPECT_EQ(str_of(eval_interval((o * 4 + ii) % 12, r)), "[((o % 3) * 4), (((o % 3) * 4) + 2)]");
}

TEST(Interval, SymbolicModuloThatMayCrossAPeriodIsTheWholePeriod) {
  Var o("o"), ii("ii");
  // o*5 % 12 can be 10 or 11: the five values may wrap around.
  EXPECT_EQ(str_of(eval_interval((o * 5 + ii) % 12, {{ii, Interval::range(0, 5)}})), "[0, 11]");
  // Wider than the period.
  EXPECT_EQ(str_of(eval_interval((o * 12 + ii) % 12, {{ii, Interval::range(0, 13)}})), "[0, 11]");
}

TEST(Interval, MultiplicationByNegativeConstantFlips) {
  Var x("x");
  EXPECT_EQ(str_of(eval_interval(x * -3 + 1, {{x, Interval::range(0, 5)}})), "[-11, 1]");
}

TEST(Interval, ProductOfRangedVariablesUsesCorners) {
  Var x("x"), y("y");
  VarRanges r{{x, Interval::range(0, 4)}, {y, Interval::range(-2, 5)}};
  EXPECT_EQ(str_of(eval_interval(x * y, r)), "[-6, 6]");
}

TEST(Interval, ProductWithSymbolicNonNegativeBoundIsSymbolic) {
  Var x("x"), n("n");
  VarRanges r{{x, Interval::range(0, 4)}};
  // n has no range: x*n ranges between 0 and n*3, whichever is smaller.
  EXPECT_EQ(str_of(eval_interval(x * n, r)), "[min((n * 3), 0), max((n * 3), 0)]");
}

TEST(Interval, MinAndMaxCombineBounds) {
  Var x("x");
  VarRanges r{{x, Interval::range(0, 64)}};
  EXPECT_EQ(str_of(eval_interval(min(x, 40), r)), "[0, 40]");
  EXPECT_EQ(str_of(eval_interval(max(x - 10, 0), r)), "[0, 53]");
}

TEST(Interval, MinOfSymbolicBounds) {
  Var io("io"), ii("ii");
  VarRanges r{{ii, Interval::range(0, 32)}};
  EXPECT_EQ(str_of(eval_interval(min(io * 32 + ii, 99), r)),
            "[min((io * 32), 99), min(((io * 32) + 31), 99)]");
}

TEST(Interval, SelectIsTheUnionOfItsBranches) {
  Var x("x");
  VarRanges r{{x, Interval::range(0, 10)}};
  EXPECT_EQ(str_of(eval_interval(make_select(x < 5, x, x + 20), r)), "[0, 29]");
}

TEST(Interval, SelectWithProvableConditionTakesOneBranch) {
  Var x("x"), y("y");
  VarRanges r{{x, Interval::range(0, 10)}, {y, Interval::range(0, 3)}};
  EXPECT_EQ(str_of(eval_interval(make_select(x < 10, y, x), r)), "[0, 2]");
}

TEST(Interval, UnrangedVariableInsideLoadMakesItUnbounded) {
  Var x("x");
  Buffer b = make_buffer("B", DType::kInt32, {16});
  EXPECT_EQ(str_of(eval_interval(make_buffer_load(b, {x}), {{x, Interval::range(0, 16)}})),
            "[-inf, +inf]");
}

TEST(Interval, NarrowLoadHasTheRangeOfItsType) {
  Var x("x");
  Buffer b = make_buffer("B", DType::kInt8, {16});
  EXPECT_EQ(str_of(eval_interval(make_buffer_load(b, {x}), {{x, Interval::range(0, 16)}})),
            "[int8(-128), int8(127)]");
}

TEST(Interval, NestedRangesResolveThroughSymbolicBounds) {
  Var io("io"), ii("ii");
  // ii's upper bound mentions io, whose range is constant.
  VarRanges r{{io, Interval::range(0, 4)}, {ii, {Expr(0), io * 8 + 7}}};
  EXPECT_EQ(str_of(eval_interval(ii, r)), "[0, 31]");
}

TEST(Interval, OverflowingConstantBoundsAreUnbounded) {
  Var x("x");
  VarRanges r{{x, Interval::range(0, 1 << 20)}};
  EXPECT_EQ(str_of(eval_interval(x * 4096, r)), "[-inf, +inf]");
}

TEST(Interval, UnionOfShiftedWindowsTakesOuterBounds) {
  Var io("io");
  Interval a{io * 32, io * 32 + 31}, b{io * 32 + 1, io * 32 + 32};
  EXPECT_EQ(str_of(interval_union(a, b)), "[(io * 32), ((io * 32) + 32)]");
}

TEST(Interval, UnionWithUnboundedSideIsUnbounded) {
  Interval a{Expr(0), Expr(5)}, b{Expr(), Expr(3)};
  EXPECT_EQ(str_of(interval_union(a, b)), "[-inf, 5]");
}

TEST(Interval, ConstantExtentOfSymbolicWindow) {
  Var io("io");
  EXPECT_EQ(const_upper_bound((io * 32 + 31) - io * 32 + 1, {}), 32);
  EXPECT_EQ(const_lower_bound((io * 32 + 31) - io * 32 + 1, {}), 32);
}

TEST(Interval, ConstantExtentOfClippedWindow) {
  Var io("io");
  VarRanges r{{io, Interval::range(0, 4)}};
  EXPECT_EQ(const_upper_bound(min(io * 32 + 31, 99) - io * 32 + 1, r), 32);
  EXPECT_EQ(const_lower_bound(min(io * 32 + 31, 99) - io * 32 + 1, r), 4);
}

TEST(Interval, ConstantExtentOfRegionClampedOnBothSides) {
  // What bound inference asks: the extent of [max(lo, 0), min(hi, 99)] for lo = io*32 - 1 and
  // hi = io*32 + 32 (a 3-point stencil over a split of 32).
  Var io("io");
  VarRanges r{{io, Interval::range(0, 4)}};
  Expr lo = max(io * 32 - 1, 0), hi = min(io * 32 + 32, 99);
  EXPECT_EQ(const_upper_bound(hi - lo + 1, r), 34);
}

TEST(Interval, ConstantBoundOfUnrangedVariableIsUnknown) {
  Var n("n");
  EXPECT_EQ(const_upper_bound(n + 1, {}), std::nullopt);
  EXPECT_EQ(const_lower_bound(n % 8, {}), 0);
  EXPECT_EQ(const_upper_bound(n % 8, {}), 7);
}

TEST(Interval, CyclicRangesDoNotLoop) {
  Var x("x"), y("y");
  VarRanges r{{x, {Expr(0), Expr(y)}}, {y, {Expr(0), Expr(x)}}};
  EXPECT_EQ(const_upper_bound(x + y, r), std::nullopt);
  EXPECT_EQ(const_lower_bound(x + y, r), 0);
  EXPECT_FALSE(eval_interval(x, r).max.defined());
}

}  // namespace
}  // namespace tessera
