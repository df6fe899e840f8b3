// Read-only traversal of the IR. Override the visit_* of the kinds you care about; the defaults
// visit every child in order.
#pragma once

#include <functional>

#include "compiler/ir/ir.h"

namespace tessera {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit(const Expr& e);
  virtual void visit(const Stmt& s);

 protected:
#define TESSERA_EXPR_KIND(kind, node) virtual void visit_##kind(const node* op, const Expr& e);
#define TESSERA_STMT_KIND(kind, node) virtual void visit_##kind(const node* op, const Stmt& s);
#include "compiler/ir/ir.def"
};

// Rebuilding traversal: returns the same handle when nothing below changed.
class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);

 protected:
#define TESSERA_EXPR_KIND(kind, node) virtual Expr mutate_##kind(const node* op, const Expr& e);
#define TESSERA_STMT_KIND(kind, node) virtual Stmt mutate_##kind(const node* op, const Stmt& s);
#include "compiler/ir/ir.def"
  std::vector<Expr> mutate_all(const std::vector<Expr>& v, bool* changed);
};

// Calls f on every expression node below and including e, children first.
void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& f);

}  // namespace tessera
