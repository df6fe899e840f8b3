#include "compiler/arith/box_bounds.h"

#include <algorithm>

#include "compiler/arith/const_fold.h"

namespace tessera {
namespace {

using R = std::optional<BoxRange>;

// The range if it lies inside t's values (so no value wraps), else nullopt.
R fits(int64_t lo, int64_t hi, DType t) {
  if (lo > hi || !int_fits(lo, t) || !int_fits(hi, t)) return std::nullopt;
  return BoxRange{lo, hi};
}

R add(const BoxRange& a, const BoxRange& b, DType t) {
  int64_t lo, hi;
  if (__builtin_add_overflow(a.min, b.min, &lo) || __builtin_add_overflow(a.max, b.max, &hi))
    return std::nullopt;
  return fits(lo, hi, t);
}

R sub(const BoxRange& a, const BoxRange& b, DType t) {
  int64_t lo, hi;
  if (__builtin_sub_overflow(a.min, b.max, &lo) || __builtin_sub_overflow(a.max, b.min, &hi))
    return std::nullopt;
  return fits(lo, hi, t);
}

R mul(const BoxRange& a, const BoxRange& b, DType t) {
  int64_t p[4];
  if (__builtin_mul_overflow(a.min, b.min, &p[0]) || __builtin_mul_overflow(a.min, b.max, &p[1]) ||
      __builtin_mul_overflow(a.max, b.min, &p[2]) || __builtin_mul_overflow(a.max, b.max, &p[3]))
    return std::nullopt;
  return fits(*std::min_element(p, p + 4), *std::max_element(p, p + 4), t);
}

// Floor division by the constant c != 0: monotone in the dividend (increasing for c > 0,
// decreasing for c < 0).
R div(const BoxRange& a, int64_t c, DType t) {
  if (c == -1 && a.min == INT64_MIN) return std::nullopt;  // floor_div's wrapping case
  int64_t x = floor_div(a.min, c), y = floor_div(a.max, c);
  return fits(std::min(x, y), std::max(x, y), t);
}

// Floor modulo by the constant c != 0: x - floor(x / c) * c, which increases with x while the
// quotient stays the same; otherwise anything the divisor allows ([0, c - 1], or [c + 1, 0]).
R mod(const BoxRange& a, int64_t c, DType t) {
  if (c == -1 && a.min == INT64_MIN) return std::nullopt;
  if (floor_div(a.min, c) == floor_div(a.max, c))
    return fits(floor_mod(a.min, c), floor_mod(a.max, c), t);
  return c > 0 ? fits(0, c - 1, t) : fits(c + 1, 0, t);
}

// Whether e has a value at every point: no division or modulo but by a non-zero constant, and only
// the nodes listed (a select's condition is not bounded, only required to be defined).
bool defined_everywhere(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
      return true;
    case ExprKind::kCast:
      return defined_everywhere(e.as<CastNode>()->value);
    case ExprKind::kNot:
      return defined_everywhere(e.as<NotNode>()->a);
    case ExprKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      return defined_everywhere(s->cond) && defined_everywhere(s->true_value) &&
             defined_everywhere(s->false_value);
    }
    default:
      break;
  }
  const auto* b = e.as<BinaryNode>();
  if (!b) return false;  // calls, loads, reductions
  if (e.kind() == ExprKind::kDiv || e.kind() == ExprKind::kMod) {
    const auto* c = b->b.as<IntImmNode>();
    if (!c || wrap_int(c->value, b->b.dtype()) == 0 || !is_int(e.dtype())) return false;
  }
  return defined_everywhere(b->a) && defined_everywhere(b->b);
}

R bounds(const Expr& e, const Box& box) {
  DType t = e.dtype();
  if (!is_int(t)) return std::nullopt;           // bool, floats
  if (is_wide_unsigned(t)) return std::nullopt;  // wraps; a uint64 constant is a bit pattern
  switch (e.kind()) {
    case ExprKind::kIntImm: {
      int64_t v = wrap_int(e.as<IntImmNode>()->value, t);
      return BoxRange{v, v};
    }
    case ExprKind::kVar: {
      const BoxRange* r = box.find(e.as<VarNode>());
      return r ? fits(r->min, r->max, t) : std::nullopt;
    }
    case ExprKind::kCast: {
      const Expr& v = e.as<CastNode>()->value;
      R x = bounds(v, box);  // an integer operand (anything else has no bounds here)
      return x ? fits(x->min, x->max, t) : std::nullopt;
    }
    case ExprKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      if (s->true_value.dtype() != t || s->false_value.dtype() != t) return std::nullopt;
      if (!defined_everywhere(s->cond)) return std::nullopt;
      R x = bounds(s->true_value, box);
      if (!x) return std::nullopt;
      R y = bounds(s->false_value, box);
      if (!y) return std::nullopt;
      return BoxRange{std::min(x->min, y->min), std::max(x->max, y->max)};
    }
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax:
      break;
    default:
      return std::nullopt;  // comparisons, logic, calls, loads, reductions
  }
  const auto* b = e.as<BinaryNode>();
  if (b->a.dtype() != t || b->b.dtype() != t) return std::nullopt;
  R x = bounds(b->a, box);
  if (!x) return std::nullopt;
  R y = bounds(b->b, box);
  if (!y) return std::nullopt;
  switch (e.kind()) {
    case ExprKind::kAdd:
      return add(*x, *y, t);
    case ExprKind::kSub:
      return sub(*x, *y, t);
    case ExprKind::kMul:
      return mul(*x, *y, t);
    case ExprKind::kDiv:
      if (y->min != y->max || y->min == 0) return std::nullopt;
      return div(*x, y->min, t);
    case ExprKind::kMod:
      if (y->min != y->max || y->min == 0) return std::nullopt;
      return mod(*x, y->min, t);
    case ExprKind::kMin:
      return BoxRange{std::min(x->min, y->min), std::min(x->max, y->max)};
    case ExprKind::kMax:
      return BoxRange{std::max(x->min, y->min), std::max(x->max, y->max)};
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<BoxRange> box_bounds(const Expr& e, const Box& box) {
  if (!e.defined()) return std::nullopt;
  return bounds(e, box);
}

std::optional<BoxRange> box_bounds(const LinearForm& f, const Box& box) {
  DType t = f.dtype;
  if (!is_int(t)) return std::nullopt;
  R sum = BoxRange{f.constant, f.constant};
  for (const LinearTerm& term : f.terms) {
    if (!sum) return std::nullopt;
    R a = bounds(term.atom, box);
    if (!a) return std::nullopt;
    // In int64 (the coefficient and the sum so far may lie outside t; only the total must not).
    R scaled = mul(*a, BoxRange{term.coef, term.coef}, DType::kInt64);
    if (!scaled) return std::nullopt;
    sum = add(*sum, *scaled, DType::kInt64);
  }
  return sum ? fits(sum->min, sum->max, t) : std::nullopt;
}

namespace {

// Bounds of first, end and end - first by interval arithmetic. When end is first + a + b + ...
// (as a range's end usually is), first is bounded once and the additions on top of it give both
// end (exactly as bounding end itself would) and end - first (none of them wraps: each sum's
// bounds fit its type).
struct Plain {
  R first, end, size;
};
Plain plain_bounds(const Expr& first, const Expr& end, const Box& box) {
  Plain p;
  p.first = bounds(first, box);
  constexpr int kMaxAdds = 8;
  const BinaryNode* adds[kMaxAdds];
  int n = 0;
  Expr cur = end;
  while (!cur.same_as(first) && n < kMaxAdds && cur.kind() == ExprKind::kAdd) {
    adds[n++] = cur.as<BinaryNode>();
    cur = adds[n - 1]->a;
  }
  if (!cur.same_as(first)) {
    p.end = bounds(end, box);
    return p;
  }
  if (!p.first) return p;
  R sum = p.first;
  BoxRange size{0, 0};
  for (int i = n; i-- > 0;) {
    const BinaryNode* op = adds[i];
    if (!is_int(op->dtype) || op->a.dtype() != op->dtype || op->b.dtype() != op->dtype) return p;
    R x = bounds(op->b, box);
    if (!x) return p;
    sum = add(*sum, *x, op->dtype);
    if (!sum || __builtin_add_overflow(size.min, x->min, &size.min) ||
        __builtin_add_overflow(size.max, x->max, &size.max))
      return p;
  }
  p.end = sum;
  p.size = size;
  return p;
}

struct Forms {
  LinearForm first, end, size;
};

// One piece of box_range_within: interval arithmetic on the expressions, then (with forms) on the
// linear forms where that was not enough.
bool proves(const Expr& first_e, const Expr& end_e, int64_t limit, const Box& box,
            const Forms* forms) {
  Plain p = plain_bounds(first_e, end_e, box);
  R first = p.first, end = p.end, size = p.size;
  auto proved = [&] {
    return first && end && size && first->min >= 0 && end->max <= limit && size->min >= 0;
  };
  if (proved() || !forms) return proved();
  if (!first || first->min < 0) first = box_bounds(forms->first, box);
  if (!end || end->max > limit) end = box_bounds(forms->end, box);
  if (first && end && (!size || size->min < 0)) {
    // The difference's form is exact modulo the type's width, so it bounds end - first itself
    // when that cannot leave the type (first's and end's own bounds say so).
    DType t = forms->size.dtype;
    int64_t lo, hi;
    bool inside = !__builtin_sub_overflow(end->min, first->max, &lo) &&
                  !__builtin_sub_overflow(end->max, first->min, &hi) && int_fits(lo, t) &&
                  int_fits(hi, t);
    size = inside ? box_bounds(forms->size, box) : std::nullopt;
  }
  return proved();
}

}  // namespace

bool box_range_within(const Expr& first, const Expr& end, int64_t limit, const Box& box) {
  if (!first.defined() || !end.defined() || first.dtype() != end.dtype() || !is_int(first.dtype()))
    return false;
  if (proves(first, end, limit, box, nullptr)) return true;
  // A form drops atoms that cancel, which may be undefined somewhere (x / y with y = 0).
  if (!defined_everywhere(first) || !defined_everywhere(end)) return false;
  Forms forms{linear_form(first), linear_form(end), {}};
  forms.size = linear_add(forms.end, forms.first, -1);
  return proves(first, end, limit, box, &forms);
}

}  // namespace tessera
