#include "compiler/arith/rewrite.h"

#include <numeric>
#include <optional>

#include "compiler/arith/const_bounds.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/linear_form.h"
#include "compiler/ir/equal.h"
#include "compiler/ir/ir_visitor.h"

namespace tessera {

namespace {

// Index arithmetic, which the simplifier treats as mathematical integers (see the header): int32
// or int64 computed from variables and constants only. A value read from memory (an int32
// accumulator, say) may really wrap, so expressions with loads or calls get only the rules that
// are exact under wrapping.
// Does e read memory or call anything? (A direct walk that stops at the first: the simplifier
// asks this at every node.)
bool reads_data(const Expr& e) {
  if (!e.defined()) return false;
  switch (e.kind()) {
    case ExprKind::kBufferLoad:
    case ExprKind::kProducerLoad:
    case ExprKind::kCall:
    case ExprKind::kReduce:
      return true;
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
      return false;
    case ExprKind::kCast:
      return reads_data(e.as<CastNode>()->value);
    case ExprKind::kNot:
      return reads_data(e.as<NotNode>()->a);
    case ExprKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      return reads_data(s->cond) || reads_data(s->true_value) || reads_data(s->false_value);
    }
    default: {
      const auto* b = e.as<BinaryNode>();
      return b && (reads_data(b->a) || reads_data(b->b));
    }
  }
}
bool is_index_math(const Expr& e) {
  if (e.dtype() != DType::kInt32 && e.dtype() != DType::kInt64) return false;
  return remembered_index_sum(e) || !reads_data(e);
}
bool exact(const Expr& a, const Expr& b) { return is_index_math(a) && is_index_math(b); }
bool is_compare(ExprKind k) { return k >= ExprKind::kEQ && k <= ExprKind::kGE; }

// a op b  <=>  b mirror(op) a
ExprKind mirror(ExprKind k) {
  switch (k) {
    case ExprKind::kLT:
      return ExprKind::kGT;
    case ExprKind::kLE:
      return ExprKind::kGE;
    case ExprKind::kGT:
      return ExprKind::kLT;
    case ExprKind::kGE:
      return ExprKind::kLE;
    default:
      return k;
  }
}
// !(a op b)  <=>  a negate(op) b, on integers
ExprKind negate(ExprKind k) {
  switch (k) {
    case ExprKind::kEQ:
      return ExprKind::kNE;
    case ExprKind::kNE:
      return ExprKind::kEQ;
    case ExprKind::kLT:
      return ExprKind::kGE;
    case ExprKind::kLE:
      return ExprKind::kGT;
    case ExprKind::kGT:
      return ExprKind::kLE;
    default:
      return ExprKind::kLT;  // kGE
  }
}

// Decides `d op 0` from d's bounds, where d = a - b.
std::optional<bool> decide(ExprKind k, const ConstBounds& d) {
  bool neg = d.max && *d.max < 0, nonpos = d.max && *d.max <= 0;
  bool pos = d.min && *d.min > 0, nonneg = d.min && *d.min >= 0;
  switch (k) {
    case ExprKind::kLT:
      return neg ? std::optional<bool>(true) : nonneg ? std::optional<bool>(false) : std::nullopt;
    case ExprKind::kLE:
      return nonpos ? std::optional<bool>(true) : pos ? std::optional<bool>(false) : std::nullopt;
    case ExprKind::kGT:
      return pos ? std::optional<bool>(true) : nonpos ? std::optional<bool>(false) : std::nullopt;
    case ExprKind::kGE:
      return nonneg ? std::optional<bool>(true) : neg ? std::optional<bool>(false) : std::nullopt;
    case ExprKind::kEQ:
    case ExprKind::kNE: {
      std::optional<bool> eq;
      if (nonneg && nonpos) eq = true;
      if (pos || neg) eq = false;
      if (!eq) return std::nullopt;
      return k == ExprKind::kEQ ? *eq : !*eq;
    }
    default:
      return std::nullopt;
  }
}

// Bounds of a - b: from their difference's canonical form when the type is exact, else from each
// operand's own bounds (which are exact about wrapping).
ConstBounds difference_bounds(const Expr& a, const Expr& b, const VarRanges& ranges) {
  if (exact(a, b)) return const_bounds(linear_sum(a, b, -1), ranges);
  ConstBounds x = const_bounds(a, ranges), y = const_bounds(b, ranges);
  ConstBounds d;
  int64_t v;
  if (x.min && y.max && !__builtin_sub_overflow(*x.min, *y.max, &v)) d.min = v;
  if (x.max && y.min && !__builtin_sub_overflow(*x.max, *y.min, &v)) d.max = v;
  return d;
}

LinearForm single(const Expr& atom) { return linear_form(atom); }

uint64_t uabs(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }
// -v modulo 2^64 (defined for INT64_MIN), then wrapped to t like every coefficient.
int64_t neg_wrap(int64_t v, DType t) {
  return wrap_coef(static_cast<int64_t>(0 - static_cast<uint64_t>(v)), t);
}

// gcd of c (> 0) and every coefficient of f (not its constant): at most c.
int64_t gcd_of_terms(const LinearForm& f, int64_t c) {
  uint64_t g = uabs(c);
  for (const LinearTerm& t : f.terms) g = std::gcd(g, uabs(t.coef));
  return static_cast<int64_t>(g);
}

// For f = g*y + k with g dividing every coefficient: y + floor(k / g).
LinearForm divide_terms(const LinearForm& f, int64_t g) {
  LinearForm r = f;
  for (LinearTerm& t : r.terms) t.coef /= g;
  r.constant = floor_div(f.constant, g);
  return r;
}

Expr div_const(const LinearForm& f, int64_t c, const VarRanges& ranges);
Expr mod_const(const LinearForm& f, int64_t c, const VarRanges& ranges);

// f / c as an atom, merging (x / c1) / c2 into x / (c1 * c2).
Expr div_atom(const LinearForm& f, int64_t c, const VarRanges& ranges) {
  DType t = f.dtype;
  if (f.terms.size() == 1 && f.constant == 0 && f.terms[0].coef == 1 &&
      f.terms[0].atom.kind() == ExprKind::kDiv) {
    const auto* op = f.terms[0].atom.as<BinaryNode>();
    const int64_t* c1 = as_const_int(op->b);
    int64_t prod;
    if (c1 && *c1 > 0 && !__builtin_mul_overflow(*c1, c, &prod) && prod <= int_max_of(t)) {
      return div_const(linear_form(op->a), prod, ranges);
    }
  }
  return make_binary(ExprKind::kDiv, linear_form_to_expr(f), make_int(c, t));
}

// floor(f / c) for c > 0 on an exact type: f = c*q + r; q passes through, r / c is decided by r's
// bounds when it can be.
Expr div_const(const LinearForm& f0, int64_t c, const VarRanges& ranges) {
  LinearForm f = f0;
  int64_t g = gcd_of_terms(f, c);
  if (g > 1) {
    // f = g*y + k: floor(f / (g*c')) == floor(floor(f / g) / c') == floor((y + floor(k/g)) / c').
    f = divide_terms(f, g);
    c /= g;
  }
  if (c == 1) return linear_form_to_expr(f);
  LinearForm q = linear_constant(floor_div(f.constant, c), f.dtype);
  LinearForm r = linear_constant(floor_mod(f.constant, c), f.dtype);
  for (const LinearTerm& t : f.terms) {
    if (t.coef % c == 0) {
      q.terms.push_back({t.atom, t.coef / c});
    } else {
      r.terms.push_back(t);
    }
  }
  ConstBounds rb = const_bounds(r, ranges);
  if (rb.min && rb.max && floor_div(*rb.min, c) == floor_div(*rb.max, c)) {
    return linear_form_to_expr(linear_add(q, linear_constant(floor_div(*rb.min, c), f.dtype)));
  }
  if (!q.is_constant()) return linear_form_to_expr(linear_add(q, single(div_atom(r, c, ranges))));
  return div_atom(f, c, ranges);
}

// floor_mod(f, c) for c > 0 on an exact type: multiples of c drop out; r % c is decided by r's
// bounds when it can be; common factors come out: (g*y + k) % (g*c') == g*((y + k/g) % c') + k%g.
Expr mod_const(const LinearForm& f, int64_t c, const VarRanges& ranges) {
  DType t = f.dtype;
  LinearForm r = linear_constant(floor_mod(f.constant, c), t);
  for (const LinearTerm& term : f.terms) {
    if (term.coef % c != 0) r.terms.push_back(term);
  }
  ConstBounds rb = const_bounds(r, ranges);
  if (rb.min && rb.max && floor_div(*rb.min, c) == floor_div(*rb.max, c)) {
    return linear_form_to_expr(linear_add(r, linear_constant(floor_div(*rb.min, c) * c, t), -1));
  }
  int64_t g = gcd_of_terms(r, c);
  if (g > 1) {
    // r = g*y + k, c = g*c': r mod c == g * ((y + floor(k/g)) mod c') + k mod g.
    Expr inner = mod_const(divide_terms(r, g), c / g, ranges);
    return linear_form_to_expr(
        linear_add(linear_scale(single(inner), g), linear_constant(floor_mod(r.constant, g), t)));
  }
  if (r.terms.size() == 1 && r.constant == 0 && r.terms[0].coef == 1 &&
      r.terms[0].atom.kind() == ExprKind::kMod) {  // (x % (c*k)) % c == x % c
    const auto* op = r.terms[0].atom.as<BinaryNode>();
    const int64_t* c1 = as_const_int(op->b);
    if (c1 && *c1 > 0 && *c1 % c == 0) return mod_const(linear_form(op->a), c, ranges);
  }
  return make_binary(ExprKind::kMod, linear_form_to_expr(r), make_int(c, t));
}

Expr rewrite_div_mod(ExprKind k, const Expr& a, const Expr& b, const VarRanges& ranges) {
  DType t = a.dtype();
  bool is_div = k == ExprKind::kDiv;
  if (const int64_t* c = as_const_int(b)) {
    int64_t cv = wrap_int(*c, t);
    if (cv == 1) return is_div ? a : make_int(0, t);
    if (cv > 0 && is_index_math(a)) {
      return is_div ? div_const(linear_form(a), cv, ranges) : mod_const(linear_form(a), cv, ranges);
    }
    ConstBounds ba = const_bounds(a, ranges);
    if (cv != 0 && ba.min && ba.max && floor_div(*ba.min, cv) == floor_div(*ba.max, cv)) {
      int64_t m = floor_div(*ba.min, cv);
      if (is_div) return make_int(m, t);
      if (m == 0) return a;
    }
  } else {
    ConstBounds ba = const_bounds(a, ranges), bb = const_bounds(b, ranges);
    if (ba.min && *ba.min >= 0 && ba.max && bb.min && *ba.max < *bb.min) {
      return is_div ? make_int(0, t) : a;
    }
  }
  return make_binary(k, a, b);
}

Expr rewrite_min_max(ExprKind k, const Expr& a0, const Expr& b0, const VarRanges& ranges) {
  bool is_min = k == ExprKind::kMin;
  if (!is_int(a0.dtype())) return make_binary(k, a0, b0);
  if (structural_equal(a0, b0)) return a0;
  bool swap = as_const_int(a0) && !as_const_int(b0);  // constants on the right
  const Expr& a = swap ? b0 : a0;
  const Expr& b = swap ? a0 : b0;
  ConstBounds d = difference_bounds(a, b, ranges);
  if (d.max && *d.max <= 0) return is_min ? a : b;
  if (d.min && *d.min >= 0) return is_min ? b : a;
  const int64_t* cb = as_const_int(b);
  if (cb && a.kind() == k) {  // min(min(x, c1), c2) == min(x, min(c1, c2))
    const auto* inner = a.as<BinaryNode>();
    if (const int64_t* c1 = as_const_int(inner->b)) {
      int64_t c = is_min ? std::min(*c1, *cb) : std::max(*c1, *cb);
      return make_binary(k, inner->a, make_int(c, a.dtype()));
    }
  }
  if (cb && a.kind() == (is_min ? ExprKind::kMax : ExprKind::kMin)) {
    // min(max(x, c1), c2) == c2 when c1 >= c2; max(min(x, c1), c2) == c2 when c1 <= c2.
    const int64_t* c1 = as_const_int(a.as<BinaryNode>()->b);
    if (c1 && (is_min ? *c1 >= *cb : *c1 <= *cb)) return b;
  }
  return make_binary(k, a, b);
}

Expr rewrite_compare(ExprKind k, const Expr& a, const Expr& b, const VarRanges& ranges) {
  DType t = a.dtype();
  if (!is_int(t) && t != DType::kBool) return make_binary(k, a, b);
  if (structural_equal(a, b)) {
    return make_bool(k == ExprKind::kEQ || k == ExprKind::kLE || k == ExprKind::kGE);
  }
  if (t == DType::kBool) return make_binary(k, a, b);
  if (auto r = decide(k, difference_bounds(a, b, ranges))) return make_bool(*r);
  if (!exact(a, b)) return make_binary(k, a, b);
  // a - b == P - N + c with P, N sums of positive terms: a op b <=> P op N - c.
  LinearForm d = linear_sum(a, b, -1);
  LinearForm p = linear_constant(0, t), n = linear_constant(neg_wrap(d.constant, t), t);
  for (const LinearTerm& term : d.terms) {
    if (term.coef > 0) {
      p.terms.push_back(term);
    } else {
      n.terms.push_back({term.atom, neg_wrap(term.coef, t)});
    }
  }
  if (p.is_constant()) {  // 0 op N - c  <=>  N mirror(op) c
    n.constant = 0;
    return make_binary(mirror(k), linear_form_to_expr(n), make_int(d.constant, t));
  }
  return make_binary(k, linear_form_to_expr(p), linear_form_to_expr(n));
}

// Integer data arithmetic (narrow types, or anything with loads) keeps its shape, which later
// passes pattern-match (acc + a*b is a MAC): only identities apply.
Expr rewrite_data_arith(ExprKind k, const Expr& a, const Expr& b) {
  DType t = a.dtype();
  auto is = [&](const Expr& e, int64_t v) {
    const int64_t* c = as_const_int(e);
    return c && wrap_int(*c, t) == v;
  };
  switch (k) {
    case ExprKind::kAdd:
      if (is(b, 0)) return a;
      if (is(a, 0)) return b;
      break;
    case ExprKind::kSub:
      if (is(b, 0)) return a;
      if (structural_equal(a, b)) return make_int(0, t);
      break;
    default:  // kMul
      if (is(b, 1)) return a;
      if (is(a, 1)) return b;
      if (is(a, 0) || is(b, 0)) return make_int(0, t);
      break;
  }
  return make_binary(k, a, b);
}

// uint32 / uint64 (wrapping modulo 2^n, uint64 constants stored as bit patterns): constants fold
// with unsigned semantics (const_fold), and beyond that only identities that hold for every
// value: x+0, x-0, x-x, x*1, x*0, x/1, x%1, min(x, x), x == x. No bounds, no linear forms: those
// read int64 values as signed numbers.
Expr rewrite_wide_unsigned(ExprKind k, const Expr& a, const Expr& b) {
  switch (k) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
      return rewrite_data_arith(k, a, b);
    case ExprKind::kDiv:
    case ExprKind::kMod:
      if (is_const_int(b, 1)) return k == ExprKind::kDiv ? a : make_int(0, a.dtype());
      break;
    case ExprKind::kMin:
    case ExprKind::kMax:
      if (structural_equal(a, b)) return a;
      break;
    default:
      if (is_compare(k) && structural_equal(a, b)) {
        return make_bool(k == ExprKind::kEQ || k == ExprKind::kLE || k == ExprKind::kGE);
      }
      break;
  }
  return make_binary(k, a, b);
}

Expr rewrite_logical(ExprKind k, const Expr& a, const Expr& b) {
  bool is_and = k == ExprKind::kAnd;
  const int64_t *ca = as_const_int(a), *cb = as_const_int(b);
  // x && true == x, x && false == false; x || false == x, x || true == true.
  if (ca) return (*ca != 0) == is_and ? b : a;
  if (cb) return (*cb != 0) == is_and ? a : b;
  if (structural_equal(a, b)) return a;
  const auto *na = a.as<NotNode>(), *nb = b.as<NotNode>();
  if ((na && structural_equal(na->a, b)) || (nb && structural_equal(nb->a, a))) {
    return make_bool(!is_and);  // x && !x, x || !x
  }
  return make_binary(k, a, b);
}

}  // namespace

Expr rewrite_binary(ExprKind k, const Expr& a, const Expr& b, const VarRanges& ranges) {
  if (Expr folded = const_fold(k, a, b); folded.defined()) return folded;
  if (a.dtype() != b.dtype()) return make_binary(k, a, b);
  DType t = a.dtype();
  if (is_wide_unsigned(t)) return rewrite_wide_unsigned(k, a, b);
  switch (k) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul: {
      if (!is_int(t)) return make_binary(k, a, b);
      if (!exact(a, b)) return rewrite_data_arith(k, a, b);
      if (k == ExprKind::kMul) return linear_product_expr(a, b);
      return linear_sum_expr(a, b, k == ExprKind::kAdd ? 1 : -1);
    }
    case ExprKind::kDiv:
    case ExprKind::kMod:
      return is_int(t) ? rewrite_div_mod(k, a, b, ranges) : make_binary(k, a, b);
    case ExprKind::kMin:
    case ExprKind::kMax:
      return rewrite_min_max(k, a, b, ranges);
    case ExprKind::kAnd:
    case ExprKind::kOr:
      return rewrite_logical(k, a, b);
    default:
      return is_compare(k) ? rewrite_compare(k, a, b, ranges) : make_binary(k, a, b);
  }
}

Expr rewrite_not(const Expr& a) {
  if (Expr folded = const_fold_not(a); folded.defined()) return folded;
  if (const auto* n = a.as<NotNode>()) return n->a;
  if (is_compare(a.kind())) {
    const auto* op = a.as<BinaryNode>();
    // On floats only == and != invert exactly (NaN makes !(a < b) differ from a >= b).
    if (!is_float(op->a.dtype()) || a.kind() == ExprKind::kEQ || a.kind() == ExprKind::kNE) {
      return make_binary(negate(a.kind()), op->a, op->b);
    }
  }
  return make_not(a);
}

Expr rewrite_select(const Expr& cond, const Expr& t, const Expr& f) {
  if (const int64_t* c = as_const_int(cond)) return *c ? t : f;
  if (structural_equal(t, f)) return t;  // both branches are evaluated anyway
  if (const auto* n = cond.as<NotNode>()) return make_select(n->a, f, t);
  return make_select(cond, t, f);
}

Expr rewrite_cast(DType t, const Expr& v) {
  if (Expr folded = const_fold_cast(t, v); folded.defined()) return folded;
  if (v.dtype() == t) return v;
  // t(s(x)) == x when x has type t and s holds every value of t (a widening round trip).
  if (const auto* inner = v.as<CastNode>()) {
    DType s = v.dtype(), xt = inner->value.dtype();
    if (xt == t && is_int(s) && is_int(t) && int_holds(s, t)) {
      return inner->value;
    }
  }
  return make_cast(t, v);
}

}  // namespace tessera
