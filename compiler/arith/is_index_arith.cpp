#include "compiler/arith/is_index_arith.h"

namespace tessera {

bool is_index_arith(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kVar:
      return true;
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax: {
      const auto* op = e.as<BinaryNode>();
      return is_index_arith(op->a) && is_index_arith(op->b);
    }
    default:
      return false;
  }
}

}  // namespace tessera
