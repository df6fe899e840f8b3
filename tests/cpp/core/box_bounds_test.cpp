// box_bounds against brute force: thousands of random integer expressions (+ - *, floor / and %
// by constants of either sign and by expressions, min, max, select, casts between widths) over
// three variables in random boxes, some placed at the edges of their type so that wrapping is
// possible. Whenever box_bounds answers, every point of the box must give a value inside its
// range, computed by an evaluator written here (the IR's wrapping semantics, not the code under
// test). Seeds are fixed.
#include "compiler/arith/box_bounds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <random>

#include "compiler/ir/ir_printer.h"
#include "tests/cpp/core/int_reference.h"

namespace tessera {
namespace {

using int_reference::fdiv;
using int_reference::fmod;
using int_reference::wrap;

// e's value at a point; *undefined when it divides by zero there.
int64_t eval(const Expr& e, const std::map<uint64_t, int64_t>& env, bool* undefined) {
  auto ev = [&](const Expr& x) { return eval(x, env, undefined); };
  DType t = e.dtype();
  if (const auto* i = e.as<IntImmNode>()) return wrap(i->value, t);
  if (const auto* v = e.as<VarNode>()) return wrap(env.at(v->id), t);
  if (const auto* c = e.as<CastNode>()) return wrap(ev(c->value), t);
  if (const auto* s = e.as<SelectNode>())
    return ev(s->cond) ? ev(s->true_value) : ev(s->false_value);
  const auto* op = e.as<BinaryNode>();
  if (!op) ADD_FAILURE() << "unexpected node in " << to_string(e);
  if (!op) return 0;
  int64_t a = ev(op->a), b = ev(op->b);
  switch (e.kind()) {
    case ExprKind::kAdd:
      return wrap(a + b, t);
    case ExprKind::kSub:
      return wrap(a - b, t);
    case ExprKind::kMul:
      return wrap(a * b, t);
    case ExprKind::kDiv:
    case ExprKind::kMod:
      if (b == 0) {
        *undefined = true;
        return 0;
      }
      return wrap(e.kind() == ExprKind::kDiv ? fdiv(a, b) : fmod(a, b), t);
    case ExprKind::kMin:
      return std::min(a, b);
    case ExprKind::kMax:
      return std::max(a, b);
    case ExprKind::kLT:
      return a < b;
    case ExprKind::kGE:
      return a >= b;
    default:
      ADD_FAILURE() << "unexpected kind in " << to_string(e);
      return 0;
  }
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % (hi - lo + 1)); }

  // A random expression of type t over vars (all of type kInt32).
  Expr expr(int depth, DType t, const std::vector<Var>& vars) {
    if (depth == 0 || pick(0, 6) == 0) {
      if (pick(0, 2) == 0) return make_int(pick(-12, 12), t);
      return make_cast(t, vars[pick(0, vars.size() - 1)]);
    }
    auto sub = [&] { return expr(depth - 1, t, vars); };
    Expr a = sub();
    switch (pick(0, 13)) {
      case 0:
      case 1:
        return a + sub();
      case 2:
        return a - sub();
      case 3:
        return a * (pick(0, 1) ? make_int(pick(-5, 9), t) : sub());
      case 4:
        return a / make_int(divisor(), t);
      case 5:
        return a % make_int(divisor(), t);
      case 6:
        return a / sub();  // decided only when the divisor's range is one non-zero value
      case 7:
        return a % sub();
      case 8:
        return min(a, sub());
      case 9:
        return max(a, sub());
      case 10:
        return make_select(pick(0, 1) ? a < sub() : a >= sub(), a, sub());
      case 11: {
        // Through another width and back: wraps unless the ranges fit.
        DType u = std::vector<DType>{DType::kInt8, DType::kInt16, DType::kInt32,
                                     DType::kUInt8}[pick(0, 3)];
        return make_cast(t, make_cast(u, a) + make_int(pick(-3, 3), u));
      }
      default:
        return a * make_int(pick(1, 40), t) + make_int(pick(-100, 100), t);
    }
  }

 private:
  int64_t divisor() {
    int64_t c = pick(1, 9);
    return pick(0, 3) == 0 ? -c : c;
  }
  std::mt19937 rng_;
};

// v over [lo, hi], in both the box under test and the test's own list of ranges.
void add_range(const Var& v, int64_t lo, int64_t hi, std::vector<BoxRange>* ranges, Box* box) {
  ranges->push_back({lo, hi});
  box->push(v.node(), lo, hi);
}

// Calls f(env) for every point of the box.
void for_each_point(const std::vector<Var>& vars, const std::vector<BoxRange>& box,
                    const std::function<void(const std::map<uint64_t, int64_t>&)>& f) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const BoxRange& r : box) ranges.emplace_back(r.min, r.max);
  int_reference::for_each_point(vars, ranges, f);
}

TEST(BoxBounds, random_expressions_stay_inside_their_bounds_at_every_point) {
  Gen g(2026);
  std::vector<Var> vars = {Var("x"), Var("y"), Var("z")};
  const DType types[] = {DType::kInt32, DType::kInt32, DType::kInt8, DType::kInt16, DType::kUInt8};
  int decided = 0, total = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    DType t = types[iter % 5];
    // Small boxes, mostly near zero, some at the edges of the expression type.
    std::vector<BoxRange> ranges;
    Box box;
    for (const Var& v : vars) {
      int64_t lo = g.pick(-6, 6);
      if (g.pick(0, 7) == 0) lo = g.pick(0, 1) ? int_max_of(t) - g.pick(0, 6) : int_min_of(t);
      add_range(v, lo, lo + g.pick(0, 4), &ranges, &box);
    }
    Expr e = g.expr(g.pick(1, 4), t, vars);
    // The expression itself, and its linear form (terms merged, coefficients wrapped).
    for (int form = 0; form < 2; ++form) {
      std::optional<BoxRange> r = form ? box_bounds(linear_form(e), box) : box_bounds(e, box);
      ++total;
      if (!r) continue;
      ++decided;
      ASSERT_LE(r->min, r->max) << to_string(e);
      for_each_point(vars, ranges, [&](const std::map<uint64_t, int64_t>& env) {
        bool undefined = false;
        int64_t v = eval(e, env, &undefined);
        if (form && undefined) return;  // a form speaks for the points where e has a value
        ASSERT_FALSE(undefined) << "bounds for an expression that divides by zero: "
                                << to_string(e);
        ASSERT_TRUE(v >= r->min && v <= r->max)
            << (form ? "linear form of " : "") << to_string(e) << " = " << v << " outside ["
            << r->min << ", " << r->max << "] at x=" << env.at(vars[0].id())
            << " y=" << env.at(vars[1].id()) << " z=" << env.at(vars[2].id());
      });
    }
  }
  // Not vacuous: most expressions are decided.
  EXPECT_GT(decided, total / 3) << decided << " of " << total;
}

TEST(BoxBounds, a_range_proved_within_its_buffer_is_within_at_every_point) {
  Gen g(99);
  std::vector<Var> vars = {Var("x"), Var("y"), Var("z")};
  int proved = 0, total = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<BoxRange> ranges;
    Box box;
    for (const Var& v : vars) {
      int64_t lo = g.pick(-3, 8);
      add_range(v, lo, lo + g.pick(0, 4), &ranges, &box);
    }
    // A range as npu_touches builds one (end = first + a + b), or an end of its own; sometimes
    // with terms that cancel only in the linear form.
    Expr first = g.expr(g.pick(1, 3), kIndexType, vars);
    Expr end;
    switch (g.pick(0, 3)) {
      case 0:
        end = first + make_int(g.pick(-2, 3));
        break;
      case 1:
        end = (first + g.expr(2, kIndexType, vars)) + make_int(g.pick(0, 3));
        break;
      case 2: {
        Expr a = g.expr(2, kIndexType, vars);
        end = first + (a + make_int(g.pick(0, 4))) + (make_int(g.pick(0, 4)) - a);
        break;
      }
      default:
        end = g.expr(g.pick(1, 3), kIndexType, vars);
    }
    int64_t limit = g.pick(0, 120);
    ++total;
    if (!box_range_within(first, end, limit, box)) continue;
    ++proved;
    for_each_point(vars, ranges, [&](const std::map<uint64_t, int64_t>& env) {
      bool undefined = false;
      int64_t f = eval(first, env, &undefined), e = eval(end, env, &undefined);
      ASSERT_FALSE(undefined) << to_string(first) << " .. " << to_string(end);
      ASSERT_TRUE(0 <= f && f <= e && e <= limit)
          << "[" << to_string(first) << ", " << to_string(end) << ") = [" << f << ", " << e
          << ") proved within [0, " << limit << ")";
    });
  }
  EXPECT_GT(proved, total / 10) << proved << " of " << total;
}

TEST(BoxBounds, terms_that_cancel_are_bounded_through_the_linear_form) {
  Var x("x"), y("y");
  Box box;
  box.push(x.node(), 0, 9);
  box.push(y.node(), 0, 3);
  Expr m = min(x * make_int(3), make_int(20));
  Expr first = y;
  Expr end = (first + (m + make_int(1))) + (make_int(2) - m);  // y + 3
  EXPECT_FALSE(box_bounds(end, box) && box_bounds(end, box)->max <= 6);
  EXPECT_TRUE(box_range_within(first, end, 6, box));
  EXPECT_FALSE(box_range_within(first, end, 5, box));  // y = 3 ends at 6
}

TEST(BoxBounds, a_sum_of_distinct_variables_is_bounded_exactly) {
  Gen g(7);
  for (int iter = 0; iter < 500; ++iter) {
    Var x("x"), y("y"), z("z");
    std::vector<Var> vars = {x, y, z};
    std::vector<BoxRange> ranges;
    Box box;
    for (const Var& v : vars) {
      int64_t lo = g.pick(-20, 20);
      add_range(v, lo, lo + g.pick(0, 6), &ranges, &box);
    }
    Expr e =
        x * make_int(g.pick(-9, 9)) + y * make_int(g.pick(-9, 9)) - z + make_int(g.pick(-50, 50));
    std::optional<BoxRange> r = box_bounds(e, box);
    ASSERT_TRUE(r) << to_string(e);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for_each_point(vars, ranges, [&](const std::map<uint64_t, int64_t>& env) {
      bool undefined = false;
      int64_t v = eval(e, env, &undefined);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    });
    EXPECT_EQ(r->min, lo) << to_string(e);
    EXPECT_EQ(r->max, hi) << to_string(e);
  }
}

TEST(BoxBounds, floor_division_and_modulo_by_negative_constants) {
  Var x("x");
  Box box;
  box.push(x.node(), 5, 7);
  std::optional<BoxRange> q = box_bounds(x / make_int(-4), box);  // -2, -2, -2
  ASSERT_TRUE(q);
  EXPECT_EQ(q->min, -2);
  EXPECT_EQ(q->max, -2);
  std::optional<BoxRange> m = box_bounds(x % make_int(-4), box);  // -3, -2, -1
  ASSERT_TRUE(m);
  EXPECT_EQ(m->min, -3);
  EXPECT_EQ(m->max, -1);
  box.push(x.node(), 3, 9);  // shadows: the quotient changes, so any remainder of the divisor
  m = box_bounds(x % make_int(-4), box);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->min, -3);
  EXPECT_EQ(m->max, 0);
}

TEST(BoxBounds, a_range_that_may_wrap_is_not_bounded) {
  Var x("x", DType::kInt8);
  Box box;
  box.push(x.node(), 0, 50);
  EXPECT_TRUE(box_bounds(x + make_int(77, DType::kInt8), box));
  EXPECT_FALSE(box_bounds(x + make_int(78, DType::kInt8), box));  // 50 + 78 wraps in int8
  Var i("i");
  Box wide;
  wide.push(i.node(), 0, 1 << 20);
  EXPECT_FALSE(box_bounds(i * make_int(4096), wide));  // beyond int32
  EXPECT_FALSE(box_bounds(make_cast(DType::kInt16, i), wide));
}

TEST(BoxBounds, what_it_does_not_model_is_not_bounded) {
  Var x("x"), y("y"), u("u");
  Box box;
  box.push(x.node(), 0, 3);
  box.push(y.node(), 1, 2);
  box.push_unbounded(u.node());
  EXPECT_TRUE(box_bounds(x + y, box));
  EXPECT_FALSE(box_bounds(x + u, box));            // a variable without a range
  EXPECT_FALSE(box_bounds(x + Var("free"), box));  // a variable outside the box
  EXPECT_FALSE(box_bounds(x / y, box));            // a divisor that is not one value
  EXPECT_FALSE(box_bounds(x % (y - y), box));      // nor this one
  EXPECT_FALSE(box_bounds(x / make_int(0), box));  // division by zero
  EXPECT_FALSE(box_bounds(x < y, box));            // a bool
  Buffer b = make_buffer("b", DType::kInt32, {4});
  EXPECT_FALSE(box_bounds(x + make_buffer_load(b, {x}), box));  // a load
  EXPECT_FALSE(box_bounds(Expr(), box));
}

}  // namespace
}  // namespace tessera
