// Replaces variables by expressions.
#pragma once

#include <map>

#include "compiler/ir/ir.h"

namespace tessera {

using VarMap = std::map<Var, Expr, VarLess>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);
// Does e mention any variable? Does it mention v?
bool uses_any_var(const Expr& e);
bool uses_var(const Expr& e, const Var& v);

}  // namespace tessera
