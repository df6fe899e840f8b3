// Structural equality, hashing and ordering (compiler/ir/equal.h), and the constant-folding
// helpers they and the simplifier share (compiler/arith/const_fold.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/arith/const_fold.h"
#include "compiler/ir/equal.h"

namespace tessera {
namespace {

TEST(StructuralEqual, SameShapeOverSameVariablesIsEqual) {
  Var x("x"), y("y");
  EXPECT_TRUE(structural_equal(x * 4 + y, x * 4 + y));
  EXPECT_EQ(structural_hash(x * 4 + y), structural_hash(x * 4 + y));
}

TEST(StructuralEqual, SameNameDifferentVariableIsNotEqual) {
  Var x("x"), other_x("x");
  EXPECT_FALSE(structural_equal(x + 1, other_x + 1));
}

TEST(StructuralEqual, ConstantsCompareByTypeAndValue) {
  EXPECT_FALSE(structural_equal(make_int(1, DType::kInt8), make_int(1, DType::kInt16)));
  EXPECT_FALSE(structural_equal(Expr(1), Expr(2)));
  EXPECT_TRUE(structural_equal(make_float(0.5), make_float(0.5)));
  EXPECT_FALSE(structural_equal(make_float(0.0), make_float(-0.0)));
}

TEST(StructuralEqual, OperandOrderMatters) {
  Var x("x"), y("y");
  EXPECT_FALSE(structural_equal(x - y, y - x));
}

TEST(StructuralEqual, LoadsCompareBuffersByIdentity) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8}), a2 = make_buffer("A", DType::kFloat32, {8});
  EXPECT_TRUE(structural_equal(make_buffer_load(a, {i}), make_buffer_load(a, {i})));
  EXPECT_FALSE(structural_equal(make_buffer_load(a, {i}), make_buffer_load(a2, {i})));
}

TEST(StructuralHash, DependsOnNamesNotOnVariableIdentity) {
  // Hashes must be reproducible from run to run, so they cannot depend on addresses or on
  // creation counters; equal-named variables hash alike.
  Var x("x"), other_x("x"), y("y");
  EXPECT_EQ(structural_hash(x * 2), structural_hash(other_x * 2));
  EXPECT_NE(structural_hash(x * 2), structural_hash(y * 2));
  EXPECT_NE(structural_hash(x * 2), structural_hash(x * 3));
}

TEST(StructuralCompare, VariablesOrderByCreation) {
  Var b("b"), a("a");
  EXPECT_LT(structural_compare(b, a), 0);
  EXPECT_GT(structural_compare(a, b), 0);
  EXPECT_EQ(structural_compare(a + 1, a + 1), 0);
}

TEST(StructuralCompare, VariablesComeBeforeOtherKinds) {
  Var x("x"), y("y");
  EXPECT_LT(structural_compare(y, x / 2), 0);
  EXPECT_LT(structural_compare(x / 2, x % 2), 0);
}

TEST(ConstFold, WrapIntFollowsTwosComplement) {
  EXPECT_EQ(wrap_int(128, DType::kInt8), -128);
  EXPECT_EQ(wrap_int(-1, DType::kUInt8), 255);
  EXPECT_EQ(wrap_int(65536 + 5, DType::kInt16), 5);
  EXPECT_EQ(wrap_int(int64_t{1} << 31, DType::kInt32), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(wrap_int(7, DType::kBool), 1);
}

TEST(ConstFold, FloorDivisionAndModuloSignConventions) {
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_mod(7, -2), -1);
  EXPECT_EQ(floor_div(-8, 2), -4);
  EXPECT_EQ(floor_mod(-8, 2), 0);
}

TEST(ConstFold, FloorDivisionOfMostNegativeByMinusOneWraps) {
  int64_t lo = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(floor_div(lo, -1), lo);
  EXPECT_EQ(floor_mod(lo, -1), 0);
}

TEST(ConstFold, RefusesWhatTheBackendMightComputeDifferently) {
  EXPECT_FALSE(const_fold(ExprKind::kDiv, Expr(1), Expr(0)).defined());
  EXPECT_FALSE(const_fold(ExprKind::kMod, make_float(1.0), make_float(3.0)).defined());
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(const_fold(ExprKind::kMin, make_float(nan), make_float(1.0)).defined());
  EXPECT_FALSE(const_fold(ExprKind::kMax, make_float(0.0), make_float(-0.0)).defined());
  EXPECT_FALSE(const_fold(ExprKind::kMul, make_float(1e30), make_float(1e30)).defined());
  EXPECT_FALSE(const_fold_cast(DType::kInt32, make_float(nan)).defined());
}

TEST(ConstFold, DoesNotFoldNonConstants) {
  Var x("x");
  EXPECT_FALSE(const_fold(ExprKind::kAdd, x, Expr(1)).defined());
  EXPECT_FALSE(const_fold_not(make_not(x < 1)).defined());
}

}  // namespace
}  // namespace tessera
