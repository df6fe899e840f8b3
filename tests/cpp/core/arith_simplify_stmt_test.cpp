// Statement rules of the simplifier: loop ranges decide guards, trivial loops disappear.
#include <gtest/gtest.h>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

struct SplitNest {
  Var io{"io"}, ii{"ii"};
  Buffer a = make_buffer("A", DType::kFloat32, {128});
  // for (io, 0, 4) { for (ii, 0, 32) { if (io*32 + ii < bound) A[io*32 + ii] = 1 } }
  Stmt with_guard(int bound) {
    Expr i = io * 32 + ii;
    Stmt store = make_store(a, {i}, make_float(1.0));
    return make_for(io, 0, 4, ForKind::kSerial,
                    make_for(ii, 0, 32, ForKind::kSerial, make_if(i < bound, store)));
  }
};

TEST(SimplifyStmt, GuardThatLoopRangesProveIsDropped) {
  SplitNest n;
  EXPECT_EQ(to_string(simplify(n.with_guard(128))).find("if"), std::string::npos);
}

TEST(SimplifyStmt, GuardThatLoopRangesCannotProveStays) {
  SplitNest n;
  EXPECT_EQ(to_string(simplify(n.with_guard(100))), to_string(n.with_guard(100)));
}

TEST(SimplifyStmt, GuardThatIsNeverTrueRemovesTheBody) {
  SplitNest n;
  Expr i = n.io * 32 + n.ii;
  Stmt s = make_for(n.io, 0, 4, ForKind::kSerial,
                    make_for(n.ii, 0, 32, ForKind::kSerial,
                             make_if(i >= 200, make_store(n.a, {i}, make_float(1.0)))));
  EXPECT_FALSE(simplify(s).defined());
}

TEST(SimplifyStmt, FalseGuardWithElseKeepsElse) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt s = make_for(
      i, 0, 8, ForKind::kSerial,
      make_if(i > 20, make_store(a, {i}, make_float(1.0)), make_store(a, {i}, make_float(2.0))));
  EXPECT_EQ(to_string(simplify(s)),
            to_string(make_for(i, 0, 8, ForKind::kSerial, make_store(a, {i}, make_float(2.0)))));
}

TEST(SimplifyStmt, LoopOfExtentOneIsReplacedByItsBodyAtMin) {
  Var i("i"), j("j");
  Buffer a = make_buffer("A", DType::kFloat32, {64});
  Stmt s =
      make_for(i, 3, 1, ForKind::kSerial,
               make_for(j, 0, 8, ForKind::kSerial, make_store(a, {i * 8 + j}, make_float(1.0))));
  Stmt expected = make_for(j, 0, 8, ForKind::kSerial, make_store(a, {j + 24}, make_float(1.0)));
  EXPECT_EQ(to_string(simplify(s)), to_string(expected));
}

TEST(SimplifyStmt, LoopOfExtentZeroVanishes) {
  Var i("i"), j("j");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt keep = make_for(j, 0, 8, ForKind::kSerial, make_store(a, {j}, make_float(2.0)));
  Stmt s =
      make_seq({make_for(i, 0, 0, ForKind::kSerial, make_store(a, {i}, make_float(1.0))), keep});
  EXPECT_EQ(to_string(simplify(s)), to_string(keep));
}

TEST(SimplifyStmt, LoopWhoseExtentRangesProveNonPositiveVanishes) {
  Var io("io"), i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  // extent 4 - io*8 <= 0 for io in [1, 3]
  Stmt inner =
      make_for(i, 0, Expr(4) - io * 8, ForKind::kSerial, make_store(a, {i}, make_float(1.0)));
  EXPECT_FALSE(simplify(make_for(io, 1, 3, ForKind::kSerial, inner)).defined());
}

TEST(SimplifyStmt, IndicesAndValuesAreSimplified) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kInt32, {8});
  Stmt s = make_for(i, 0, 8, ForKind::kSerial, make_store(a, {(i * 8 + 3) / 8 * 1 + 0}, i * 0 + 5));
  EXPECT_EQ(to_string(simplify(s)),
            to_string(make_for(i, 0, 8, ForKind::kSerial, make_store(a, {i}, Expr(5)))));
}

TEST(SimplifyStmt, SymbolicExtentFromNonDividingSplitProvesTheGuard) {
  Var io("io"), ii("ii");
  Buffer a = make_buffer("A", DType::kFloat32, {100});
  Expr i = io * 32 + ii;
  Stmt s = make_for(io, 0, 4, ForKind::kSerial,
                    make_for(ii, 0, min(Expr(32), Expr(100) - io * 32), ForKind::kSerial,
                             make_if(i < 100, make_store(a, {i}, make_float(1.0)))));
  EXPECT_EQ(to_string(simplify(s)).find("if"), std::string::npos);
}

TEST(SimplifyStmt, LetOfConstantIsSubstituted) {
  Var x("x"), i("i");
  Buffer a = make_buffer("A", DType::kInt32, {8});
  Stmt s = make_let(x, Expr(2) + 1, make_store(a, {x}, x * 2));
  EXPECT_EQ(to_string(simplify(s)), to_string(make_store(a, {Expr(3)}, Expr(6))));
}

TEST(SimplifyStmt, LetValueBoundsDecideConditionsInItsBody) {
  Var x("x"), i("i");
  Buffer a = make_buffer("A", DType::kInt32, {8});
  Stmt body = make_if(x < 8, make_store(a, {x}, Expr(1)));
  Stmt s = make_for(i, 0, 16, ForKind::kSerial, make_let(x, i / 2, body));
  EXPECT_EQ(to_string(simplify(s)).find("if"), std::string::npos);
}

TEST(SimplifyStmt, EmptyAllocationAndAttributeVanish) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Buffer t = make_buffer("T", DType::kFloat32, {8}, "local");
  Stmt s = make_allocate(
      t, make_attr("produce", "T",
                   make_for(i, 0, 0, ForKind::kSerial, make_store(t, {i}, make_float(0)))));
  EXPECT_FALSE(simplify(s).defined());
}

TEST(SimplifyStmt, GivenRangesAreUsed) {
  Var n("n");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt s = make_if(n < 8, make_store(a, {n}, make_float(1.0)));
  EXPECT_EQ(to_string(simplify(s, {{n, Interval::range(0, 8)}})),
            to_string(make_store(a, {n}, make_float(1.0))));
}

TEST(SimplifyStmt, LoopVariableRangeDoesNotLeakOutOfTheLoop) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  // The second statement's `i < 8` is outside the loop: i is unknown there.
  Stmt loop = make_for(i, 0, 8, ForKind::kSerial, make_store(a, {i}, make_float(1.0)));
  Stmt after = make_if(i < 8, make_store(a, {Expr(0)}, make_float(2.0)));
  EXPECT_EQ(to_string(simplify(make_seq({loop, after}))), to_string(make_seq({loop, after})));
}

TEST(SimplifyStmt, RepeatedGuardInsideTheSameGuardIsDropped) {
  Var i("i"), n("n");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt store = make_store(a, {i}, make_float(1.0));
  Stmt s = make_for(i, 0, 8, ForKind::kSerial, make_if(i < n, make_if(i < n, store)));
  EXPECT_EQ(to_string(simplify(s)),
            to_string(make_for(i, 0, 8, ForKind::kSerial, make_if(i < n, store))));
}

TEST(SimplifyStmt, ElseBranchKnowsTheConditionIsFalse) {
  Var i("i"), n("n");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt one = make_store(a, {i}, make_float(1.0)), two = make_store(a, {i}, make_float(2.0));
  Stmt s = make_if(i < n, one, make_if(i >= n, two));
  EXPECT_EQ(to_string(simplify(s)), to_string(make_if(i < n, one, two)));
}

TEST(SimplifyStmt, ConditionOnVariableNarrowsItsRangeInTheBranch) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt store = make_store(a, {i}, make_float(1.0));
  // Inside `if (i < 5)`, i is in [0, 4], so i < 7 holds.
  Stmt s = make_for(i, 0, 100, ForKind::kSerial, make_if(i < 5, make_if(i < 7, store)));
  EXPECT_EQ(to_string(simplify(s)),
            to_string(make_for(i, 0, 100, ForKind::kSerial, make_if(i < 5, store))));
}

TEST(SimplifyStmt, ConjunctionGivesBothFacts) {
  Var i("i"), j("j");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt store = make_store(a, {i}, make_float(1.0));
  Stmt s = make_if((i < 5) && (j > 2), make_if(j > 2, store));
  EXPECT_EQ(to_string(simplify(s)), to_string(make_if((i < 5) && (j > 2), store)));
}

TEST(SimplifyStmt, NarrowedRangeEndsWithTheBranch) {
  Var i("i");
  Buffer a = make_buffer("A", DType::kFloat32, {8});
  Stmt store = make_store(a, {i}, make_float(1.0));
  Stmt s = make_for(i, 0, 100, ForKind::kSerial,
                    make_seq({make_if(i < 5, store), make_if(i < 7, store)}));
  EXPECT_EQ(to_string(simplify(s)), to_string(s));
}

}  // namespace
}  // namespace tessera
