#include "compiler/passes/tighten_loop_bounds.h"

#include <optional>
#include <vector>

#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"

namespace tessera {

namespace {

std::vector<Expr> conjuncts(const Expr& cond) {
  std::vector<Expr> out, todo{cond};
  while (!todo.empty()) {
    Expr e = todo.back();
    todo.pop_back();
    const auto* b = e.as<BinaryNode>();
    if (b && b->kind == ExprKind::kAnd) {
      todo.push_back(b->b);
      todo.push_back(b->a);
    } else {
      out.push_back(e);
    }
  }
  return out;
}

Expr conjunction(const std::vector<Expr>& terms) {
  Expr c;
  for (const Expr& t : terms) c = c.defined() ? (c && t) : t;
  return c;
}

// A comparison as f >= 0 (integer f), or nullopt.
std::optional<Expr> as_nonnegative(const Expr& cond) {
  const auto* b = cond.as<BinaryNode>();
  if (!b || !is_int(b->a.dtype()) || !is_int(b->b.dtype())) return std::nullopt;
  switch (b->kind) {
    case ExprKind::kGE:
      return b->a - b->b;
    case ExprKind::kGT:
      return b->a - b->b - make_int(1, b->a.dtype());
    case ExprKind::kLE:
      return b->b - b->a;
    case ExprKind::kLT:
      return b->b - b->a - make_int(1, b->a.dtype());
    default:
      return std::nullopt;
  }
}

// One bound on v from `cond`: {is_lower, bound} with v >= bound (lower) or v < bound (upper).
struct LoopBound {
  bool lower;
  Expr bound;
};

// The scale c when `atom` is v itself (1) or v / c with a constant c > 0; nullopt otherwise.
std::optional<int64_t> scale_of(const Expr& atom, const Var& v) {
  if (atom.same_as(v)) return 1;
  const auto* d = atom.as<BinaryNode>();
  if (!d || d->kind != ExprKind::kDiv || !d->a.same_as(v)) return std::nullopt;
  const int64_t* c = as_const_int(d->b);
  if (!c || *c <= 0) return std::nullopt;
  return *c;
}

std::optional<LoopBound> bound_on(const Expr& cond, const Var& v) {
  std::optional<Expr> f = as_nonnegative(cond);
  if (!f || f->dtype() != v.dtype()) return std::nullopt;
  LinearForm lf = linear_form(simplify(*f));
  int64_t k = 0, scale = 0;
  LinearTerms rest;
  for (const LinearTerm& t : lf.terms) {
    if (!uses_var(t.atom, v)) {
      rest.push_back(t);
      continue;
    }
    std::optional<int64_t> c = scale_of(t.atom, v);
    if (!c || k != 0) return std::nullopt;  // v inside another atom, or in two terms
    k = t.coef;
    scale = *c;
  }
  if (k == 0) return std::nullopt;
  LinearForm gf = lf;
  gf.terms = rest;
  Expr g = linear_form_to_expr(gf);  // k*a + g >= 0, a = v / scale (floor division)
  DType t = v.dtype();
  if (k > 0) {  // a >= ceil(-g / k) = floor((k - 1 - g) / k), so v >= that * scale
    Expr a = (make_int(k - 1, t) - g) / make_int(k, t);
    return LoopBound{true, simplify(a * make_int(scale, t))};
  }
  // a <= floor(g / -k), i.e. a < floor(g / -k) + 1, so v < (floor(g / -k) + 1) * scale
  Expr a = g / make_int(-k, t) + make_int(1, t);
  return LoopBound{false, simplify(a * make_int(scale, t))};
}

class Tightener : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt mutate_For(const ForNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    const auto* guard = body.as<IfThenElseNode>();
    if (!guard || guard->else_case.defined()) {
      return body.same_as(op->body) ? s
                                    : make_for(op->var, op->min, op->extent, op->for_kind, body);
    }
    std::vector<Expr> outside, inside;
    Expr lo = op->min, hi = op->min + op->extent;
    bool tightened = false;
    for (const Expr& c : conjuncts(guard->cond)) {
      if (!uses_var(c, op->var)) {
        outside.push_back(c);
      } else if (std::optional<LoopBound> b = bound_on(c, op->var)) {
        (b->lower ? lo : hi) = b->lower ? max(lo, b->bound) : min(hi, b->bound);
        tightened = true;
      } else {
        inside.push_back(c);
      }
    }
    if (!tightened && outside.empty()) {
      return body.same_as(op->body) ? s
                                    : make_for(op->var, op->min, op->extent, op->for_kind, body);
    }
    Stmt inner = inside.empty() ? guard->then_case : make_if(conjunction(inside), guard->then_case);
    Expr mn = simplify(lo);
    Expr ext = tightened ? simplify(max(hi - mn, make_int(0, op->extent.dtype()))) : op->extent;
    Stmt loop = make_for(op->var, mn, ext, op->for_kind, inner);
    return outside.empty() ? loop : make_if(conjunction(outside), loop);
  }
};

}  // namespace

Stmt tighten_loop_bounds(const Stmt& s) {
  Tightener t;
  return t.mutate(s);
}

}  // namespace tessera
