#include "compiler/ir/substitute.h"

#include "compiler/ir/ir_visitor.h"

namespace tessera {

namespace {
class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& m) : vmap_(m) {}
  using IRMutator::mutate;

 protected:
  Expr mutate_Var(const VarNode*, const Expr& e) override {
    auto it = vmap_.find(static_cast<const VarNode*>(e.get()));
    return it == vmap_.end() ? e : it->second;
  }

 private:
  const VarMap& vmap_;
};
}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  Substituter s(vmap);
  return s.mutate(e);
}
Stmt substitute(const Stmt& st, const VarMap& vmap) {
  if (vmap.empty()) return st;
  Substituter s(vmap);
  return s.mutate(st);
}

namespace {

// Calls f on every variable node in e (each occurrence) until f returns true; true if it did. A
// direct walk: uses_var is asked at every loop level of every guard and index.
template <typename F>
bool any_var(const Expr& e, const F& f) {
  if (!e.defined()) return false;
  switch (e.kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return false;
    case ExprKind::kVar:
      return f(static_cast<const VarNode*>(e.get()));
    case ExprKind::kCast:
      return any_var(e.as<CastNode>()->value, f);
    case ExprKind::kNot:
      return any_var(e.as<NotNode>()->a, f);
    case ExprKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      return any_var(op->cond, f) || any_var(op->true_value, f) || any_var(op->false_value, f);
    }
    case ExprKind::kCall:
      for (const Expr& a : e.as<CallNode>()->args) {
        if (any_var(a, f)) return true;
      }
      return false;
    case ExprKind::kProducerLoad:
      for (const Expr& i : e.as<ProducerLoadNode>()->indices) {
        if (any_var(i, f)) return true;
      }
      return false;
    case ExprKind::kBufferLoad:
      for (const Expr& i : e.as<BufferLoadNode>()->indices) {
        if (any_var(i, f)) return true;
      }
      return false;
    case ExprKind::kReduce: {
      // As the IR visitor walks a reduction: source, condition, init (not the axes' variables).
      const auto* op = e.as<ReduceNode>();
      return any_var(op->source, f) || any_var(op->condition, f) || any_var(op->init, f);
    }
    default: {
      const auto* op = e.as<BinaryNode>();
      return any_var(op->a, f) || any_var(op->b, f);
    }
  }
}

}  // namespace

bool uses_var(const Expr& e, const Var& v) {
  const ExprNode* n = v.get();
  return any_var(e, [n](const VarNode* x) { return static_cast<const ExprNode*>(x) == n; });
}

size_t innermost_use(const Expr& e, const std::vector<Var>& vars) {
  // One walk, noting the deepest of `vars` met (vars are few: a loop nest).
  size_t level = 0;
  any_var(e, [&](const VarNode* x) {
    for (size_t i = vars.size(); i > level; --i) {
      if (vars[i - 1].get() == static_cast<const ExprNode*>(x)) {
        level = i;
        break;
      }
    }
    return level == vars.size();
  });
  return level;
}

}  // namespace tessera
