// The simplifier's traversal: children first, then one rewrite step per node (rewrite.h), with
// the ranges of the enclosing loops, lets and reduction axes known while inside them.
#include "compiler/arith/simplify.h"

#include <memory>
#include <optional>
#include <utility>

#include "compiler/arith/const_bounds.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/rewrite.h"
#include "compiler/ir/equal.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"

namespace tessera {

namespace {

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(const VarRanges& r) : ranges_(r) {}
  using IRMutator::mutate;

 protected:
  // Gives v the interval r while it lives, then restores what v had before.
  class ScopedRange {
   public:
    ScopedRange(VarRanges* ranges, const Var& v, const Interval& r) : ranges_(ranges), var_(v) {
      auto it = ranges->find(v);
      if (it != ranges->end()) old_ = it->second;
      (*ranges)[v] = r;
    }
    ~ScopedRange() {
      if (old_) {
        (*ranges_)[var_] = *old_;
      } else {
        ranges_->erase(var_);
      }
    }
    ScopedRange(const ScopedRange&) = delete;
    ScopedRange& operator=(const ScopedRange&) = delete;

   private:
    VarRanges* ranges_;
    Var var_;
    std::optional<Interval> old_;
  };

  // An immediate outside its type's range (uint8(-1)) means its wrapped value; every rule reads
  // constants as plain numbers, so they are put in range first.
  Expr mutate_IntImm(const IntImmNode* op, const Expr& e) override {
    int64_t v = wrap_int(op->value, op->dtype);
    return v == op->value ? e : make_int(v, op->dtype);
  }

  Expr mutate_Var(const VarNode*, const Expr& e) override {
    // A variable known to be one constant (a let of a constant, a loop of extent 1) is that
    // constant.
    auto it = ranges_.find(static_cast<const VarNode*>(e.get()));
    if (it != ranges_.end() && it->second.min.defined() && it->second.max.defined()) {
      const int64_t* lo = as_const_int(it->second.min);
      const int64_t* hi = as_const_int(it->second.max);
      if (lo && hi && *lo == *hi && it->second.min.dtype() == e.dtype()) return it->second.min;
    }
    return e;
  }

#define TESSERA_SIMPLIFY_BINARY(kind)                                                           \
  Expr mutate_##kind(const BinaryNode* op, const Expr&) override {                              \
    return use_facts(rewrite_binary(ExprKind::k##kind, mutate(op->a), mutate(op->b), ranges_)); \
  }
  TESSERA_SIMPLIFY_BINARY(Add)
  TESSERA_SIMPLIFY_BINARY(Sub)
  TESSERA_SIMPLIFY_BINARY(Mul) TESSERA_SIMPLIFY_BINARY(Div) TESSERA_SIMPLIFY_BINARY(Mod)
      TESSERA_SIMPLIFY_BINARY(Min) TESSERA_SIMPLIFY_BINARY(Max) TESSERA_SIMPLIFY_BINARY(EQ)
          TESSERA_SIMPLIFY_BINARY(NE) TESSERA_SIMPLIFY_BINARY(LT) TESSERA_SIMPLIFY_BINARY(LE)
              TESSERA_SIMPLIFY_BINARY(GT) TESSERA_SIMPLIFY_BINARY(GE) TESSERA_SIMPLIFY_BINARY(And)
                  TESSERA_SIMPLIFY_BINARY(Or)
#undef TESSERA_SIMPLIFY_BINARY

                      Expr mutate_Not(const NotNode* op, const Expr&) override {
    return use_facts(rewrite_not(mutate(op->a)));
  }
  Expr mutate_Select(const SelectNode* op, const Expr&) override {
    return rewrite_select(mutate(op->cond), mutate(op->true_value), mutate(op->false_value));
  }
  Expr mutate_Cast(const CastNode* op, const Expr&) override {
    return rewrite_cast(op->dtype, mutate(op->value));
  }

  Expr mutate_Reduce(const ReduceNode* op, const Expr& e) override {
    std::vector<std::unique_ptr<ScopedRange>> scopes;
    for (const IterVar& iv : op->axis) {
      DType t = iv->var.dtype();
      if (!is_int(t)) continue;
      scopes.push_back(std::make_unique<ScopedRange>(
          &ranges_, iv->var,
          Interval{make_int(iv->min, t), make_int(iv->min + iv->extent - 1, t)}));
    }
    Expr source = mutate(op->source);
    Expr cond = mutate(op->condition);
    if (is_const_int(cond, 1)) cond = Expr();  // "always" is spelled as no condition
    Expr init = mutate(op->init);
    if (source.same_as(op->source) && cond.same_as(op->condition) && init.same_as(op->init)) {
      return e;
    }
    return make_reduce(op->combiner, source, op->axis, cond, init, op->reducer, op->value_index);
  }

  Stmt mutate_For(const ForNode* op, const Stmt&) override {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    ConstBounds eb = const_bounds(ext, ranges_);
    if (eb.max && *eb.max <= 0) return Stmt();  // never runs
    bool typed = mn.dtype() == op->var.dtype() && ext.dtype() == mn.dtype() && is_int(mn.dtype());
    if (typed && is_const_int(ext, 1)) return mutate(substitute(op->body, {{op->var, mn}}));
    ForgetFacts forget(this, op->var);
    Stmt body;
    if (typed) {
      Expr last = rewrite_binary(ExprKind::kSub, rewrite_binary(ExprKind::kAdd, mn, ext, ranges_),
                                 make_int(1, mn.dtype()), ranges_);
      ScopedRange scope(&ranges_, op->var, Interval{mn, last});
      body = mutate(op->body);
    } else {
      body = mutate(op->body);
    }
    if (!body.defined()) return Stmt();
    return make_for(op->var, mn, ext, op->for_kind, body);
  }

  Stmt mutate_IfThenElse(const IfThenElseNode* op, const Stmt&) override {
    Expr cond = mutate(op->cond);
    if (const int64_t* c = as_const_int(cond)) return mutate(*c ? op->then_case : op->else_case);
    Stmt then_case, else_case;
    {
      FactScope known(this, cond, true);
      then_case = mutate(op->then_case);
    }
    if (op->else_case.defined()) {
      FactScope known(this, cond, false);
      else_case = mutate(op->else_case);
    }
    if (!then_case.defined() && !else_case.defined()) return Stmt();  // conditions are pure
    if (!then_case.defined()) return make_if(rewrite_not(cond), else_case);
    return make_if(cond, then_case, else_case);
  }

  Stmt mutate_LetStmt(const LetStmtNode* op, const Stmt&) override {
    Expr value = mutate(op->value);
    if (value.dtype() == op->var.dtype() &&
        (value.kind() == ExprKind::kIntImm || value.kind() == ExprKind::kVar)) {
      return mutate(substitute(op->body, {{op->var, value}}));
    }
    ForgetFacts forget(this, op->var);
    Stmt body;
    if (is_int(value.dtype()) && value.dtype() == op->var.dtype()) {
      ScopedRange scope(&ranges_, op->var, Interval::point(value));
      body = mutate(op->body);
    } else {
      body = mutate(op->body);
    }
    if (!body.defined()) return Stmt();
    return make_let(op->var, value, body);
  }

  Stmt mutate_Allocate(const AllocateNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    if (!body.defined()) return Stmt();
    return body.same_as(op->body) ? s : make_allocate(op->buffer, body);
  }

  Stmt mutate_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    if (!body.defined()) return Stmt();
    return body.same_as(op->body) ? s : make_attr(op->key, op->value, body);
  }

 private:
  // What an enclosing if's condition says inside a branch: the condition itself (and each side of
  // a conjunction) has a known value, and `v < e`-like conditions narrow v's range.
  class FactScope {
   public:
    FactScope(Simplifier* s, const Expr& cond, bool value) : s_(s), old_size_(s->facts_.size()) {
      add(cond, value);
    }
    ~FactScope() {
      while (!scopes_.empty()) scopes_.pop_back();  // restore ranges in reverse order
      s_->facts_.resize(old_size_);
    }
    FactScope(const FactScope&) = delete;
    FactScope& operator=(const FactScope&) = delete;

   private:
    void add(const Expr& c, bool value) {
      if (s_->facts_.size() >= kMaxFacts || as_const_int(c)) return;
      ExprKind k = c.kind();
      if ((k == ExprKind::kAnd && value) || (k == ExprKind::kOr && !value)) {
        add(c.as<BinaryNode>()->a, value);
        add(c.as<BinaryNode>()->b, value);
        return;
      }
      s_->facts_.push_back({c, value});
      Expr holds = value ? c : rewrite_not(c);
      s_->facts_.push_back({rewrite_not(c), !value});
      narrow(holds);
    }
    // v < e, v <= e, v > e, v >= e, v == e with v an integer variable not in e.
    void narrow(const Expr& c) {
      const auto* op = c.as<BinaryNode>();
      if (!op || c.kind() < ExprKind::kEQ || c.kind() > ExprKind::kGE || c.kind() == ExprKind::kNE)
        return;
      const Expr& v = op->a;
      const Expr& e = op->b;
      DType t = v.dtype();
      if (v.kind() != ExprKind::kVar || !is_int(t) || is_wide_unsigned(t) || uses_var(e, Var(v)))
        return;
      Expr one = make_int(1, t);
      Expr lo, hi;
      switch (c.kind()) {
        case ExprKind::kLT:
          hi = rewrite_binary(ExprKind::kSub, e, one, s_->ranges_);
          break;
        case ExprKind::kLE:
          hi = e;
          break;
        case ExprKind::kGT:
          lo = rewrite_binary(ExprKind::kAdd, e, one, s_->ranges_);
          break;
        case ExprKind::kGE:
          lo = e;
          break;
        default:
          lo = hi = e;
          break;
      }
      Interval r;
      auto it = s_->ranges_.find(Var(v));
      if (it != s_->ranges_.end()) r = it->second;
      auto tighter = [&](ExprKind k, const Expr& old, const Expr& add) {
        if (!add.defined()) return old;
        if (!old.defined() || old.dtype() != t) return add;
        return rewrite_binary(k, old, add, s_->ranges_);
      };
      r.min = tighter(ExprKind::kMax, r.min, lo);
      r.max = tighter(ExprKind::kMin, r.max, hi);
      scopes_.push_back(std::make_unique<ScopedRange>(&s_->ranges_, Var(v), r));
    }

    static constexpr size_t kMaxFacts = 64;
    Simplifier* s_;
    size_t old_size_;
    std::vector<std::unique_ptr<ScopedRange>> scopes_;
  };

  // Inside a loop or let that binds v again, what was known about the outer v does not hold.
  class ForgetFacts {
   public:
    ForgetFacts(Simplifier* s, const Var& v) : s_(s) {
      if (s->facts_.empty()) return;
      saved_ = s->facts_;
      s->facts_.clear();
      for (const auto& f : saved_) {
        if (!uses_var(f.first, v)) s->facts_.push_back(f);
      }
      restore_ = true;
    }
    ~ForgetFacts() {
      if (restore_) s_->facts_ = std::move(saved_);
    }
    ForgetFacts(const ForgetFacts&) = delete;
    ForgetFacts& operator=(const ForgetFacts&) = delete;

   private:
    Simplifier* s_;
    std::vector<std::pair<Expr, bool>> saved_;
    bool restore_ = false;
  };

  // A condition that an enclosing if decides is replaced by its value.
  Expr use_facts(const Expr& e) {
    if (facts_.empty() || e.dtype() != DType::kBool || as_const_int(e)) return e;
    for (const auto& [fact, value] : facts_) {
      if (structural_equal(fact, e)) return make_bool(value);
    }
    return e;
  }

  VarRanges ranges_;
  std::vector<std::pair<Expr, bool>> facts_;
};

}  // namespace

Expr simplify(const Expr& e, const VarRanges& ranges) {
  if (!e.defined()) return e;
  Simplifier s(ranges);
  return s.mutate(e);
}

Stmt simplify(const Stmt& st, const VarRanges& ranges) {
  if (!st.defined()) return st;
  Simplifier s(ranges);
  return s.mutate(st);
}

bool can_prove(const Expr& cond, const VarRanges& ranges) {
  if (!cond.defined() || cond.dtype() != DType::kBool) return false;
  return is_const_int(simplify(cond, ranges), 1);
}

}  // namespace tessera
