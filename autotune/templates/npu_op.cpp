#include "autotune/templates/npu_op.h"

namespace tessera {

Expr requant_expr(const Expr& acc, const Requant& q) {
  Expr r = requantize(acc, q.multiplier, q.shift, q.zero_point);
  if (q.relu) r = binary_op(ExprKind::kMax, r, int_literal(0, DType::kInt8));
  return r;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace tessera
