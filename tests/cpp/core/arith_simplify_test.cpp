// Expression rules of the simplifier (compiler/arith/simplify.h, rewrite.h), one per test, as
// before/expected text.
#include <gtest/gtest.h>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

std::string simp(const Expr& e, const VarRanges& r = {}) { return to_string(simplify(e, r)); }

TEST(Simplify, AddingZeroAndMultiplyingByOneDisappear) {
  Var x("x");
  EXPECT_EQ(simp(x * 1 + 0), "x");
  EXPECT_EQ(simp(Expr(0) + x * 1), "x");
}

TEST(Simplify, MultiplyingByZeroIsZero) {
  Var x("x");
  EXPECT_EQ(simp(x * 0 + 3), "3");
}

TEST(Simplify, CancellingTermsLeaveTheConstant) {
  Var x("x");
  EXPECT_EQ(simp(x * 4 + 1 - x * 4), "1");
}

TEST(Simplify, SumsAreCanonicalRegardlessOfOrder) {
  Var io("io"), ii("ii");
  EXPECT_EQ(simp(ii + 31 + io * 32), "(((io * 32) + ii) + 31)");
  EXPECT_EQ(simp(io * 16 + ii + io * 16 + 31), "(((io * 32) + ii) + 31)");
}

TEST(Simplify, NegativeTermsAreWrittenAsSubtraction) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x - y * 3 - 2), "((x - (y * 3)) - 2)");
  EXPECT_EQ(simp(Expr(3) - x), "(3 - x)");
  EXPECT_EQ(simp(Expr(0) - x), "(x * -1)");
}

TEST(Simplify, ConstantFactorsDistributeOverSums) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x + 2) * 3 - x * 3), "6");
  EXPECT_EQ(simp((x + y) * 2 - y), "((x * 2) + y)");
}

TEST(Simplify, ProductsOfVariablesCommute) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x * y - y * x), "0");
  EXPECT_EQ(simp((x * 2) * y - (x * y) * 2), "0");
}

TEST(Simplify, FloorDivOfMultiplePlusSmallRemainderDropsRemainder) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x * 32 + y) / 32, {{y, Interval::range(0, 32)}}), "x");
}

TEST(Simplify, FloorModOfMultiplePlusSmallRemainderIsRemainder) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x * 32 + y) % 32, {{y, Interval::range(0, 32)}}), "y");
}

TEST(Simplify, FloorDivWithUnknownRemainderKeepsQuotientOutside) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x * 32 + y) / 32), "(x + (y / 32))");
  EXPECT_EQ(simp((x * 32 + y) % 32), "(y % 32)");
}

TEST(Simplify, FloorDivOfNegativeRangeUsesFloor) {
  Var y("y");
  // y in [-4, -1]: floor(y / 4) == -1 and y % 4 == y + 4.
  EXPECT_EQ(simp(y / 4, {{y, Interval::range(-4, 4)}}), "-1");
  EXPECT_EQ(simp(y % 4, {{y, Interval::range(-4, 4)}}), "(y + 4)");
}

TEST(Simplify, RemainderRangeDecidesQuotientOffset) {
  Var x("x"), y("y");
  // y + 40 is in [40, 47]: (x*32 + y + 40) / 32 == x + 1.
  EXPECT_EQ(simp((x * 32 + y + 40) / 32, {{y, Interval::range(0, 8)}}), "(x + 1)");
  EXPECT_EQ(simp((x * 32 + y + 40) % 32, {{y, Interval::range(0, 8)}}), "(y + 8)");
}

TEST(Simplify, CommonFactorsDivideOut) {
  Var x("x");
  EXPECT_EQ(simp((x * 4) / 16), "(x / 4)");
  EXPECT_EQ(simp((x * 4) % 16), "((x % 4) * 4)");
  EXPECT_EQ(simp((x * 4 + 8) / 16), "((x + 2) / 4)");
}

TEST(Simplify, CommonFactorOfTermsDividesOutPastTheConstant) {
  Var x("x");
  // floor((8x + 7) / 24) == floor(floor((8x + 7) / 8) / 3) == floor(x / 3).
  EXPECT_EQ(simp((x * 8 + 7) / 24), "(x / 3)");
  EXPECT_EQ(simp((x * 8 + 7) % 24), "(((x % 3) * 8) + 7)");
  EXPECT_EQ(simp((x * 8 - 1) / 24), "((x - 1) / 3)");
}

TEST(Simplify, NestedFloorDivisionsMerge) {
  Var x("x");
  EXPECT_EQ(simp((x / 4) / 8), "(x / 32)");
}

TEST(Simplify, NestedModuloByDivisorCollapses) {
  Var x("x");
  EXPECT_EQ(simp((x % 32) % 8), "(x % 8)");
  EXPECT_EQ(simp((x % 8) % 32), "(x % 8)");
}

TEST(Simplify, SplitIndexRecombines) {
  Var f("f");
  // The fused-then-split pattern: (f / 24) * 24 + f % 24 == f.
  EXPECT_EQ(simp((f / 24) * 24 + f % 24), "f");
  EXPECT_EQ(simp(((f / 24) * 24 + f % 24) * 2 + 1), "((f * 2) + 1)");
}

TEST(Simplify, SplitIndexRecombinesAfterModuloConstantIsReduced) {
  Var x("x");
  // (x + 7) % 4 becomes (x + 3) % 4; the pair still recombines into x + 7.
  EXPECT_EQ(simp(((x + 7) / 4) * 4 + (x + 7) % 4), "(x + 7)");
  EXPECT_EQ(simp(((x * 2 + 6) / 4) * 4 + (x * 2 + 6) % 4), "((x * 2) + 6)");
}

TEST(Simplify, LoadedInt32ValuesAreNotAssumedFreeOfOverflow) {
  // acc * 256 may wrap in int32, so (acc*256 + 128) / 256 is not acc; an index would be.
  Var i("i");
  Buffer b = make_buffer("Acc", DType::kInt32, {8});
  Expr acc = make_buffer_load(b, {i});
  EXPECT_EQ(simp((acc * 256 + 128) / 256), "(((Acc[i] * 256) + 128) / 256)");
  EXPECT_EQ(simp(acc + 5 < acc), "((Acc[i] + 5) < Acc[i])");
  EXPECT_EQ(simp((i * 256 + 128) / 256), "i");
}

TEST(Simplify, IntegerDataArithmeticKeepsItsShape) {
  // acc + a*b is what MAC pattern matching looks for: it is not reordered into canonical form.
  Var i("i");
  Buffer c = make_buffer("C", DType::kInt32, {8}), a = make_buffer("A", DType::kInt8, {8});
  Expr acc = make_buffer_load(c, {i});
  Expr prod = make_cast(DType::kInt32, make_buffer_load(a, {i})) *
              make_cast(DType::kInt32, make_buffer_load(a, {i + 0}));
  EXPECT_EQ(simp(acc + prod), "(C[i] + (int32(A[i]) * int32(A[i])))");
  EXPECT_EQ(simp(acc * 1 + 0), "C[i]");
  EXPECT_EQ(simp(acc - acc), "0");
}

TEST(Simplify, DivisionByOneAndModuloByOne) {
  Var x("x");
  EXPECT_EQ(simp(x / 1), "x");
  EXPECT_EQ(simp(x % 1), "0");
}

TEST(Simplify, DivisionByZeroIsLeftAlone) {
  EXPECT_EQ(simp(Expr(7) / 0), "(7 / 0)");
  EXPECT_EQ(simp(Expr(7) % 0), "(7 % 0)");
}

TEST(Simplify, MinOfTermsWithConstantDifferencePicksSmaller) {
  Var io("io");
  EXPECT_EQ(simp(min(io * 32, io * 32 + 1)), "(io * 32)");
  EXPECT_EQ(simp(max(io * 32 + 31, io * 32 + 32)), "((io * 32) + 32)");
}

TEST(Simplify, MinDecidedByRanges) {
  Var x("x");
  VarRanges r{{x, Interval::range(0, 10)}};
  EXPECT_EQ(simp(min(x, 40), r), "x");
  EXPECT_EQ(simp(max(x, 40), r), "40");
  EXPECT_EQ(simp(min(x, 5), r), "min(x, 5)");
}

TEST(Simplify, MinPutsConstantLast) {
  Var x("x");
  EXPECT_EQ(simp(min(Expr(5), x)), "min(x, 5)");
}

TEST(Simplify, NestedMinWithConstantsMerges) {
  Var x("x");
  EXPECT_EQ(simp(min(min(x, 5), 3)), "min(x, 3)");
  EXPECT_EQ(simp(min(max(x, 5), 3)), "3");
}

TEST(Simplify, ComparisonDecidedByRanges) {
  Var io("io"), ii("ii");
  VarRanges r{{io, Interval::range(0, 4)}, {ii, Interval::range(0, 32)}};
  EXPECT_EQ(simp(io * 32 + ii < 128, r), "true");
  EXPECT_EQ(simp(io * 32 + ii >= 128, r), "false");
  EXPECT_EQ(simp(io * 32 + ii < 100, r), "(((io * 32) + ii) < 100)");
}

TEST(Simplify, ComparisonCancelsCommonTerms) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x * 4 + y < x * 4 + 5), "(y < 5)");
  EXPECT_EQ(simp(x + 1 <= y + 1), "(x <= y)");
  EXPECT_EQ(simp(Expr(10) < x), "(x > 10)");
}

TEST(Simplify, ComparisonOfEqualOperands) {
  Var x("x");
  EXPECT_EQ(simp(x <= x), "true");
  EXPECT_EQ(simp(x < x), "false");
}

TEST(Simplify, BooleanConstantsFold) {
  Var x("x");
  Expr c = x < 3;
  EXPECT_EQ(simp(make_not(make_bool(true))), "false");
  EXPECT_EQ(simp(c && make_bool(true)), "(x < 3)");
  EXPECT_EQ(simp(c && make_bool(false)), "false");
  EXPECT_EQ(simp(make_binary(ExprKind::kOr, c, make_bool(true))), "true");
  EXPECT_EQ(simp(make_binary(ExprKind::kOr, make_bool(false), c)), "(x < 3)");
}

TEST(Simplify, NegatedIntegerComparisonInverts) {
  Var x("x");
  EXPECT_EQ(simp(make_not(x < 3)), "(x >= 3)");
  EXPECT_EQ(simp(make_not(make_not(x < 3))), "(x < 3)");
}

TEST(Simplify, NegatedFloatOrderingIsKept) {
  Var x("x", DType::kFloat32);
  // !(x < 3) is not x >= 3 when x is NaN.
  EXPECT_EQ(simp(make_not(x < make_float(3))), "!(x < 3.0f)");
}

TEST(Simplify, SelectWithConstantConditionPicksBranch) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(make_select(make_bool(true), x, y)), "x");
  EXPECT_EQ(simp(make_select(x < x, x, y)), "y");
  EXPECT_EQ(simp(make_select(x < y, x + 0, x)), "x");
}

TEST(Simplify, FloatConstantsFoldButFloatExpressionsAreKept) {
  Var x("x", DType::kFloat32);
  EXPECT_EQ(simp(make_float(1.5) * make_float(2.0)), "3.0f");
  EXPECT_EQ(simp(x * make_float(1.0)), "(x * 1.0f)");
  EXPECT_EQ(simp(x + make_float(0.0)), "(x + 0.0f)");
  EXPECT_EQ(simp((x + make_float(1.0)) - make_float(1.0)), "((x + 1.0f) - 1.0f)");
}

TEST(Simplify, Float32ConstantsRoundToFloat) {
  // 0.1f + 0.2f in float32 is 0.300000012f, not the float64 sum.
  Expr e = make_float(0.1f) + make_float(0.2f);
  const auto* f = simplify(e).as<FloatImmNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, static_cast<double>(0.1f + 0.2f));
}

TEST(Simplify, FloatDivisionByZeroIsLeftAlone) {
  EXPECT_EQ(simp(make_float(1.0) / make_float(0.0)), "(1.0f / 0.0f)");
}

TEST(Simplify, Int8ConstantsWrap) {
  Expr a = make_int(127, DType::kInt8), b = make_int(1, DType::kInt8);
  EXPECT_EQ(simp(a + b), "int8(-128)");
  EXPECT_EQ(simp(make_int(-128, DType::kInt8) / make_int(-1, DType::kInt8)), "int8(-128)");
  EXPECT_EQ(simp(make_int(100, DType::kInt8) * make_int(3, DType::kInt8)), "int8(44)");
}

TEST(Simplify, Int16AndInt32ConstantsWrap) {
  EXPECT_EQ(simp(make_int(32767, DType::kInt16) + make_int(1, DType::kInt16)), "int16(-32768)");
  EXPECT_EQ(simp(Expr(2147483647) + 1), "-2147483648");
}

TEST(Simplify, Uint8ConstantsWrap) {
  EXPECT_EQ(simp(make_int(0, DType::kUInt8) - make_int(1, DType::kUInt8)), "uint8(255)");
}

TEST(Simplify, IntegerFloorDivisionConstantsFoldTowardNegativeInfinity) {
  EXPECT_EQ(simp(Expr(-7) / 2), "-4");
  EXPECT_EQ(simp(Expr(-7) % 2), "1");
  EXPECT_EQ(simp(Expr(7) % -2), "-1");
}

TEST(Simplify, Int8ComparisonIsNotDecidedAcrossWrapAround) {
  Var x("x", DType::kInt8);
  Expr hundred = make_int(100, DType::kInt8);
  // x + 100 wraps for x > 27, so x + 100 > x is not always true.
  EXPECT_EQ(simp(x + hundred > x), "((x + int8(100)) > x)");
}

TEST(Simplify, Int8ComparisonDecidedWhenNoWrapIsPossible) {
  Var x("x", DType::kInt8);
  VarRanges r{{x, {make_int(0, DType::kInt8), make_int(10, DType::kInt8)}}};
  EXPECT_EQ(simp(x + make_int(100, DType::kInt8) > x, r), "true");
}

TEST(Simplify, CastOfConstantFolds) {
  EXPECT_EQ(simp(make_cast(DType::kInt8, Expr(200))), "int8(-56)");
  EXPECT_EQ(simp(make_cast(DType::kFloat32, Expr(3))), "3.0f");
  EXPECT_EQ(simp(make_cast(DType::kInt32, make_float(-2.7))), "-2");
}

TEST(Simplify, OutOfRangeFloatToIntCastIsLeftAlone) {
  EXPECT_EQ(simp(make_cast(DType::kInt8, make_float(300.0))), "int8(300.0f)");
}

TEST(Simplify, WideningRoundTripCastDisappears) {
  Var x("x");
  EXPECT_EQ(simp(make_cast(DType::kInt32, make_cast(DType::kInt64, x))), "x");
  EXPECT_EQ(simp(make_cast(DType::kInt32, make_cast(DType::kInt8, x))), "int32(int8(x))");
}

TEST(Simplify, CanProveUsesRanges) {
  Var x("x");
  EXPECT_TRUE(can_prove(x < 10, {{x, Interval::range(0, 10)}}));
  EXPECT_FALSE(can_prove(x < 9, {{x, Interval::range(0, 10)}}));
  EXPECT_FALSE(can_prove(x < 10));
}

TEST(Simplify, SymbolicLoopBoundIsUsedInsideSums) {
  Var io("io"), ii("ii");
  // ii < min(32, 100 - io*32), so io*32 + ii < 100 whatever io is.
  VarRanges r{{io, Interval::range(0, 4)}, {ii, {Expr(0), min(Expr(32), Expr(100) - io * 32) - 1}}};
  EXPECT_TRUE(can_prove(io * 32 + ii < 100, r));
}

TEST(Simplify, IsIdempotentOnCanonicalForms) {
  Var x("x"), y("y");
  Expr once = simplify((x * 32 + y + 40) / 32 + min(x, y) - (x % 8) * 2);
  EXPECT_EQ(to_string(simplify(once)), to_string(once));
}

}  // namespace
}  // namespace tessera
