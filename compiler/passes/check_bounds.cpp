#include "compiler/passes/check_bounds.h"

#include <algorithm>
#include <optional>
#include <set>

#include "compiler/arith/const_bounds.h"
#include "compiler/arith/is_index_arith.h"
#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "runtime/base/error.h"
#include "runtime/ndarray.h"

namespace tessera {

namespace {

// A condition known to hold: lo <= form <= hi (either side may be open).
struct Fact {
  LinearForm form;
  std::optional<int64_t> lo, hi;
};

// What a read may assume: the ranges of the axes and the guards around it.
struct Context {
  VarRanges ranges;
  std::vector<Fact> facts;
  bool dead = false;  // a guard that can never hold: the code under it never runs
};

std::string bound_text(const std::optional<int64_t>& b, const char* open) {
  return b ? std::to_string(*b) : open;
}

class BoundsChecker : public IRVisitor {
 public:
  BoundsChecker(const OperationNode& op, Context ctx) : op_(op), ctx_(std::move(ctx)) {}
  using IRVisitor::visit;

 protected:
  void visit_Select(const SelectNode* op, const Expr&) override {
    visit(op->cond);
    under(op->cond, true, op->true_value);
    under(op->cond, false, op->false_value);
  }
  void visit_Reduce(const ReduceNode* op, const Expr&) override {
    visit(op->init);
    if (!op->condition.defined()) return visit(op->source);
    visit(op->condition);
    under(op->condition, true, op->source);
  }
  void visit_Add(const BinaryNode* op, const Expr& e) override {
    IRVisitor::visit_Add(op, e);
    check_no_overflow(op, e);
  }
  void visit_Sub(const BinaryNode* op, const Expr& e) override {
    IRVisitor::visit_Sub(op, e);
    check_no_overflow(op, e);
  }
  void visit_Mul(const BinaryNode* op, const Expr& e) override {
    IRVisitor::visit_Mul(op, e);
    check_no_overflow(op, e);
  }
  void visit_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    IRVisitor::visit_ProducerLoad(op, e);  // loads inside the indices first
    if (ctx_.dead) return;
    for (size_t d = 0; d < op->indices.size(); ++d) check(*op->op, d, op->indices[d]);
  }

 private:
  // Visits e assuming `cond` is `truth`.
  void under(const Expr& cond, bool truth, const Expr& e) {
    Context saved = ctx_;
    assume(cond, truth);
    visit(e);
    ctx_ = std::move(saved);
  }

  void assume(const Expr& c, bool truth) {
    if (const auto* n = c.as<NotNode>()) return assume(n->a, !truth);
    const auto* b = c.as<BinaryNode>();
    if (!b) return;
    // a && b (true) and !(a || b) (false) give both facts; the other two give none.
    if ((c.kind() == ExprKind::kAnd && truth) || (c.kind() == ExprKind::kOr && !truth)) {
      assume(b->a, truth);
      assume(b->b, truth);
      return;
    }
    ExprKind k = c.kind();
    if (k < ExprKind::kEQ || k > ExprKind::kGE || b->a.dtype() != kIndexType) return;
    if (!truth) {  // the negated comparison
      switch (k) {
        case ExprKind::kEQ:
          return;  // a != b bounds nothing
        case ExprKind::kNE:
          k = ExprKind::kEQ;
          break;
        case ExprKind::kLT:
          k = ExprKind::kGE;
          break;
        case ExprKind::kLE:
          k = ExprKind::kGT;
          break;
        case ExprKind::kGT:
          k = ExprKind::kLE;
          break;
        default:
          k = ExprKind::kLT;
          break;
      }
    }
    Fact f{linear_add(linear_form(simplify(b->a)), linear_form(simplify(b->b)), -1), {}, {}};
    switch (k) {  // f.form = a - b
      case ExprKind::kEQ:
        f.lo = f.hi = 0;
        break;
      case ExprKind::kLT:
        f.hi = -1;
        break;
      case ExprKind::kLE:
        f.hi = 0;
        break;
      case ExprKind::kGT:
        f.lo = 1;
        break;
      case ExprKind::kGE:
        f.lo = 0;
        break;
      default:
        return;  // a != b
    }
    narrow(f);
    ctx_.facts.push_back(std::move(f));
  }

  // A fact about c * v + k with c = +-1 and v a ranged axis narrows v's range.
  void narrow(const Fact& f) {
    if (f.form.terms.size() != 1) return;
    const LinearTerm& t = f.form.terms[0];
    if (t.coef != 1 && t.coef != -1) return;
    const auto* v = t.atom.as<VarNode>();
    auto it = v ? ctx_.ranges.find(Var(t.atom)) : ctx_.ranges.end();
    if (it == ctx_.ranges.end()) return;
    const int64_t* lo = as_const_int(it->second.min);
    const int64_t* hi = as_const_int(it->second.max);
    if (!lo || !hi) return;
    int64_t new_lo = *lo, new_hi = *hi;
    int64_t k = f.form.constant;
    if (t.coef == 1) {  // lo_f <= v + k <= hi_f
      if (f.lo) new_lo = std::max(new_lo, *f.lo - k);
      if (f.hi) new_hi = std::min(new_hi, *f.hi - k);
    } else {  // lo_f <= k - v <= hi_f
      if (f.hi) new_lo = std::max(new_lo, k - *f.hi);
      if (f.lo) new_hi = std::min(new_hi, k - *f.lo);
    }
    if (new_lo > new_hi) {
      ctx_.dead = true;
      return;
    }
    it->second = Interval{make_int(new_lo, v->dtype), make_int(new_hi, v->dtype)};
  }

  // Bounds of `index`: from the ranges, tightened by every fact it differs from by a bounded term.
  ConstBounds bounds_of(const Expr& index) const {
    Expr idx = simplify(index);
    ConstBounds b = const_bounds(idx, ctx_.ranges);
    LinearForm form = linear_form(idx);
    for (const Fact& f : ctx_.facts) {
      if (f.form.dtype != form.dtype) continue;
      // index = fact + rest
      ConstBounds rest = const_bounds(linear_add(form, f.form, -1), ctx_.ranges);
      if (f.lo && rest.min) b.min = b.min ? std::max(*b.min, *f.lo + *rest.min) : *f.lo + *rest.min;
      if (f.hi && rest.max) b.max = b.max ? std::min(*b.max, *f.hi + *rest.max) : *f.hi + *rest.max;
    }
    return b;
  }

  // Index arithmetic (compiler/arith/is_index_arith.h) is reasoned about, and compiled, as if it
  // never overflowed: prove that it stays inside its type (a product like i * 1000003 did not, and
  // wrapped to a negative index). The operands are bounded by the axes' ranges under the guards
  // around e; their own sums and products were checked first (children are visited first).
  void check_no_overflow(const BinaryNode* op, const Expr& e) const {
    DType t = e.dtype();
    if (ctx_.dead || (t != DType::kInt32 && t != DType::kInt64) || !is_index_arith(e)) return;
    ConstBounds a = const_bounds(op->a, ctx_.ranges), b = const_bounds(op->b, ctx_.ranges);
    if (!a.min || !a.max || !b.min || !b.max) return;  // an unranged variable: nothing to prove
    __int128 lo = 0, hi = 0;
    auto corner = [&](int i, __int128 x, __int128 y) {
      __int128 r = e.kind() == ExprKind::kAdd ? x + y : e.kind() == ExprKind::kSub ? x - y : x * y;
      lo = i == 0 ? r : std::min(lo, r);
      hi = i == 0 ? r : std::max(hi, r);
    };
    corner(0, *a.min, *b.min);
    corner(1, *a.min, *b.max);
    corner(2, *a.max, *b.min);
    corner(3, *a.max, *b.max);
    if (lo >= int_min_of(t) && hi <= int_max_of(t)) return;
    auto text = [](__int128 v) {  // decimal digits of v (no standard printer takes __int128)
      bool neg = v < 0;
      unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
      std::string d;
      do {
        d.insert(d.begin(), char('0' + int(u % 10)));
        u /= 10;
      } while (u);
      return neg ? "-" + d : d;
    };
    throw LowerError(str("lower: compute '", op_.name, "': the index arithmetic ", to_string(e),
                         " takes values in [", text(lo), ", ", text(hi), "], beyond ",
                         dtype_name(t), " [", int_min_of(t), ", ", int_max_of(t),
                         "], and would wrap; arithmetic on axes and constants is ", dtype_name(t),
                         " and must not overflow: keep it in range, or cast the axis first "
                         "(i.astype(\"int64\")) for wider data arithmetic"));
  }

  void check(const OperationNode& t, size_t d, const Expr& index) const {
    ConstBounds b = bounds_of(index);
    int64_t extent = t.shape[d];
    if (b.min && b.max && *b.min >= 0 && *b.max < extent) return;
    std::string range = str("[", bound_text(b.min, "-inf"), ", ", bound_text(b.max, "+inf"), "]");
    throw LowerError(str(
        "lower: compute '", op_.name, "' reads ",
        t.kind == OpKind::kPlaceholder ? "placeholder" : "tensor", " '", t.name,
        "' outside its shape: dimension ", d, " index ", to_string(simplify(index)),
        b.min && b.max ? " takes values in " : " has no provable bound: ", range, " but '", t.name,
        "' has shape ", shape_to_string(t.shape), ", so it must stay in [0, ", extent - 1,
        "]; change the index or the axis ranges, or guard the read with "
        "te.if_then_else(condition, ",
        t.name, "[...], value)"));
  }

  const OperationNode& op_;
  Context ctx_;
};

void check_op(const OperationNode& op) {
  Context ctx;
  for (const IterVar& iv : op.axis) ctx.ranges[iv->var] = Interval::range(iv->min, iv->extent);
  for (const IterVar& iv : op.reduce_axis)
    ctx.ranges[iv->var] = Interval::range(iv->min, iv->extent);
  BoundsChecker(op, std::move(ctx)).visit(op.body);
}

}  // namespace

void check_bounds(const Schedule& sch) {
  std::set<const OperationNode*> seen;
  for (const StagePtr& st : sch.stages()) {
    for (const Operation& op : {st->op, st->origin_op}) {
      if (!op || op->kind != OpKind::kCompute || !seen.insert(op.get()).second) continue;
      check_op(*op);
    }
  }
}

}  // namespace tessera
