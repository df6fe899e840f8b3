// Randomised checks of the arithmetic layer against a small independent evaluator: thousands of
// random integer expressions over three variables with small ranges; at every point of the
// ranges the simplified expression must have the same value as the original, and the bounds
// (constant and symbolic) must contain the value. Seeds are fixed.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "compiler/arith/const_fold.h"
#include "compiler/arith/eval_int.h"
#include "compiler/arith/int_program.h"
#include "compiler/arith/interval.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/equal.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/substitute.h"
#include "tests/cpp/core/int_reference.h"

namespace tessera {
namespace {

using int_reference::fdiv;
using int_reference::fmod;
using int_reference::for_each_point;

// Value of e with variables bound by `env`. Every result is wrapped to e's type, as the C backend
// would, except int32: sets *too_big when an int32 intermediate leaves [-2^20, 2^20] (the
// generator then throws the expression away: index arithmetic is assumed not to overflow).
int64_t wrap(int64_t v, DType t) {
  return t == DType::kInt32 ? v : int_reference::wrap(v, t);
}
int64_t eval(const Expr& e, const std::map<uint64_t, int64_t>& env, bool* too_big) {
  auto ev = [&](const Expr& x) { return eval(x, env, too_big); };
  int64_t r = 0;
  if (const auto* i = e.as<IntImmNode>()) return wrap(i->value, e.dtype());
  if (const auto* v = e.as<VarNode>()) return env.at(v->id);
  if (const auto* s = e.as<SelectNode>())
    return ev(s->cond) ? ev(s->true_value) : ev(s->false_value);
  if (const auto* n = e.as<NotNode>()) return !ev(n->a);
  const auto* op = e.as<BinaryNode>();
  if (!op) ADD_FAILURE() << "unexpected node in " << to_string(e);
  if (!op) return 0;
  int64_t a = ev(op->a), b = ev(op->b);
  switch (e.kind()) {
    case ExprKind::kAdd:
      r = a + b;
      break;
    case ExprKind::kSub:
      r = a - b;
      break;
    case ExprKind::kMul:
      r = a * b;
      break;
    case ExprKind::kDiv:
      r = fdiv(a, b);
      break;
    case ExprKind::kMod:
      r = fmod(a, b);
      break;
    case ExprKind::kMin:
      r = std::min(a, b);
      break;
    case ExprKind::kMax:
      r = std::max(a, b);
      break;
    case ExprKind::kEQ:
      return a == b;
    case ExprKind::kNE:
      return a != b;
    case ExprKind::kLT:
      return a < b;
    case ExprKind::kLE:
      return a <= b;
    case ExprKind::kGT:
      return a > b;
    case ExprKind::kGE:
      return a >= b;
    case ExprKind::kAnd:
      return a && b;
    case ExprKind::kOr:
      return a || b;
    default:
      ADD_FAILURE() << "unexpected kind";
      return 0;
  }
  if (e.dtype() == DType::kInt32 && (r > (1 << 20) || r < -(1 << 20))) *too_big = true;
  return wrap(r, e.dtype());
}

class Gen {
 public:
  Gen(uint32_t seed, std::vector<Var> vars, DType t) : rng_(seed), vars_(std::move(vars)), t_(t) {}
  int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % (hi - lo + 1)); }
  Expr constant(int64_t lo, int64_t hi) { return make_int(pick(lo, hi), t_); }
  Expr nonzero() {
    int64_t c = pick(1, 9);
    return make_int(pick(0, 4) == 0 ? -c : c, t_);
  }

  Expr expr(int depth) {
    if (depth == 0 || pick(0, 5) == 0) {
      return pick(0, 2) == 0 ? constant(-10, 10) : Expr(vars_[pick(0, vars_.size() - 1)]);
    }
    Expr a = expr(depth - 1);
    switch (pick(0, 10)) {
      case 0:
      case 1:
        return a + expr(depth - 1);
      case 2:
        return a - expr(depth - 1);
      case 3:
        return a * (pick(0, 1) ? constant(-4, 8) : expr(depth - 1));
      case 4:
      case 5:
        return a / nonzero();
      case 6:
      case 7:
        return a % nonzero();
      case 8:
        return min(a, expr(depth - 1));
      case 9:
        return max(a, expr(depth - 1));
      default:
        return make_select(cond(depth - 1), a, expr(depth - 1));
    }
  }

  Expr cond(int depth) {
    Expr a = expr(depth), b = expr(depth);
    ExprKind k = static_cast<ExprKind>(static_cast<int>(ExprKind::kEQ) + pick(0, 5));
    Expr c = make_binary(k, a, b);
    switch (pick(0, 5)) {
      case 0:
        return make_not(c);
      case 1:
        return make_binary(ExprKind::kAnd, c, cond(depth > 0 ? depth - 1 : 0));
      case 2:
        return make_binary(ExprKind::kOr, c, cond(depth > 0 ? depth - 1 : 0));
      default:
        return c;
    }
  }

 private:
  std::mt19937 rng_;
  std::vector<Var> vars_;
  DType t_;
};

struct Case {
  std::vector<Var> vars{Var("x"), Var("y"), Var("z")};
  std::vector<std::pair<int64_t, int64_t>> box;
  VarRanges all, xy_only;  // z unranged in the second
};

Case random_case(Gen& g, DType t) {
  Case c;
  if (t != kIndexType) c.vars = {Var("x", t), Var("y", t), Var("z", t)};
  for (size_t i = 0; i < c.vars.size(); ++i) {
    int64_t lo = t == DType::kUInt8 ? g.pick(0, 10) : g.pick(-5, 5), hi = lo + g.pick(0, 5);
    c.box.push_back({lo, hi});
    Interval r{make_int(lo, t), make_int(hi, t)};
    c.all[c.vars[i]] = r;
    if (i < 2) c.xy_only[c.vars[i]] = r;
  }
  return c;
}

bool contains(const Expr& bound, bool is_lower, int64_t value,
              const std::map<uint64_t, int64_t>& env) {
  if (!bound.defined()) return true;
  bool too_big = false;
  int64_t b = eval(bound, env, &too_big);
  return is_lower ? b <= value : value <= b;
}

TEST(ArithRandom, SimplifiedIntegerExpressionsKeepTheirValueAndStayInBounds) {
  int checked = 0, idempotent = 0;
  for (uint32_t seed = 1; checked < 3000; ++seed) {
    Gen g(seed, {}, kIndexType);
    Case c = random_case(g, kIndexType);
    Gen eg(seed * 7919u, c.vars, kIndexType);
    Expr e = eg.expr(4);
    bool too_big = false;
    for_each_point(c.vars, c.box, [&](const auto& env) { eval(e, env, &too_big); });
    if (too_big) continue;
    ++checked;
    Expr s_all = simplify(e, c.all), s_none = simplify(e);
    Interval iv_all = eval_interval(e, c.all), iv_xy = eval_interval(e, c.xy_only);
    std::optional<int64_t> lo = const_lower_bound(e, c.all), hi = const_upper_bound(e, c.all);
    idempotent += structural_equal(simplify(s_none), s_none);
    for_each_point(c.vars, c.box, [&](const auto& env) {
      bool big = false;
      int64_t v = eval(e, env, &big);
      ASSERT_EQ(eval(s_all, env, &big), v)
          << to_string(e) << "\n  with ranges -> " << to_string(s_all);
      ASSERT_EQ(eval(s_none, env, &big), v) << to_string(e) << "\n  -> " << to_string(s_none);
      ASSERT_TRUE(contains(iv_all.min, true, v, env) && contains(iv_all.max, false, v, env))
          << to_string(e) << " = " << v;
      ASSERT_TRUE(contains(iv_xy.min, true, v, env) && contains(iv_xy.max, false, v, env))
          << to_string(e) << " = " << v << " not in [" << to_string(iv_xy.min) << ", "
          << to_string(iv_xy.max) << "]";
      ASSERT_TRUE((!lo || *lo <= v) && (!hi || v <= *hi)) << to_string(e) << " = " << v;
    });
    if (HasFatalFailure()) return;
  }
  // Results are in normal form: a second pass finds nothing more to do (one pass is enough).
  EXPECT_GE(idempotent, checked * 99 / 100);
}

TEST(ArithRandom, ProvenConditionsHoldEverywhere) {
  int checked = 0, proven = 0;
  for (uint32_t seed = 1; checked < 2000; ++seed) {
    Gen g(seed + 100000, {}, kIndexType);
    Case c = random_case(g, kIndexType);
    Gen eg(seed * 104729u, c.vars, kIndexType);
    Expr cond = eg.cond(2);
    bool too_big = false;
    for_each_point(c.vars, c.box, [&](const auto& env) { eval(cond, env, &too_big); });
    if (too_big) continue;
    ++checked;
    bool holds = can_prove(cond, c.all);
    proven += holds;
    Expr s = simplify(cond, c.all);
    for_each_point(c.vars, c.box, [&](const auto& env) {
      bool big = false;
      int64_t v = eval(cond, env, &big);
      ASSERT_EQ(eval(s, env, &big), v) << to_string(cond) << "\n  -> " << to_string(s);
      ASSERT_TRUE(!holds || v) << "proved but false: " << to_string(cond);
    });
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(proven, 0);
}

// int8, uint8 and int16 arithmetic wraps after every operation; the simplifier must agree.
TEST(ArithRandom, NarrowIntegerExpressionsKeepTheirWrappedValue) {
  uint32_t salt = 200000;
  for (DType t : {DType::kInt8, DType::kUInt8, DType::kInt16}) {
    salt += 100000;
    for (uint32_t seed = 1; seed <= 2000; ++seed) {
      Gen g(seed + salt, {}, t);
      Case c = random_case(g, t);
      Gen eg(seed * 31337u + salt, c.vars, t);
      Expr e = eg.expr(4);
      Expr s = simplify(e, c.all);
      std::optional<int64_t> lo = const_lower_bound(e, c.all), hi = const_upper_bound(e, c.all);
      for_each_point(c.vars, c.box, [&](const auto& env) {
        bool big = false;
        int64_t v = eval(e, env, &big);
        ASSERT_EQ(eval(s, env, &big), v)
            << dtype_name(t) << ": " << to_string(e) << "\n  -> " << to_string(s);
        ASSERT_TRUE((!lo || *lo <= v) && (!hi || v <= *hi)) << to_string(e) << " = " << v;
      });
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Random well-typed expressions of every type the IR has (casts, loads, calls, selects, float
// arithmetic): the arithmetic layer must accept all of them without throwing and keep the type.
class MixedGen {
 public:
  explicit MixedGen(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return static_cast<int>(rng_() % n); }

  Expr of(DType t, int depth) {
    if (t == DType::kBool) return cond(depth);
    if (depth == 0 || pick(5) == 0) return leaf(t);
    Expr a = of(t, depth - 1);
    switch (pick(9)) {
      case 0:
        return make_binary(ExprKind::kAdd, a, of(t, depth - 1));
      case 1:
        return make_binary(ExprKind::kSub, a, of(t, depth - 1));
      case 2:
        return make_binary(ExprKind::kMul, a, of(t, depth - 1));
      case 3:
        return make_binary(ExprKind::kDiv, a, of(t, depth - 1));  // may divide by zero
      case 4:
        return make_binary(ExprKind::kMod, a, leaf(t));
      case 5:
        return make_binary(pick(2) ? ExprKind::kMin : ExprKind::kMax, a, of(t, depth - 1));
      case 6:
        return make_select(cond(depth - 1), a, of(t, depth - 1));
      case 7:
        return make_cast(t, of(kTypes[pick(5)], depth - 1));
      default: {
        if (is_float(t) && pick(2)) return make_call(t, "exp", {a});
        Expr load = make_buffer_load(buffers_[pick(3)], {of(kIndexType, depth - 1)});
        return make_cast(t, load);  // no-op when the buffer has type t
      }
    }
  }
  Expr cond(int depth) {
    DType t = kTypes[pick(4)];
    Expr c = make_binary(static_cast<ExprKind>(static_cast<int>(ExprKind::kEQ) + pick(6)),
                         of(t, depth > 0 ? depth - 1 : 0), of(t, depth > 0 ? depth - 1 : 0));
    switch (pick(4)) {
      case 0:
        return make_not(c);
      case 1:
        return make_binary(ExprKind::kAnd, c, make_bool(pick(2)));
      case 2:
        return make_binary(ExprKind::kOr, c, depth > 0 ? cond(depth - 1) : make_bool(false));
      default:
        return c;
    }
  }
  Expr leaf(DType t) {
    if (pick(2) == 0) {
      if (is_float(t)) return make_float(pick(7) - 3 + 0.5 * pick(2), t);
      return make_int(pick(20) - (t == DType::kUInt8 ? 0 : 10), t);
    }
    if (t == kIndexType) return vars_[pick(3)];
    return is_float(t) ? make_cast(t, vars_[pick(3)]) : make_cast(t, Expr(vars_[pick(3)]));
  }

  static constexpr DType kTypes[5] = {DType::kInt32, DType::kInt8, DType::kUInt8, DType::kFloat32,
                                      DType::kInt16};
  std::vector<Var> vars_{Var("i"), Var("j"), Var("k")};

 private:
  std::mt19937 rng_;
  std::vector<Buffer> buffers_{make_buffer("A", DType::kInt32, {64}),
                               make_buffer("B", DType::kInt8, {64}),
                               make_buffer("C", DType::kFloat32, {64})};
};

TEST(ArithRandom, MixedTypeExpressionsNeverThrowAndKeepTheirType) {
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    MixedGen g(seed);
    DType t = MixedGen::kTypes[seed % 5];
    Expr e = g.of(t, 4);
    VarRanges r{{g.vars_[0], Interval::range(0, 8)}, {g.vars_[1], Interval::range(-3, 5)}};
    Expr s;
    ASSERT_NO_THROW(s = simplify(e, r)) << to_string(e);
    EXPECT_EQ(s.dtype(), e.dtype()) << to_string(e);
    ASSERT_NO_THROW(eval_interval(e, r)) << to_string(e);
    ASSERT_NO_THROW(const_lower_bound(e, r)) << to_string(e);
    Expr c = g.cond(3);
    ASSERT_NO_THROW(can_prove(c, r)) << to_string(c);
  }
}

// eval_int (the NPU selector's and verify's hot path) gives the value of the independent
// evaluator above and the constant simplify(substitute(e, env)) folds to, at every point, in
// the index type and the wrapping narrow types; and it declines (nullopt) an unbound variable.
TEST(ArithRandom, IntegerEvaluationAgreesWithTheEvaluatorAndTheSimplifier) {
  int decided = 0;
  for (DType t : {kIndexType, DType::kInt8, DType::kUInt8, DType::kInt16}) {
    for (uint32_t seed = 1; seed <= 400; ++seed) {
      Gen g(seed + 900000, {}, t);
      Case c = random_case(g, t);
      Gen eg(seed * 6151u + 900000, c.vars, t);
      Expr e = seed % 3 == 0 ? eg.cond(2) : eg.expr(4);
      bool too_big = false;
      for_each_point(c.vars, c.box, [&](const auto& env) { eval(e, env, &too_big); });
      if (too_big) continue;
      VarMap partial{{c.vars[0], make_int(c.box[0].first, t)}};
      std::optional<int64_t> part = eval_int(e, partial);
      if (uses_var(e, c.vars[1]) || uses_var(e, c.vars[2])) {
        // Decided only where the unbound variables do not matter (a select's other branch).
        if (part) {
          ASSERT_EQ(*as_const_int(simplify(substitute(e, partial))), *part);
        }
      }
      for_each_point(c.vars, c.box, [&](const auto& env) {
        bool big = false;
        VarMap vm;
        for (const Var& v : c.vars) vm[v] = make_int(env.at(v.id()), t);
        std::optional<int64_t> got = eval_int(e, vm);
        ASSERT_TRUE(got.has_value()) << to_string(e);
        ASSERT_EQ(*got, eval(e, env, &big)) << dtype_name(t) << ": " << to_string(e);
        Expr folded = simplify(substitute(e, vm));
        ASSERT_TRUE(as_const_int(folded)) << to_string(e) << " -> " << to_string(folded);
        ASSERT_EQ(*got, *as_const_int(folded)) << to_string(e);
        ++decided;
      });
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(decided, 10000);
  EXPECT_FALSE(eval_int(Var("free") + 1, VarMap()).has_value());
  EXPECT_FALSE(eval_int(make_int(7) / make_int(0), VarMap()).has_value());
}

// A compiled IntProgram (the selector's and verify's per-iteration evaluation) gives the
// independent evaluator's value at every point, and under partial bindings decides exactly when
// eval_int does, with the same value; bindings of another type or to a non-constant decline.
TEST(ArithRandom, CompiledEvaluationAgreesWithTheEvaluatorAndEvalInt) {
  int decided = 0, partial_decided = 0;
  for (DType t : {kIndexType, DType::kInt8, DType::kUInt8, DType::kInt16}) {
    for (uint32_t seed = 1; seed <= 300; ++seed) {
      Gen g(seed + 700000, {}, t);
      Case c = random_case(g, t);
      Gen eg(seed * 7919u + 700000, c.vars, t);
      Expr e = seed % 3 == 0 ? eg.cond(2) : eg.expr(4);
      bool too_big = false;
      for_each_point(c.vars, c.box, [&](const auto& env) { eval(e, env, &too_big); });
      if (too_big) continue;
      IntEnv ie;
      IntProgram p(e, &ie);
      std::vector<int> slots;
      for (const Var& v : c.vars) slots.push_back(ie.slot(v));
      // Only x bound: decided where the others do not matter, as eval_int decides.
      ie.bind(slots[0], c.box[0].first, t);
      std::optional<int64_t> part = p.eval(ie);
      std::optional<int64_t> ref = eval_int(e, ie.var_map());
      ASSERT_EQ(part.has_value(), ref.has_value()) << to_string(e);
      if (part) {
        ASSERT_EQ(*part, *ref) << to_string(e);
        ++partial_decided;
      }
      for_each_point(c.vars, c.box, [&](const auto& env) {
        bool big = false;
        for (size_t i = 0; i < c.vars.size(); ++i) ie.bind(slots[i], env.at(c.vars[i].id()), t);
        std::optional<int64_t> got = p.eval(ie);
        ASSERT_TRUE(got.has_value()) << to_string(e);
        ASSERT_EQ(*got, eval(e, env, &big)) << dtype_name(t) << ": " << to_string(e);
        ++decided;
      });
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(decided, 10000);
  EXPECT_GT(partial_decided, 50);
  Var x("x");
  IntEnv ie;
  IntProgram p(x * 3 + 1, &ie), by_zero(x / (x - x), &ie);
  int s = ie.slot(x);
  EXPECT_FALSE(p.eval(ie).has_value());  // unbound
  ie.bind(s, 5, DType::kInt64);
  EXPECT_FALSE(p.eval(ie).has_value());  // bound in another type, as eval_int declines
  ie.bind(s, 5, kIndexType);
  EXPECT_EQ(p.eval(ie), std::optional<int64_t>(16));
  EXPECT_FALSE(by_zero.eval(ie).has_value());
  ie.bind_expr(s, Var("n") + 1);
  EXPECT_FALSE(p.eval(ie).has_value());  // a non-constant binding
  EXPECT_EQ(to_string(ie.var_map().at(x)), "(n + 1)");
  ie.unbind(s);
  EXPECT_TRUE(ie.var_map().empty());
}

// eval_affine (the NPU selector's loop-template proof) is sound: when it says a program is affine
// on a box of some of its variables (the others bound to points of theirs), the program's value
// at every point of the box is that affine function's; and it proves often enough to matter.
TEST(ArithRandom, AffineEvaluationHoldsAtEveryPointOfTheBox) {
  int proved = 0, points = 0;
  for (DType t : {kIndexType, DType::kInt8, DType::kUInt8, DType::kInt16}) {
    for (uint32_t seed = 1; seed <= 400; ++seed) {
      Gen g(seed + 900000, {}, t);
      Case c = random_case(g, t);
      Gen eg(seed * 7919u + 900000, c.vars, t);
      Expr e = seed % 3 == 0 ? eg.cond(2) : seed % 3 == 1 ? eg.expr(2) : eg.expr(4);
      IntEnv ie;
      IntProgram p(e, &ie);
      std::vector<int> slots;
      for (const Var& v : c.vars) slots.push_back(ie.slot(v));
      // The first variables over their ranges, the last one (when there are two or more) fixed.
      const int n = c.vars.size() > 1 ? static_cast<int>(c.vars.size()) - 1 : 1;
      std::vector<AffineVar> box;
      for (int i = 0; i < n; ++i) box.push_back({slots[i], c.box[i].first, c.box[i].second});
      for (size_t i = 0; i < c.vars.size(); ++i) ie.bind(slots[i], c.box[i].first, t);
      AffineValue a;
      if (!p.eval_affine(ie, box.data(), n, &a)) continue;
      ++proved;
      for_each_point(c.vars, c.box, [&](const auto& env) {
        if (c.vars.size() > 1 && env.at(c.vars.back().id()) != c.box.back().first) return;
        for (size_t i = 0; i < c.vars.size(); ++i) ie.bind(slots[i], env.at(c.vars[i].id()), t);
        std::optional<int64_t> got = p.eval(ie);
        int64_t want = a.c;
        for (int i = 0; i < n; ++i) want += a.coef[i] * env.at(c.vars[i].id());
        ASSERT_TRUE(got.has_value()) << to_string(e);
        ASSERT_EQ(*got, want) << dtype_name(t) << ": " << to_string(e);
        ++points;
      });
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(proved, 100);
  EXPECT_GT(points, 1000);
  // A decision that changes inside the box is not proved; one that does not is.
  Var x("x");
  IntEnv ie;
  int s = ie.slot(x);
  ie.bind(s, 0, kIndexType);
  AffineVar v{s, 0, 9};
  AffineValue a;
  EXPECT_FALSE(IntProgram(min(x, make_int(4)), &ie).eval_affine(ie, &v, 1, &a));
  EXPECT_TRUE(IntProgram(min(x * 2, make_int(40)) + 3, &ie).eval_affine(ie, &v, 1, &a));
  EXPECT_EQ(a.c, 3);
  EXPECT_EQ(a.coef[0], 2);
  EXPECT_FALSE(IntProgram(x / 4, &ie).eval_affine(ie, &v, 1, &a));
  EXPECT_TRUE(IntProgram((x * 8 + 5) / 4, &ie).eval_affine(ie, &v, 1, &a));
  EXPECT_EQ(a.c, 1);
  EXPECT_EQ(a.coef[0], 2);
}

}  // namespace
}  // namespace tessera
