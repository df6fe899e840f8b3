#include "compiler/te/operation.h"

#include "runtime/base/error.h"

namespace tessera {

Expr make_producer_load(Operation op, std::vector<Expr> indices) {
  DType t = op->dtype;
  return Expr(std::make_shared<ProducerLoadNode>(t, std::move(op), std::move(indices)));
}

Expr Tensor::operator()(const std::vector<Expr>& indices) const {
  if (static_cast<int>(indices.size()) != ndim()) {
    throw ExprError(str("tensor '", name(), "' has ", ndim(), " dimension(s) but is indexed with ",
                        indices.size(), " index(es)"));
  }
  std::vector<Expr> idx;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Expr& e = indices[i];
    if (!is_int(e.dtype())) {
      throw ExprError(str("tensor '", name(), "': index ", i, " has type ", dtype_name(e.dtype()),
                          "; indices must be integers"));
    }
    idx.push_back(make_cast(kIndexType, e));
  }
  return make_producer_load(op_, std::move(idx));
}

}  // namespace tessera
