#include "compiler/te/operation.h"

#include "runtime/base/error.h"

namespace tessera {

Expr make_producer_load(Operation op, std::vector<Expr> indices) {
  DType t = op->dtype;
  return Expr(std::make_shared<ProducerLoadNode>(t, std::move(op), std::move(indices)));
}

std::string Tensor::name() const {
  if (op_->value_index == 0 && num_outputs(op_) > 1) return op_->name + ".v0";
  return op_->name;
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

int num_outputs(const Operation& op) {
  const Operation& p = primary_of(op);
  if (p->kind != OpKind::kCompute) return 1;
  if (const auto* r = p->body.as<ReduceNode>()) {
    const CallNode* t = as_tuple(r->source);
    return t ? static_cast<int>(t->args.size()) : 1;
  }
  const CallNode* t = as_tuple(p->body);
  return t ? static_cast<int>(t->args.size()) : 1;
}

Expr output_body(const Operation& op, int i) {
  const Operation& p = primary_of(op);
  if (const auto* r = p->body.as<ReduceNode>()) {
    if (!as_tuple(r->source)) return p->body;
    return make_reduce(r->combiner, r->source, r->axis, r->condition, r->init, r->reducer, i);
  }
  const CallNode* t = as_tuple(p->body);
  return t ? t->args.at(static_cast<size_t>(i)) : p->body;
}

DType output_dtype(const Operation& op, int i) {
  const Operation& p = primary_of(op);
  return num_outputs(p) == 1 ? p->dtype : output_body(p, i).dtype();
}

Operation op_output(const Operation& op, int i) {
  const Operation& p = primary_of(op);
  int n = num_outputs(p);
  if (i < 0 || i >= n) {
    throw ExprError(str("operation '", p->name, "' has ", n, " output(s) (index 0",
                        n > 1 ? str("..", n - 1) : std::string(), "), not ", i));
  }
  if (i == 0) return p;
  if (p->outputs.size() < static_cast<size_t>(n)) p->outputs.resize(n);
  if (Operation o = p->outputs[i].lock()) return o;
  auto node = std::make_shared<OperationNode>(*p);
  node->outputs.clear();
  node->value_index = i;
  node->primary = p;
  node->dtype = output_dtype(p, i);
  node->name = p->name + ".v" + std::to_string(i);
  node->true_work.reset();
  p->outputs[i] = node;
  return node;
}

}  // namespace tessera
