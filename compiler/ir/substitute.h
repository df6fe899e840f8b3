// Replaces variables by expressions.
#pragma once

#include <map>

#include "compiler/ir/ir.h"

namespace tessera {

using VarMap = std::map<Var, Expr, VarLess>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);
// Does e mention v?
bool uses_var(const Expr& e, const Var& v);
// 1 + the position of the last of `vars` (loop variables, outermost first) that e mentions; 0 when
// it mentions none. The loop level just inside which a condition on those loops can be tested.
size_t innermost_use(const Expr& e, const std::vector<Var>& vars);

}  // namespace tessera
