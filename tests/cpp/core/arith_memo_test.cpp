// ArithMemo (compiler/arith/arith_memo.h): while one is alive, const_bounds of a linear form under
// no ranges is remembered by structure; every answer must be the one computed without a memo.
#include "compiler/arith/arith_memo.h"

#include <gtest/gtest.h>

#include <vector>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

// A DMA region clamp as inject_npu_ops builds it: nested min/max over a tile loop variable.
Expr clamp_rows(const Var& o, int64_t tile, int64_t extent) {
  Expr lo = max(make_int(1) - o * make_int(tile), make_int(0));
  Expr hi = max(min(make_int(extent) - o * make_int(tile), make_int(tile + 2)), make_int(0));
  return max(min(min(hi, make_int(extent - 1) - o * make_int(tile)), hi), min(lo, hi)) -
         min(lo, hi);
}

bool same(const ConstBounds& a, const ConstBounds& b) { return a.min == b.min && a.max == b.max; }

TEST(ArithMemo, remembered_bounds_are_the_bounds_computed_without_a_memo) {
  Var o("o.outer");
  std::vector<LinearForm> forms;
  for (int64_t tile : {5, 11, 24, 29}) forms.push_back(linear_form(clamp_rows(o, tile, 58)));
  std::vector<ConstBounds> plain;
  for (const LinearForm& f : forms) plain.push_back(const_bounds(f, {}));
  ArithMemo memo;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < forms.size(); ++i) {
      // A new form of the same structure (new nodes) each time: found by structure.
      LinearForm again = linear_form(clamp_rows(o, std::vector<int64_t>{5, 11, 24, 29}[i], 58));
      EXPECT_TRUE(same(const_bounds(again, {}), plain[i])) << i;
    }
  }
  EXPECT_EQ(ArithMemo::current()->bounds.size(), forms.size());
}

TEST(ArithMemo, forms_over_two_variables_of_one_name_are_not_confused) {
  Var x("x"), y("x");  // same name, two variables
  ArithMemo memo;
  // min(x, 3) - x <= 0 (x - x and 3 - x); min(y, 3) - x is unbounded.
  ConstBounds a = const_bounds(linear_form(min(Expr(x), make_int(3)) - x), {});
  ConstBounds b = const_bounds(linear_form(min(Expr(y), make_int(3)) - x), {});
  ASSERT_TRUE(a.max.has_value());
  EXPECT_EQ(*a.max, 0);
  EXPECT_FALSE(b.max.has_value());
}

TEST(ArithMemo, bounds_under_ranges_are_not_remembered) {
  Var o("o");
  VarRanges r{{o, Interval{make_int(0), make_int(3)}}};
  ArithMemo memo;
  ConstBounds b = const_bounds(linear_form(o * make_int(4) + make_int(1)), r);
  EXPECT_EQ(*b.min, 1);
  EXPECT_EQ(*b.max, 13);
  EXPECT_TRUE(ArithMemo::current()->bounds.empty());
}

TEST(ArithMemo, scopes_nest_and_the_outermost_one_owns_the_tables) {
  EXPECT_EQ(ArithMemo::current(), nullptr);
  {
    ArithMemo outer;
    ArithMemo::Tables* t = ArithMemo::current();
    ASSERT_NE(t, nullptr);
    {
      ArithMemo inner;
      EXPECT_EQ(ArithMemo::current(), t);
    }
    EXPECT_EQ(ArithMemo::current(), t);
  }
  EXPECT_EQ(ArithMemo::current(), nullptr);
}

TEST(ArithMemo, simplify_gives_the_same_expression_with_and_without_a_memo) {
  Var o("o.outer");
  for (int64_t tile : {3, 7, 13}) {
    Expr e = clamp_rows(o, tile, 40) > make_int(0);
    std::string plain = to_string(simplify(e));
    ArithMemo memo;
    EXPECT_EQ(to_string(simplify(e)), plain);
    EXPECT_EQ(to_string(simplify(clamp_rows(o, tile, 40) > make_int(0))), plain);
  }
}

}  // namespace
}  // namespace tessera
