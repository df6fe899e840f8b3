// Symbolic interval evaluation: bounds that are expressions over the variables without a range.
// Each node's interval is computed from its children's and its bounds simplified, so bounds stay
// canonical (io*32 + 31, not (io*32 + 0) + 31). When every variable has a range, the constant
// analysis of const_bounds.h is used as well, as it is tighter on sums of min/max terms.
#include "compiler/arith/interval.h"

#include <algorithm>
#include <set>

#include "compiler/arith/const_bounds.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/linear_form.h"
#include "compiler/arith/rewrite.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_visitor.h"
#include "runtime/base/error.h"

namespace tessera {

Interval Interval::range(int64_t min, int64_t extent) {
  return {make_int(min), make_int(min + extent - 1)};
}

namespace {

const VarRanges kNoRanges;

bool is_point(const Interval& i) { return i.min.defined() && i.min.same_as(i.max); }

// Every variable in e has a range (so its bounds are constants, if anything).
bool all_vars_ranged(const Expr& e, const VarRanges& ranges) {
  bool all = true;
  post_order_visit(e, [&](const Expr& x) {
    if (x.kind() == ExprKind::kVar && !ranges.count(Var(x))) all = false;
  });
  return all;
}
bool any_var_ranged(const Expr& e, const VarRanges& ranges) {
  bool any = false;
  post_order_visit(e, [&](const Expr& x) {
    if (x.kind() == ExprKind::kVar && ranges.count(Var(x))) any = true;
  });
  return any;
}

Interval from_const(const ConstBounds& b, DType t) {
  return {b.min ? make_int(*b.min, t) : Expr(), b.max ? make_int(*b.max, t) : Expr()};
}

class IntervalEval {
 public:
  explicit IntervalEval(const VarRanges& r) : ranges_(r) {}

  // e is simplified and of type int32 or int64.
  Interval eval(const Expr& e) {
    bool saved = overflow_;
    overflow_ = false;
    Interval r = compute(e);
    bool overflowed = overflow_;
    overflow_ = saved;
    if (overflowed || out_of_type(r.min, e.dtype()) || out_of_type(r.max, e.dtype())) return {};
    return r;
  }

 private:
  static bool out_of_type(const Expr& b, DType t) {
    const int64_t* v = as_const_int(b);
    return v && !int_fits(*v, t);
  }

  // op(a, b) on bounds: exact (not wrapped) when both are constants, simplified otherwise.
  Expr bound(ExprKind k, const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) return Expr();
    const int64_t *x = as_const_int(a), *y = as_const_int(b);
    if (x && y) {
      int64_t r = 0;
      bool of = false;
      switch (k) {
        case ExprKind::kAdd:
          of = __builtin_add_overflow(*x, *y, &r);
          break;
        case ExprKind::kSub:
          of = __builtin_sub_overflow(*x, *y, &r);
          break;
        case ExprKind::kMul:
          of = __builtin_mul_overflow(*x, *y, &r);
          break;
        case ExprKind::kMin:
          r = std::min(*x, *y);
          break;
        case ExprKind::kMax:
          r = std::max(*x, *y);
          break;
        case ExprKind::kDiv:
          r = floor_div(*x, *y);
          break;
        default:
          TESSERA_ICHECK(false, "bound of kind ", static_cast<int>(k));
      }
      if (of) overflow_ = true;
      return make_int(r, a.dtype());
    }
    return rewrite_binary(k, a, b, kNoRanges);
  }
  // min/max of bounds where an undefined bound is infinite on its side.
  Expr lower_min(const Expr& a, const Expr& b) { return bound(ExprKind::kMin, a, b); }
  Expr upper_min(const Expr& a, const Expr& b) {
    return !a.defined() ? b : !b.defined() ? a : bound(ExprKind::kMin, a, b);
  }
  Expr lower_max(const Expr& a, const Expr& b) {
    return !a.defined() ? b : !b.defined() ? a : bound(ExprKind::kMax, a, b);
  }
  Expr upper_max(const Expr& a, const Expr& b) { return bound(ExprKind::kMax, a, b); }

  Interval compute(const Expr& e) {
    // uint32/uint64 wrap and are not analysed as numbers (rewrite.h): a value that depends on
    // a ranged variable is unbounded, any other is itself.
    if (is_wide_unsigned(e.dtype())) {
      return any_var_ranged(e, ranges_) ? Interval{} : Interval::point(e);
    }
    switch (e.kind()) {
      case ExprKind::kIntImm:
        return Interval::point(e);
      case ExprKind::kVar:
        return var(Var(e));
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
        return sum(e);
      case ExprKind::kDiv:
        return div(e.as<BinaryNode>(), e);
      case ExprKind::kMod:
        return mod(e.as<BinaryNode>(), e);
      case ExprKind::kMin:
      case ExprKind::kMax: {
        const auto* op = e.as<BinaryNode>();
        Interval a = eval(op->a), b = eval(op->b);
        if (is_point(a) && is_point(b) && a.min.same_as(op->a) && b.min.same_as(op->b)) {
          return Interval::point(e);
        }
        if (e.kind() == ExprKind::kMin) return {lower_min(a.min, b.min), upper_min(a.max, b.max)};
        return {lower_max(a.min, b.min), upper_max(a.max, b.max)};
      }
      case ExprKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        if (!any_var_ranged(e, ranges_)) return Interval::point(e);
        if (can_prove(op->cond, ranges_)) return eval(op->true_value);
        if (can_prove(rewrite_not(op->cond), ranges_)) return eval(op->false_value);
        Interval a = eval(op->true_value), b = eval(op->false_value);
        return {lower_min(a.min, b.min), upper_max(a.max, b.max)};
      }
      case ExprKind::kCast: {
        const Expr& v = e.as<CastNode>()->value;
        DType t = e.dtype(), s = v.dtype();
        if (!any_var_ranged(v, ranges_)) return Interval::point(e);
        if (s == DType::kBool) return {make_int(0, t), make_int(1, t)};
        if (!is_int(s)) return {};
        Interval iv = (s == DType::kInt32 || s == DType::kInt64)
                          ? eval(v)
                          : from_const(const_bounds(v, ranges_), s);
        // A widening cast keeps the bounds; a narrowing one only when they are constants that fit.
        bool widening = int_holds(t, s);
        if (widening) {
          auto cast_bound = [&](const Expr& b) { return b.defined() ? rewrite_cast(t, b) : b; };
          return {cast_bound(iv.min), cast_bound(iv.max)};
        }
        const int64_t *lo = as_const_int(iv.min), *hi = as_const_int(iv.max);
        if (!lo || !hi || !int_fits(*lo, t) || !int_fits(*hi, t)) return {};
        return {make_int(*lo, t), make_int(*hi, t)};
      }
      default:
        return any_var_ranged(e, ranges_) ? Interval{} : Interval::point(e);
    }
  }

  Interval var(const Var& v) {
    auto it = ranges_.find(v);
    if (it == ranges_.end()) return Interval::point(v);
    if (in_progress_.count(v.id())) return {};
    in_progress_.insert(v.id());
    const Interval& r = it->second;
    auto side = [&](const Expr& b, bool upper) {
      if (!b.defined() || b.dtype() != v.dtype()) return Expr();
      Interval bi = eval(simplify(b, kNoRanges));
      return upper ? bi.max : bi.min;
    };
    Interval out{side(r.min, false), side(r.max, true)};
    in_progress_.erase(v.id());
    return out;
  }

  // c + sum(coef * atom): each atom's bound on the side its coefficient's sign picks.
  Interval sum(const Expr& e) {
    LinearForm f = linear_form(e);
    DType t = e.dtype();
    if (f.terms.size() == 1 && f.constant == 0 && f.terms[0].coef == 1 &&
        f.terms[0].atom.kind() == ExprKind::kMul) {
      return product(f.terms[0].atom.as<BinaryNode>(), f.terms[0].atom);
    }
    std::vector<Interval> atoms;
    bool all_points = true;
    for (const LinearTerm& term : f.terms) {
      atoms.push_back(eval(term.atom));
      all_points = all_points && is_point(atoms.back()) && atoms.back().min.same_as(term.atom);
    }
    if (all_points) return Interval::point(e);
    Expr lo = make_int(f.constant, t), hi = lo;
    for (size_t i = 0; i < f.terms.size(); ++i) {
      Expr c = make_int(f.terms[i].coef, t);
      bool pos = f.terms[i].coef > 0;
      lo = bound(ExprKind::kAdd, lo, bound(ExprKind::kMul, pos ? atoms[i].min : atoms[i].max, c));
      hi = bound(ExprKind::kAdd, hi, bound(ExprKind::kMul, pos ? atoms[i].max : atoms[i].min, c));
    }
    return {lo, hi};
  }

  // x * y with neither a constant: the extremes are at the corners of the box.
  Interval product(const BinaryNode* op, const Expr& e) {
    Interval a = eval(op->a), b = eval(op->b);
    if (is_point(a) && is_point(b)) {
      if (a.min.same_as(op->a) && b.min.same_as(op->b)) return Interval::point(e);
      return Interval::point(bound(ExprKind::kMul, a.min, b.min));
    }
    if (!a.bounded() || !b.bounded()) return {};
    Expr c[4] = {bound(ExprKind::kMul, a.min, b.min), bound(ExprKind::kMul, a.min, b.max),
                 bound(ExprKind::kMul, a.max, b.min), bound(ExprKind::kMul, a.max, b.max)};
    Expr lo = c[0], hi = c[0];
    for (int i = 1; i < 4; ++i) {
      lo = bound(ExprKind::kMin, lo, c[i]);
      hi = bound(ExprKind::kMax, hi, c[i]);
    }
    return {lo, hi};
  }

  Interval div(const BinaryNode* op, const Expr& e) {
    Interval a = eval(op->a), b = eval(op->b);
    if (is_point(a) && is_point(b) && a.min.same_as(op->a) && b.min.same_as(op->b)) {
      return Interval::point(e);
    }
    if (const int64_t* c = as_const_int(b.min); c && is_point(b) && *c > 0) {
      if (within_one_period(a, *c)) {
        return Interval::point(bound(ExprKind::kDiv, a.min, b.min));
      }
    }
    if (const int64_t* c = as_const_int(b.min); c && is_point(b) && *c != 0) {
      // Floor division by a constant is monotone.
      Expr lo = a.min.defined() ? bound(ExprKind::kDiv, a.min, b.min) : Expr();
      Expr hi = a.max.defined() ? bound(ExprKind::kDiv, a.max, b.min) : Expr();
      return *c > 0 ? Interval{lo, hi} : Interval{hi, lo};
    }
    return from_const(const_bounds(e, ranges_), e.dtype());
  }

  // For a = [m, m + d] with d a constant: d when no multiple of c (> 0) lies in (m, m + d], so
  // floor(x / c) is the same for every x in a (TVM's tight bound of a fused loop's inner part:
  // fused = outer * 3 + inner, inner < 3, read as fused % 12 and fused / 12).
  std::optional<int64_t> within_one_period(const Interval& a, int64_t c) {
    if (!a.bounded() || as_const_int(a.min)) return std::nullopt;  // constants: the rules below
    Expr width = simplify(a.max - a.min, ranges_);
    const int64_t* d = as_const_int(width);
    if (!d || *d < 0 || *d >= c) return std::nullopt;
    Expr m = simplify(make_binary(ExprKind::kMod, a.min, make_int(c, a.min.dtype())), ranges_);
    std::optional<int64_t> top = const_bounds(m, ranges_).max;
    if (!top || *top + *d >= c) return std::nullopt;
    return *d;
  }

  Interval mod(const BinaryNode* op, const Expr& e) {
    Interval a = eval(op->a), b = eval(op->b);
    if (is_point(a) && is_point(b) && a.min.same_as(op->a) && b.min.same_as(op->b)) {
      return Interval::point(e);
    }
    const int64_t *lo = as_const_int(a.min), *hi = as_const_int(a.max);
    if (const int64_t* c = as_const_int(b.min); c && is_point(b) && *c > 0) {
      if (lo && *lo >= 0 && hi && *hi < *c) return a;
      if (std::optional<int64_t> d = within_one_period(a, *c)) {
        // a = [m, m + d] never crosses a multiple of c: a % c = [m % c, m % c + d].
        Expr m = simplify(make_binary(ExprKind::kMod, a.min, b.min), ranges_);
        return {m, simplify(m + make_int(*d, e.dtype()), ranges_)};
      }
      if (!lo || !hi || floor_div(*lo, *c) != floor_div(*hi, *c)) {
        return {make_int(0, e.dtype()), make_int(*c - 1, e.dtype())};
      }
    }
    return from_const(const_bounds(e, ranges_), e.dtype());
  }

  const VarRanges& ranges_;
  std::set<uint64_t> in_progress_;
  bool overflow_ = false;
};

}  // namespace

Interval eval_interval(const Expr& e, const VarRanges& ranges) {
  if (!e.defined()) return {};
  Expr s = simplify(e, ranges);
  if (!any_var_ranged(s, ranges)) return Interval::point(s);
  DType t = s.dtype();
  if (!is_int(t))
    return t == DType::kBool ? Interval{make_bool(false), make_bool(true)} : Interval{};
  ConstBounds cb = const_bounds(s, ranges);
  if (t != DType::kInt32 && t != DType::kInt64) return from_const(cb, t);
  Interval r = IntervalEval(ranges).eval(s);
  if (!all_vars_ranged(s, ranges)) return r;
  // Only constants can come out; keep the tighter of the two analyses on each side.
  const int64_t *lo = as_const_int(r.min), *hi = as_const_int(r.max);
  if (cb.min && (!lo || *cb.min > *lo)) r.min = make_int(*cb.min, t);
  if (cb.max && (!hi || *cb.max < *hi)) r.max = make_int(*cb.max, t);
  return r;
}

Interval interval_union(const Interval& a, const Interval& b) {
  Interval r;
  if (a.min.defined() && b.min.defined()) r.min = simplify(min(a.min, b.min));
  if (a.max.defined() && b.max.defined()) r.max = simplify(max(a.max, b.max));
  return r;
}

std::optional<int64_t> const_lower_bound(const Expr& e, const VarRanges& ranges) {
  if (!e.defined()) return std::nullopt;
  return const_bounds(simplify(e, ranges), ranges).min;
}

std::optional<int64_t> const_upper_bound(const Expr& e, const VarRanges& ranges) {
  if (!e.defined()) return std::nullopt;
  return const_bounds(simplify(e, ranges), ranges).max;
}

}  // namespace tessera
