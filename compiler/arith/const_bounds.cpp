#include "compiler/arith/const_bounds.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

#include "compiler/arith/arith_memo.h"
#include "compiler/arith/const_fold.h"
#include "compiler/ir/equal.h"

namespace tessera {

namespace {

using Opt = std::optional<int64_t>;

Opt add(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}
Opt mul(Opt a, int64_t c) {
  int64_t r;
  if (!a || __builtin_mul_overflow(*a, c, &r)) return std::nullopt;
  return r;
}
// min/max where an unbounded side is -inf (for lower bounds) or +inf (for upper bounds).
Opt min_lower(Opt a, Opt b) { return a && b ? Opt(std::min(*a, *b)) : std::nullopt; }
Opt min_upper(Opt a, Opt b) { return a && b ? Opt(std::min(*a, *b)) : (a ? a : b); }
Opt max_lower(Opt a, Opt b) { return a && b ? Opt(std::max(*a, *b)) : (a ? a : b); }
Opt max_upper(Opt a, Opt b) { return a && b ? Opt(std::max(*a, *b)) : std::nullopt; }

bool is_narrow(DType t) { return t == DType::kBool || (is_int(t) && bits_of(t) < 32); }

ConstBounds type_range(DType t) {
  if (is_narrow(t)) return {int_min_of(t), int_max_of(t)};
  return {};
}

// The bounds of a value of type t whose mathematical bounds are b (see the header on overflow).
ConstBounds fit_to_type(DType t, ConstBounds b) {
  if (!is_int(t) && t != DType::kBool) return {};
  if (t == DType::kUInt64) {
    // Mathematical bounds inside [0, INT64_MAX] are the value's; anything else may wrap or
    // exceed what int64 bounds can say.
    if (b.min && *b.min >= 0 && b.max) return b;
    return {};
  }
  if (t == DType::kUInt32) {  // wraps, like the narrow types
    const ConstBounds range{0, int_max_of(t)};
    if (!b.min || !b.max || *b.min < 0 || *b.max > *range.max) return range;
    return b;
  }
  int64_t lo = int_min_of(t), hi = int_max_of(t);
  if (is_narrow(t)) {
    if (!b.min || !b.max || *b.min < lo || *b.max > hi) return type_range(t);
    return b;
  }
  if ((b.min && (*b.min < lo || *b.min > hi)) || (b.max && (*b.max < lo || *b.max > hi))) return {};
  return b;
}

// Bounds of a floor division of [a] by [b], where b excludes 0 when both of b's sides are known.
ConstBounds div_bounds(const ConstBounds& a, const ConstBounds& b) {
  if (b.min && b.max && *b.min == *b.max && *b.min != 0) {
    int64_t c = *b.min;
    Opt lo = a.min ? Opt(floor_div(*a.min, c)) : std::nullopt;
    Opt hi = a.max ? Opt(floor_div(*a.max, c)) : std::nullopt;
    return c > 0 ? ConstBounds{lo, hi} : ConstBounds{hi, lo};
  }
  bool b_sign_known = b.min && b.max && (*b.min > 0 || *b.max < 0);
  if (b_sign_known && a.min && a.max) {
    // floor(a / b) is monotone in each argument when b keeps its sign: the corners bound it.
    int64_t c[4] = {floor_div(*a.min, *b.min), floor_div(*a.min, *b.max), floor_div(*a.max, *b.min),
                    floor_div(*a.max, *b.max)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  if (b.min && *b.min > 0 && a.min && *a.min >= 0) {
    return {0, a.max ? Opt(floor_div(*a.max, *b.min)) : std::nullopt};
  }
  return {};
}

// The extremes of a product over a box are at its corners.
ConstBounds product_bounds(const ConstBounds& a, const ConstBounds& b) {
  if (a.min && a.max && b.min && b.max) {
    Opt c[4] = {mul(a.min, *b.min), mul(a.min, *b.max), mul(a.max, *b.min), mul(a.max, *b.max)};
    ConstBounds r{c[0], c[0]};
    for (const Opt& x : c) {
      if (!x) return {};
      r.min = std::min(*r.min, *x);
      r.max = std::max(*r.max, *x);
    }
    return r;
  }
  if (a.min && *a.min >= 0 && b.min && *b.min >= 0) {
    return {mul(a.min, *b.min), std::nullopt};
  }
  return {};
}

ConstBounds mod_bounds(const ConstBounds& a, const ConstBounds& b) {
  if (b.min && b.max && *b.min == *b.max && *b.min != 0) {
    int64_t c = *b.min;
    if (a.min && a.max && floor_div(*a.min, c) == floor_div(*a.max, c)) {
      return {floor_mod(*a.min, c), floor_mod(*a.max, c)};
    }
    return c > 0 ? ConstBounds{0, c - 1} : ConstBounds{c + 1, 0};
  }
  if (b.min && *b.min > 0) {
    if (a.min && *a.min >= 0) {
      if (a.max && *a.max < *b.min) return a;
      return {0, min_upper(a.max, b.max ? Opt(*b.max - 1) : std::nullopt)};
    }
    return {0, b.max ? Opt(*b.max - 1) : std::nullopt};
  }
  if (b.max && *b.max < 0) return {b.min ? Opt(*b.min + 1) : std::nullopt, 0};
  return {};
}

class BoundEval {
 public:
  explicit BoundEval(const VarRanges& r) : ranges_(r) {}

  ConstBounds expr(const Expr& e) {
    // A query meets a few dozen nodes: a flat table, searched from the newest entry.
    for (size_t i = cache_.size(); i-- > 0;) {
      if (cache_[i].expr.same_as(e)) return cache_[i].bounds;
    }
    ConstBounds b = fit_to_type(e.dtype(), compute(e));
    if (cache_.empty()) cache_.reserve(12);
    cache_.push_back({e, b});  // holds e so the address stays unique
    return b;
  }

  ConstBounds linear(const LinearForm& f) {
    return fit_to_type(f.dtype, {side(f, false), side(f, true)});
  }

 private:
  static constexpr int kBudget = 256;  // linear-form steps (substitution, distribution) per query

  ConstBounds compute(const Expr& e) {
    DType t = e.dtype();
    if (const int64_t* v = as_const_int(e)) return {wrap_int(*v, t), wrap_int(*v, t)};  // see fit
    if (!is_int(t)) return type_range(t);
    // uint32/uint64 arithmetic wraps and uint64 does not fit int64: only constants (above) and
    // the type's range (fit_to_type) are known; casts from such a value are bounded by it.
    if (is_wide_unsigned(t)) return {};
    switch (e.kind()) {
      case ExprKind::kVar:
        return var(Var(e));
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul: {
        LinearForm f = linear_form(e);
        if (f.terms.size() == 1 && f.constant == 0 && f.terms[0].coef == 1 &&
            f.terms[0].atom.kind() == ExprKind::kMul) {
          const auto* op = f.terms[0].atom.as<BinaryNode>();  // x * y, neither a constant
          return product_bounds(expr(op->a), expr(op->b));
        }
        return linear(f);
      }
      case ExprKind::kDiv: {
        const auto* op = e.as<BinaryNode>();
        return div_bounds(expr(op->a), expr(op->b));
      }
      case ExprKind::kMod: {
        const auto* op = e.as<BinaryNode>();
        return mod_bounds(expr(op->a), expr(op->b));
      }
      case ExprKind::kMin:
      case ExprKind::kMax: {
        const auto* op = e.as<BinaryNode>();
        ConstBounds a = expr(op->a), b = expr(op->b);
        if (e.kind() == ExprKind::kMin) return {min_lower(a.min, b.min), min_upper(a.max, b.max)};
        return {max_lower(a.min, b.min), max_upper(a.max, b.max)};
      }
      case ExprKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        if (const int64_t* c = as_const_int(op->cond))
          return expr(*c ? op->true_value : op->false_value);
        ConstBounds a = expr(op->true_value), b = expr(op->false_value);
        return {min_lower(a.min, b.min), max_upper(a.max, b.max)};
      }
      case ExprKind::kCast: {
        const Expr& v = e.as<CastNode>()->value;
        if (is_int(v.dtype()) || v.dtype() == DType::kBool) return expr(v);  // fit_to_type checks
        return type_range(t);
      }
      default:
        return type_range(t);
    }
  }

  ConstBounds var(const Var& v) {
    auto it = ranges_.find(v);
    if (it == ranges_.end() || in_progress_.count(v.id())) return type_range(v.dtype());
    in_progress_.insert(v.id());
    const Interval& r = it->second;
    ConstBounds b{r.min.defined() ? expr(r.min).min : std::nullopt,
                  r.max.defined() ? expr(r.max).max : std::nullopt};
    in_progress_.erase(v.id());
    return b;
  }

  // The lower or upper bound of a form, in exact integer arithmetic (fit_to_type comes after).
  Opt side(const LinearForm& f, bool upper) {
    if (budget_ > 0 && !is_narrow(f.dtype)) {
      --budget_;
      if (auto r = substitute_symbolic_bound(f, upper)) return *r;
      if (auto r = distribute(f, upper)) return *r;
    }
    Opt acc = f.constant;
    for (const LinearTerm& t : f.terms) {
      ConstBounds b = expr(t.atom);
      acc = add(acc, mul((t.coef > 0) == upper ? b.max : b.min, t.coef));
      if (!acc) return std::nullopt;
    }
    return acc;
  }

  // A ranged variable whose relevant bound is not a constant: replace it by that bound.
  // Returns nullopt when no term qualifies; the better of both ways otherwise.
  std::optional<Opt> substitute_symbolic_bound(const LinearForm& f, bool upper) {
    for (size_t i = 0; i < f.terms.size(); ++i) {
      const LinearTerm& t = f.terms[i];
      if (t.atom.kind() != ExprKind::kVar) continue;
      Var v(t.atom);
      auto it = ranges_.find(v);
      if (it == ranges_.end() || in_progress_.count(v.id())) continue;
      const Expr& bound = (t.coef > 0) == upper ? it->second.max : it->second.min;
      if (!bound.defined() || as_const_int(bound) || !is_int(bound.dtype()) ||
          bound.dtype() != f.dtype) {
        continue;
      }
      LinearForm rest = f;
      rest.terms.erase(rest.terms.begin() + static_cast<std::ptrdiff_t>(i));
      in_progress_.insert(v.id());
      Opt substituted = side(linear_add(rest, linear_form(bound), t.coef), upper);
      in_progress_.erase(v.id());
      Opt plain =
          add(side(rest, upper), mul(upper == (t.coef > 0) ? expr(v).max : expr(v).min, t.coef));
      return upper ? min_upper(substituted, plain) : max_lower(substituted, plain);
    }
    return std::nullopt;
  }

  // A min/max/select term with coefficient +-1 next to other terms: bound each branch plus the
  // rest of the sum. Returns nullopt when no term qualifies.
  std::optional<Opt> distribute(const LinearForm& f, bool upper) {
    if (f.terms.size() < 2) return std::nullopt;
    for (size_t i = 0; i < f.terms.size(); ++i) {
      const LinearTerm& t = f.terms[i];
      ExprKind k = t.atom.kind();
      if ((t.coef != 1 && t.coef != -1) ||
          (k != ExprKind::kMin && k != ExprKind::kMax && k != ExprKind::kSelect)) {
        continue;
      }
      Expr x, y;
      if (k == ExprKind::kSelect) {
        x = t.atom.as<SelectNode>()->true_value;
        y = t.atom.as<SelectNode>()->false_value;
      } else {
        x = t.atom.as<BinaryNode>()->a;
        y = t.atom.as<BinaryNode>()->b;
      }
      LinearForm rest = f;
      rest.terms.erase(rest.terms.begin() + static_cast<std::ptrdiff_t>(i));
      Opt bx = side(linear_add(rest, linear_form(x), t.coef), upper);
      Opt by = side(linear_add(rest, linear_form(y), t.coef), upper);
      // -min(x, y) == max(-x, -y) and -max(x, y) == min(-x, -y).
      bool is_min = (k == ExprKind::kMin) == (t.coef == 1);
      if (k == ExprKind::kSelect) return upper ? max_upper(bx, by) : min_lower(bx, by);
      if (is_min) return upper ? min_upper(bx, by) : min_lower(bx, by);
      return upper ? max_upper(bx, by) : max_lower(bx, by);
    }
    return std::nullopt;
  }

  const VarRanges& ranges_;
  // Searched by node identity only for lookup within this query, so output is unaffected.
  struct Known {
    Expr expr;
    ConstBounds bounds;
  };
  std::vector<Known> cache_;
  // The variables whose bounds are being computed (a stack a few deep).
  struct InProgress {
    std::vector<uint64_t> ids;
    size_t count(uint64_t id) const { return std::find(ids.begin(), ids.end(), id) != ids.end(); }
    void insert(uint64_t id) { ids.push_back(id); }
    void erase(uint64_t id) { ids.erase(std::find(ids.begin(), ids.end(), id)); }
  } in_progress_;
  int budget_ = kBudget;
};

}  // namespace

ConstBounds const_bounds(const Expr& e, const VarRanges& ranges) {
  if (!e.defined()) return {};
  BoundEval ev(ranges);
  return ev.expr(e);
}

namespace {

// A hash of e's top levels (structurally equal expressions hash alike; deeper differences are
// left to same_form): the clamps inject_npu_ops bounds nest deep, and hashing them whole cost
// more than the lookups it saved.
size_t shallow_hash(const Expr& e, int depth) {
  size_t h = static_cast<size_t>(e.kind()) * 31 + static_cast<size_t>(e.dtype());
  if (const int64_t* c = as_const_int(e)) return h * 1000003 ^ std::hash<int64_t>()(*c);
  if (const auto* v = e.as<VarNode>()) return h * 1000003 ^ std::hash<uint64_t>()(v->id);
  if (depth == 0) return h;
  if (const auto* b = e.as<BinaryNode>()) {
    return (h * 1000003 ^ shallow_hash(b->a, depth - 1)) * 1000003 ^ shallow_hash(b->b, depth - 1);
  }
  if (const auto* s = e.as<SelectNode>()) {
    h = h * 1000003 ^ shallow_hash(s->cond, depth - 1);
    h = h * 1000003 ^ shallow_hash(s->true_value, depth - 1);
    return h * 1000003 ^ shallow_hash(s->false_value, depth - 1);
  }
  if (const auto* c = e.as<CastNode>()) return h * 1000003 ^ shallow_hash(c->value, depth - 1);
  return h;
}

size_t form_hash(const LinearForm& f) {
  size_t h = std::hash<int64_t>()(f.constant) * 31 + static_cast<size_t>(f.dtype);
  for (const LinearTerm& t : f.terms) {
    h = h * 1000003 ^ shallow_hash(t.atom, 3);
    h = h * 31 + std::hash<int64_t>()(t.coef);
  }
  return h;
}

bool same_form(const LinearForm& a, const LinearForm& b) {
  if (a.dtype != b.dtype || a.constant != b.constant || a.terms.size() != b.terms.size()) {
    return false;
  }
  for (size_t i = 0; i < a.terms.size(); ++i) {
    if (a.terms[i].coef != b.terms[i].coef || !structural_equal(a.terms[i].atom, b.terms[i].atom))
      return false;
  }
  return true;
}

}  // namespace

ConstBounds const_bounds(const LinearForm& f, const VarRanges& ranges) {
  ArithMemo::Tables* memo = ArithMemo::current();
  if (!memo || !ranges.empty() || f.terms.empty()) {
    BoundEval ev(ranges);
    return ev.linear(f);
  }
  // With no ranges the bounds are a function of the form's structure (arith_memo.h).
  std::vector<ArithMemo::Bounds>& bucket = memo->bounds[form_hash(f)];
  for (const ArithMemo::Bounds& e : bucket) {
    if (same_form(e.form, f)) return e.bounds;
  }
  BoundEval ev(ranges);
  ConstBounds b = ev.linear(f);
  bucket.push_back({f, b});
  return b;
}

}  // namespace tessera
