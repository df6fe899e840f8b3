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
    auto it = vmap_.find(Var(e));
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

bool uses_var(const Expr& e, const Var& v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found |= x.same_as(v); });
  return found;
}

size_t innermost_use(const Expr& e, const std::vector<Var>& vars) {
  size_t level = 0;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (uses_var(e, vars[i])) level = i + 1;
  }
  return level;
}

}  // namespace tessera
