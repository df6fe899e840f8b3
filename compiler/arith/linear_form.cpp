#include "compiler/arith/linear_form.h"

#include <algorithm>
#include <utility>

#include "compiler/arith/arith_memo.h"
#include "compiler/arith/const_fold.h"
#include "compiler/ir/equal.h"
#include "compiler/ir/substitute.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {
inline int64_t wrap(int64_t v, DType t) {
  return t == DType::kUInt8 ? static_cast<int8_t>(static_cast<uint8_t>(v)) : wrap_int(v, t);
}
}  // namespace

int64_t wrap_coef(int64_t v, DType t) { return wrap(v, t); }

namespace {

int64_t mul_wrap(int64_t a, int64_t b, DType t) {
  return wrap(static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)), t);
}
int64_t add_wrap(int64_t a, int64_t b, DType t) {
  return wrap(static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)), t);
}

// (x / c) * (k * c) + (x % c) * k == x * k: finds one such pair and rewrites it; false if none.
bool merge_div_mod_pair(LinearForm* f);
bool congruent(const Expr& x, const Expr& y, int64_t c);

// Stable sort of the terms by atom: insertion sort for the few terms a form has (no buffer to
// allocate, nothing to do on sorted input), std::stable_sort beyond. Both give the one stable
// order.
void sort_terms(LinearTerms* terms) {
  LinearTerms& v = *terms;
  auto less = [](const LinearTerm& x, const LinearTerm& y) {
    return structural_compare(x.atom, y.atom) < 0;
  };
  if (v.size() > 16) return std::stable_sort(v.begin(), v.end(), less);
  for (size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    LinearTerm t = std::move(v[i]);
    size_t j = i;
    for (; j > 0 && less(t, v[j - 1]); --j) v[j] = std::move(v[j - 1]);
    v[j] = std::move(t);
  }
}

// Normalisations that stopped at the round limit with a div/mod pair still to merge (their form
// is not a fixed point of linear_form . linear_form_to_expr, so it is never remembered).
thread_local uint64_t unsettled_normalizations = 0;

// Sorts terms, merges equal atoms, drops zero coefficients, merges div/mod pairs.
void normalize(LinearForm* f) {
  for (int round = 0; round < 8; ++round) {
    LinearTerms& terms = f->terms;
    // Already in strict order (a form built from canonical ones mostly is): no atoms to merge, so
    // only the coefficients are wrapped and the zero ones dropped, as the general path below does.
    bool strict = true;
    for (size_t i = 1; i < terms.size() && strict; ++i) {
      strict = structural_compare(terms[i - 1].atom, terms[i].atom) < 0;
    }
    if (strict) {
      size_t w = 0;
      for (size_t i = 0; i < terms.size(); ++i) {
        int64_t c = wrap(terms[i].coef, f->dtype);
        if (c == 0) continue;
        if (w != i) terms[w] = std::move(terms[i]);
        terms[w++].coef = c;
      }
      terms.resize(w);
      f->constant = wrap(f->constant, f->dtype);
      if (!merge_div_mod_pair(f)) return;
      continue;
    }
    sort_terms(&terms);
    // Merged in place: terms[0, w) are the distinct atoms so far.
    size_t w = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      // Equal atoms compare equal, so they are adjacent up to rare identity-only ties: look back
      // across the run of ties.
      bool merged = false;
      for (size_t j = w; j-- > 0;) {
        if (structural_compare(terms[j].atom, terms[i].atom) != 0) break;
        if (structural_equal(terms[j].atom, terms[i].atom)) {
          terms[j].coef = add_wrap(terms[j].coef, terms[i].coef, f->dtype);
          merged = true;
          break;
        }
      }
      if (merged) continue;
      if (w != i) terms[w] = std::move(terms[i]);
      terms[w].coef = wrap(terms[w].coef, f->dtype);
      ++w;
    }
    terms.resize(w);
    terms.erase(
        std::remove_if(terms.begin(), terms.end(), [](const LinearTerm& t) { return t.coef == 0; }),
        terms.end());
    f->constant = wrap(f->constant, f->dtype);
    if (!merge_div_mod_pair(f)) return;
  }
  ++unsettled_normalizations;
}

const int64_t* const_divisor(const Expr& e, ExprKind k, Expr* numerator) {
  if (e.kind() != k) return nullptr;
  const auto* op = e.as<BinaryNode>();
  const int64_t* c = as_const_int(op->b);
  if (!c || *c == 0) return nullptr;
  *numerator = op->a;
  return c;
}

// y = x + c*m for a constant m, so that x % c == y % c (the simplifier reduces the constant of a
// modulo's numerator, but not of a division's).
bool congruent(const Expr& x, const Expr& y, int64_t c) {
  if (structural_equal(x, y)) return true;
  LinearForm d = linear_add(linear_form(x), linear_form(y), -1);
  return d.is_constant() && d.constant % c == 0;
}

// Rewrites (y / c) * (k * c) + (x % c) * k, x congruent to y, as y * k.
bool merge_div_mod_pair(LinearForm* f) {
  for (size_t i = 0; i < f->terms.size(); ++i) {
    Expr x;
    const int64_t* c = const_divisor(f->terms[i].atom, ExprKind::kMod, &x);
    if (!c) continue;
    int64_t k = f->terms[i].coef;
    for (size_t j = 0; j < f->terms.size(); ++j) {
      Expr y;
      const int64_t* d = const_divisor(f->terms[j].atom, ExprKind::kDiv, &y);
      if (!d || *d != *c || f->terms[j].coef != mul_wrap(k, *c, f->dtype) || !congruent(x, y, *c)) {
        continue;
      }
      LinearForm rest;
      rest.dtype = f->dtype;
      rest.constant = f->constant;
      for (size_t t = 0; t < f->terms.size(); ++t) {
        if (t != i && t != j) rest.terms.push_back(f->terms[t]);
      }
      LinearForm xs = linear_scale(linear_form(y), k);
      rest.terms.insert(rest.terms.end(), xs.terms.begin(), xs.terms.end());
      rest.constant = add_wrap(rest.constant, xs.constant, f->dtype);
      *f = std::move(rest);
      return true;
    }
  }
  return false;
}

LinearForm single(const Expr& atom, int64_t coef) {
  LinearForm f;
  f.dtype = atom.dtype();
  f.terms.push_back({atom, wrap(coef, atom.dtype())});
  return f;
}

// The product of two non-constant forms: one atom. A product of two single terms keeps the
// coefficients outside, so (x*2)*y and (x*y)*2 agree; the factors are ordered so x*y == y*x.
LinearForm product(const LinearForm& a, const LinearForm& b) {
  Expr fa, fb;
  int64_t coef = 1;
  if (a.terms.size() == 1 && a.constant == 0 && b.terms.size() == 1 && b.constant == 0) {
    fa = a.terms[0].atom;
    fb = b.terms[0].atom;
    coef = mul_wrap(a.terms[0].coef, b.terms[0].coef, a.dtype);
  } else {
    fa = linear_form_to_expr(a);
    fb = linear_form_to_expr(b);
  }
  if (structural_compare(fb, fa) < 0) std::swap(fa, fb);
  return single(make_binary(ExprKind::kMul, fa, fb), coef);
}

// Appends scale * e's terms and constant to *out, unnormalised, in the order a recursive parse
// meets them (a sum's terms are concatenated; its coefficients and constant are wrapped later by
// normalize, and wrapping is a ring homomorphism, so where it happens does not change the form).
// A product by a constant is normalised on its own before it is scaled, and a product of two
// non-constant forms is one atom, as they always were.
void parse_into(const Expr& e, int64_t scale, LinearForm* out) {
  DType t = out->dtype;
  if (const int64_t* c = as_const_int(e)) {
    out->constant = add_wrap(out->constant, mul_wrap(wrap(*c, e.dtype()), scale, t), t);
    return;
  }
  const auto* op = e.as<BinaryNode>();
  if (op && (e.kind() == ExprKind::kAdd || e.kind() == ExprKind::kSub)) {
    parse_into(op->a, scale, out);
    parse_into(op->b, e.kind() == ExprKind::kAdd ? scale : mul_wrap(scale, -1, t), out);
    return;
  }
  if (op && e.kind() == ExprKind::kMul) {
    // atom * c (or c * atom) with an atom that is not itself a sum or product: the scaled form is
    // the one term atom * c (dropped when c wraps to 0), so no form is built for it.
    const int64_t* ca = as_const_int(op->a);
    const int64_t* cb = as_const_int(op->b);
    const Expr* atom = ca ? &op->b : cb ? &op->a : nullptr;
    if (atom && !as_const_int(*atom)) {
      ExprKind k = atom->kind();
      if (k != ExprKind::kAdd && k != ExprKind::kSub && k != ExprKind::kMul) {
        int64_t coef = wrap(ca ? *ca : *cb, e.dtype());
        if (coef != 0) out->terms.push_back({*atom, mul_wrap(coef, scale, t)});
        return;
      }
    }
    LinearForm a = linear_constant(0, t), b = linear_constant(0, t);
    parse_into(op->a, 1, &a);
    parse_into(op->b, 1, &b);
    LinearForm m;
    if (a.is_constant()) {
      m = linear_scale(b, a.constant);
    } else if (b.is_constant()) {
      m = linear_scale(a, b.constant);
    } else {
      normalize(&a);
      normalize(&b);
      m = product(a, b);
    }
    for (const LinearTerm& x : m.terms) out->terms.push_back({x.atom, mul_wrap(x.coef, scale, t)});
    out->constant = add_wrap(out->constant, mul_wrap(m.constant, scale, t), t);
    return;
  }
  out->terms.push_back({e, scale});
}

}  // namespace

namespace {

// The remembered form of e (an expression linear_sum_expr or linear_product_expr built), or
// nullptr. Keyed by address for lookup only: the entry holds e, so the address is not reused.
ArithMemo::Form* remembered(const Expr& e) {
  ArithMemo::Tables* memo = ArithMemo::current();
  if (!memo || memo->forms.empty()) return nullptr;
  auto a = reinterpret_cast<uintptr_t>(e.get());
  ArithMemo::Form& slot = memo->forms[((a >> 4) ^ (a >> 13)) & (memo->forms.size() - 1)];
  return slot.expr.same_as(e) ? &slot : nullptr;
}

void remember(const Expr& e, LinearForm f) {
  ArithMemo::Tables* memo = ArithMemo::current();
  if (!memo) return;
  if (memo->forms.empty()) memo->forms.resize(ArithMemo::kForms);
  auto a = reinterpret_cast<uintptr_t>(e.get());
  ArithMemo::Form& slot = memo->forms[((a >> 4) ^ (a >> 13)) & (memo->forms.size() - 1)];
  slot.expr = e;
  slot.form = std::move(f);
}

LinearForm parse_form(const Expr& e) {
  LinearForm f = linear_constant(0, e.dtype());
  parse_into(e, 1, &f);
  normalize(&f);
  return f;
}

// The expression of f (normalised from index arithmetic, which reads no memory: its atoms have no
// structural ties, so parsing the expression sorts its terms back into f's order), remembered as
// f when every normalisation since `unsettled_before` settled (and it has no product atom).
Expr remembered_expr(LinearForm f, uint64_t unsettled_before) {
  Expr e = linear_form_to_expr(f);
  // A product atom is not remembered: parsing makes a new node for it, and interval evaluation
  // compares nodes by identity (interval.cpp), so the remembered form must hold the very atoms a
  // parse would give.
  bool products = false;
  for (const LinearTerm& t : f.terms) products |= t.atom.kind() == ExprKind::kMul;
  if (!products && unsettled_normalizations == unsettled_before) remember(e, std::move(f));
  return e;
}

}  // namespace

LinearForm linear_form(const Expr& e) {
  TESSERA_ICHECK(is_int(e.dtype()), "linear form of a ", dtype_name(e.dtype()), " expression");
  if (const ArithMemo::Form* r = remembered(e)) {
#ifdef TESSERA_CHECK_FORM_MEMO
    LinearForm p = parse_form(e);
    bool same = p.dtype == r->form.dtype && p.constant == r->form.constant &&
                p.terms.size() == r->form.terms.size();
    for (size_t i = 0; same && i < p.terms.size(); ++i) {
      same = p.terms[i].coef == r->form.terms[i].coef &&
             p.terms[i].atom.same_as(r->form.terms[i].atom);
    }
    TESSERA_ICHECK(same, "remembered linear form differs from the parsed one");
#endif
    return r->form;
  }
  return parse_form(e);
}

namespace {
// linear_form(e), read in place when it is remembered (no copy); else parsed into *storage.
const LinearForm& form_of(const Expr& e, LinearForm* storage) {
#ifndef TESSERA_CHECK_FORM_MEMO
  if (const ArithMemo::Form* r = remembered(e)) return r->form;
#endif
  *storage = linear_form(e);
  return *storage;
}
}  // namespace

bool remembered_index_sum(const Expr& e) { return remembered(e) != nullptr; }

LinearForm linear_sum(const Expr& a, const Expr& b, int64_t scale) {
  LinearForm fa, fb;
  return linear_add(form_of(a, &fa), form_of(b, &fb), scale);
}

Expr linear_sum_expr(const Expr& a, const Expr& b, int64_t scale) {
  uint64_t before = unsettled_normalizations;
  return remembered_expr(linear_sum(a, b, scale), before);
}

Expr linear_product_expr(const Expr& a, const Expr& b) {
  uint64_t before = unsettled_normalizations;
  return remembered_expr(linear_form(make_binary(ExprKind::kMul, a, b)), before);
}

LinearForm linear_constant(int64_t c, DType t) {
  LinearForm f;
  f.dtype = t;
  f.constant = wrap(c, t);
  return f;
}

LinearForm linear_add(const LinearForm& a, const LinearForm& b, int64_t scale) {
  TESSERA_ICHECK(a.dtype == b.dtype, "adding forms of ", dtype_name(a.dtype), " and ",
                 dtype_name(b.dtype));
  LinearForm f;
  f.dtype = a.dtype;
  f.constant = a.constant;
  f.terms.reserve(a.terms.size() + b.terms.size());
  f.terms.insert(f.terms.end(), a.terms.begin(), a.terms.end());
  for (const LinearTerm& t : b.terms) f.terms.push_back({t.atom, mul_wrap(t.coef, scale, a.dtype)});
  f.constant = add_wrap(f.constant, mul_wrap(b.constant, scale, a.dtype), a.dtype);
  normalize(&f);
  return f;
}

LinearForm linear_scale(const LinearForm& a, int64_t scale) {
  LinearForm f = a;
  for (LinearTerm& t : f.terms) t.coef = mul_wrap(t.coef, scale, a.dtype);
  f.constant = mul_wrap(f.constant, scale, a.dtype);
  normalize(&f);
  return f;
}

namespace {

Expr term_expr(const Expr& atom, int64_t coef, DType t) {
  return coef == 1 ? atom : make_binary(ExprKind::kMul, atom, make_wrapped_int(coef, t));
}
// -v is representable as a positive value of t (so "x - 3" can be written instead of "x + -3").
bool negatable(int64_t v, DType t) {
  return v < 0 &&
         (is_unsigned(t) || -static_cast<uint64_t>(v) <= static_cast<uint64_t>(int_max_of(t)));
}

}  // namespace

Expr linear_form_to_expr(const LinearForm& f) {
  DType t = f.dtype;
  Expr acc;
  size_t first = f.terms.size();
  for (size_t i = 0; i < f.terms.size(); ++i) {
    if (f.terms[i].coef > 0) {
      first = i;
      break;
    }
  }
  bool constant_done = false;
  if (first < f.terms.size()) {
    acc = term_expr(f.terms[first].atom, f.terms[first].coef, t);
  } else if (f.constant > 0 || f.terms.empty()) {
    acc = make_wrapped_int(f.constant, t);
    constant_done = true;
  } else {
    first = 0;
    acc = term_expr(f.terms[0].atom, f.terms[0].coef, t);
  }
  for (size_t i = 0; i < f.terms.size(); ++i) {
    if (i == first) continue;
    int64_t c = f.terms[i].coef;
    if (negatable(c, t)) {
      acc = make_binary(ExprKind::kSub, acc, term_expr(f.terms[i].atom, -c, t));
    } else {
      acc = make_binary(ExprKind::kAdd, acc, term_expr(f.terms[i].atom, c, t));
    }
  }
  if (!constant_done && f.constant != 0) {
    if (negatable(f.constant, t)) {
      acc = make_binary(ExprKind::kSub, acc, make_wrapped_int(-f.constant, t));
    } else {
      acc = make_binary(ExprKind::kAdd, acc, make_wrapped_int(f.constant, t));
    }
  }
  return acc;
}

std::optional<int64_t> linear_coef(const LinearForm& f, const Var& v) {
  int64_t c = 0;
  for (const LinearTerm& t : f.terms) {
    if (t.atom.same_as(v)) {
      c = t.coef;
    } else if (uses_var(t.atom, v)) {
      return std::nullopt;
    }
  }
  return c;
}

std::optional<int64_t> linear_coef(const Expr& e, const Var& v) {
  return linear_coef(linear_form(e), v);
}

}  // namespace tessera
