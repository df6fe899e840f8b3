// tighten_loop_bounds: a guard on a loop's own variable becomes the loop's range. Each test
// builds a guarded loop, checks the shape of the result (no guard left inside, the conjuncts that
// do not use the variable outside) and the range the loop runs over for concrete values of the
// enclosing variables, against the range worked out by hand.
#include "compiler/passes/tighten_loop_bounds.h"

#include <gtest/gtest.h>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/substitute.h"

namespace tessera {
namespace {

Buffer buf() { return make_buffer("A", DType::kInt32, {1024}); }

Stmt store(const Expr& i) { return make_store(buf(), {i}, make_int(1)); }

// The [min, min + extent) of loop `f` with `outer` bound to `value`.
std::pair<int64_t, int64_t> range_at(const ForNode* f, const Var& outer, int64_t value) {
  VarMap m{{outer, make_int(value)}};
  Expr min = simplify(substitute(f->min, m)), extent = simplify(substitute(f->extent, m));
  const int64_t* mn = as_const_int(min);
  const int64_t* ext = as_const_int(extent);
  EXPECT_TRUE(mn && ext) << to_string(f->min) << ", " << to_string(f->extent);
  return {mn ? *mn : -1, mn && ext ? *mn + *ext : -1};
}

TEST(TightenLoopBounds, TailGuardOfASplitBecomesTheInnerLoopsExtent) {
  // for mo in [0, 5): for mi in [0, 48): if (mo*48 + mi < 200) A[mo*48 + mi] = 1
  Var mo("mo"), mi("mi");
  Stmt inner =
      make_for(mi, 0, 48, ForKind::kSerial, make_if(mo * 48 + mi < 200, store(mo * 48 + mi)));
  Stmt s = tighten_loop_bounds(make_for(mo, 0, 5, ForKind::kSerial, inner));
  const auto* outer = s.as<ForNode>();
  ASSERT_TRUE(outer);
  const auto* f = outer->body.as<ForNode>();
  ASSERT_TRUE(f) << to_string(s);
  EXPECT_TRUE(f->body.as<BufferStoreNode>()) << "the guard is gone: " << to_string(s);
  EXPECT_EQ(range_at(f, mo, 0), (std::pair<int64_t, int64_t>{0, 48}));
  EXPECT_EQ(range_at(f, mo, 3), (std::pair<int64_t, int64_t>{0, 48}));
  EXPECT_EQ(range_at(f, mo, 4), (std::pair<int64_t, int64_t>{0, 8}));  // 200 - 192
}

TEST(TightenLoopBounds, LowerAndUpperBoundsWithACoefficientRoundInwards) {
  // for v in [0, 20): if (2*v >= p && 3*v <= 40 - p) ..: v >= ceil(p / 2), v <= floor((40-p)/3)
  Var p("p"), v("v");
  Stmt s = tighten_loop_bounds(make_for(
      v, 0, 20, ForKind::kSerial,
      make_if(make_binary(ExprKind::kAnd, v * 2 >= p, v * 3 <= make_int(40) - p), store(v))));
  const auto* f = s.as<ForNode>();
  ASSERT_TRUE(f && f->body.as<BufferStoreNode>()) << to_string(s);
  EXPECT_EQ(range_at(f, p, 5), (std::pair<int64_t, int64_t>{3, 12}));   // v in [3, 11]
  EXPECT_EQ(range_at(f, p, 0), (std::pair<int64_t, int64_t>{0, 14}));   // v in [0, 13]
  EXPECT_EQ(range_at(f, p, -9), (std::pair<int64_t, int64_t>{0, 17}));  // 3v <= 49: v <= 16
}

TEST(TightenLoopBounds, EmptyRangeGivesExtentZero) {
  Var p("p"), v("v");
  Stmt s = tighten_loop_bounds(make_for(v, 0, 8, ForKind::kSerial, make_if(v < p, store(v))));
  const auto* f = s.as<ForNode>();
  ASSERT_TRUE(f);
  EXPECT_EQ(range_at(f, p, -3), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(range_at(f, p, 100), (std::pair<int64_t, int64_t>{0, 8}));
}

TEST(TightenLoopBounds, ConditionsWithoutTheVariableMoveOutsideTheLoop) {
  Var b("b"), v("v"), n("n");
  Stmt s = tighten_loop_bounds(make_for(
      v, 0, 16, ForKind::kSerial, make_if(make_binary(ExprKind::kAnd, b > 3, v < n), store(v))));
  const auto* g = s.as<IfThenElseNode>();
  ASSERT_TRUE(g) << to_string(s);
  EXPECT_EQ(to_string(g->cond), to_string(b > 3));
  const auto* f = g->then_case.as<ForNode>();
  ASSERT_TRUE(f && f->body.as<BufferStoreNode>()) << to_string(s);
  EXPECT_EQ(range_at(f, n, 5), (std::pair<int64_t, int64_t>{0, 5}));
}

TEST(TightenLoopBounds, ConditionsThatAreNotPlainBoundsStayInside) {
  // v % 4 < n and v * v < 10 are not affine in v or v / c: they stay as the guard.
  Var v("v"), n("n");
  Stmt guarded = make_if(make_binary(ExprKind::kAnd, v % 4 < n, v * v < 10), store(v));
  Stmt s = tighten_loop_bounds(make_for(v, 0, 16, ForKind::kSerial, guarded));
  EXPECT_EQ(to_string(s), to_string(make_for(v, 0, 16, ForKind::kSerial, guarded)));
}

TEST(TightenLoopBounds, AGuardOnTheRowsOfAFusedLoopBoundsTheFusedLoop) {
  // A fused loop over 5 rows of 14 pixels whose rows tail at 14: oh.outer*5 + f / 14 < 14, and
  // 2*(f / 14) >= p from below.
  Var mo("mo"), f("f");
  Stmt s = tighten_loop_bounds(
      make_for(f, 0, 70, ForKind::kSerial, make_if(mo * 5 + f / 14 < 14, store(f))));
  const auto* l = s.as<ForNode>();
  ASSERT_TRUE(l && l->body.as<BufferStoreNode>()) << to_string(s);
  EXPECT_EQ(range_at(l, mo, 0), (std::pair<int64_t, int64_t>{0, 70}));
  EXPECT_EQ(range_at(l, mo, 2), (std::pair<int64_t, int64_t>{0, 56}));  // rows 10..13: 4 rows
  Var p("p");
  Stmt low = tighten_loop_bounds(
      make_for(f, 0, 70, ForKind::kSerial, make_if((f / 14) * 2 >= p, store(f))));
  ASSERT_TRUE(low.as<ForNode>()) << to_string(low);
  EXPECT_EQ(range_at(low.as<ForNode>(), p, 3), (std::pair<int64_t, int64_t>{28, 70}));  // rows 2..
}

TEST(TightenLoopBounds, IfWithElseAndLoopsWithMoreThanTheGuardAreLeftAlone) {
  Var v("v");
  Stmt with_else = make_for(v, 0, 8, ForKind::kSerial, make_if(v < 4, store(v), store(v + 8)));
  EXPECT_EQ(to_string(tighten_loop_bounds(with_else)), to_string(with_else));
  Stmt two =
      make_for(v, 0, 8, ForKind::kSerial, make_seq({make_if(v < 4, store(v)), store(v + 8)}));
  EXPECT_EQ(to_string(tighten_loop_bounds(two)), to_string(two));
}

TEST(TightenLoopBounds, NestedGuardsTightenEveryLevel) {
  // for i: if (i < a) for j: if (i*4 + j < b) ..  (the outer guard moved in front by the pass)
  Var i("i"), j("j"), a("a"), b("b");
  Stmt s = tighten_loop_bounds(make_for(
      i, 0, 8, ForKind::kSerial,
      make_if(i < a,
              make_for(j, 0, 4, ForKind::kSerial, make_if(i * 4 + j < b, store(i * 4 + j))))));
  const auto* fi = s.as<ForNode>();
  ASSERT_TRUE(fi) << to_string(s);
  const auto* fj = fi->body.as<ForNode>();
  ASSERT_TRUE(fj && fj->body.as<BufferStoreNode>()) << to_string(s);
  EXPECT_EQ(range_at(fi, a, 3), (std::pair<int64_t, int64_t>{0, 3}));
  VarMap at{{i, make_int(2)}};
  Stmt inner = substitute(fi->body, at);
  EXPECT_EQ(range_at(inner.as<ForNode>(), b, 10), (std::pair<int64_t, int64_t>{0, 2}));
}

}  // namespace
}  // namespace tessera
