#include "compiler/te/te.h"

#include <algorithm>
#include <limits>
#include <set>

#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();

void check_shape(const std::vector<int64_t>& shape, const std::string& name) {
  if (name.empty()) throw ExprError("a tensor needs a non-empty name");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      throw ExprError(str("tensor '", name, "': dimension ", i, " has extent ", shape[i],
                          "; extents must be positive"));
    }
    if (shape[i] > kMaxIndex) {
      throw ExprError(str("tensor '", name, "': dimension ", i, " extent ", shape[i],
                          " exceeds the int32 index range (at most ", kMaxIndex, ")"));
    }
  }
  // Kernels address a tensor with one flat int32 index (row-major), so its element count must
  // fit int32 too; anything larger would wrap silently.
  int64_t elements = 1;
  for (int64_t e : shape) {
    elements *= e;  // each factor <= 2^31 - 1 and the running product <= 2^31 - 1: no overflow
    if (elements > kMaxIndex) {
      std::string dims;
      for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
      throw ExprError(str("tensor '", name, "': shape (", dims, ") has more than ", kMaxIndex,
                          " elements, the int32 index range kernels address a tensor with; ",
                          "split it into smaller tensors"));
    }
  }
}

// Checks a compute body: variables, reduction placement; collects the tensors it reads.
class BodyChecker : public IRVisitor {
 public:
  BodyChecker(const std::string& name, std::set<uint64_t> allowed)
      : name_(name), allowed_(std::move(allowed)) {}
  using IRVisitor::visit;
  std::vector<Operation> inputs;

 protected:
  void visit_Var(const VarNode* op, const Expr&) override {
    if (!allowed_.count(op->id)) {
      throw ExprError(str("compute '", name_, "': variable '", op->name,
                          "' is neither an axis of this compute nor a reduce axis of its "
                          "reduction; declare it with reduce_axis and reduce over it"));
    }
  }
  void visit_Reduce(const ReduceNode* op, const Expr& e) override {
    throw ExprError(str("compute '", name_, "': a reduction (", reduce_kind_name(op->combiner),
                        ") must be the whole body of a compute, not part of an expression; "
                        "compute it in its own stage and use that tensor"));
  }
  void visit_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    IRVisitor::visit_ProducerLoad(op, e);
    if (std::find(inputs.begin(), inputs.end(), op->op) == inputs.end()) inputs.push_back(op->op);
  }

 private:
  std::string name_;
  std::set<uint64_t> allowed_;
};

Expr make_reduction(ReduceKind kind, const Expr& source, const std::vector<IterVar>& axis,
                    const Expr& where) {
  if (!source.defined()) throw ExprError(str(reduce_kind_name(kind), ": missing source"));
  if (axis.empty())
    throw ExprError(str(reduce_kind_name(kind), ": needs at least one reduce axis"));
  for (const IterVar& iv : axis) {
    if (iv->kind != IterKind::kReduce) {
      throw ExprError(str(reduce_kind_name(kind), ": axis '", iv->var.name(),
                          "' is not a reduce axis; create it with reduce_axis"));
    }
  }
  if (source.dtype() == DType::kBool) {
    throw ExprError(str(reduce_kind_name(kind), " over bool values; cast them to an integer type"));
  }
  if (where.defined() && where.dtype() != DType::kBool) {
    throw ExprError(str(reduce_kind_name(kind), ": where= must be a bool condition, got ",
                        dtype_name(where.dtype())));
  }
  return make_reduce(kind, source, axis, where);
}

}  // namespace

Tensor placeholder(const std::vector<int64_t>& shape, DType dtype, const std::string& name) {
  check_shape(shape, name);
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::kPlaceholder;
  op->name = name;
  op->dtype = dtype;
  op->shape = shape;
  return Tensor(op);
}

IterVar reduce_axis(int64_t min, int64_t extent, const std::string& name) {
  if (extent <= 0) {
    throw ExprError(str("reduce_axis '", name, "': extent ", extent, " must be positive"));
  }
  // Loops count in int32: every value min .. min + extent - 1, and the loop's end min + extent,
  // must fit it.
  if (min < -kMaxIndex || min > kMaxIndex || extent > kMaxIndex || min + extent > kMaxIndex) {
    throw ExprError(str("reduce_axis '", name, "': the range [", min, ", ", min + extent,
                        ") does not fit the int32 index range loops count in; bounds must lie in [",
                        -kMaxIndex, ", ", kMaxIndex, "]"));
  }
  return make_iter_var(name, min, extent, IterKind::kReduce);
}

Tensor compute(const std::vector<int64_t>& shape, const ComputeFn& f, const std::string& name,
               const std::vector<std::string>& axis_names, const std::optional<Work>& true_work) {
  check_shape(shape, name);
  if (!axis_names.empty() && axis_names.size() != shape.size()) {
    throw ExprError(str("compute '", name, "': ", axis_names.size(), " axis names for ",
                        shape.size(), " dimensions"));
  }
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::kCompute;
  op->name = name;
  op->shape = shape;
  std::vector<Var> vars;
  std::set<uint64_t> allowed;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string n = axis_names.empty() ? "i" + std::to_string(i) : axis_names[i];
    op->axis.push_back(make_iter_var(n, 0, shape[i], IterKind::kDataPar));
    vars.push_back(op->axis.back()->var);
    allowed.insert(vars.back().id());
  }
  Expr body = f(vars);
  if (!body.defined()) throw ExprError(str("compute '", name, "': the body is empty"));
  BodyChecker checker(name, allowed);
  if (const auto* r = body.as<ReduceNode>()) {
    std::set<uint64_t> with_reduce = allowed;
    for (const IterVar& iv : r->axis) {
      if (!with_reduce.insert(iv->var.id()).second) {
        throw ExprError(
            str("compute '", name, "': reduce axis '", iv->var.name(), "' is listed twice"));
      }
    }
    BodyChecker inner(name, with_reduce);
    inner.visit(r->source);
    inner.visit(r->condition);
    op->inputs = inner.inputs;
    op->reduce_axis = r->axis;
  } else {
    checker.visit(body);
    op->inputs = checker.inputs;
  }
  op->dtype = body.dtype();
  op->body = body;
  op->true_work = true_work;
  return Tensor(op);
}

Expr sum(const Expr& source, const std::vector<IterVar>& axis, const Expr& where) {
  return make_reduction(ReduceKind::kSum, source, axis, where);
}
Expr max_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where) {
  return make_reduction(ReduceKind::kMax, source, axis, where);
}
Expr min_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where) {
  return make_reduction(ReduceKind::kMin, source, axis, where);
}

Expr reduce_identity(ReduceKind k, DType t) {
  if (k == ReduceKind::kSum) return make_const(t, 0);
  bool is_max = k == ReduceKind::kMax;
  if (is_float(t)) {
    double inf = std::numeric_limits<double>::infinity();
    return make_float(is_max ? -inf : inf, t);
  }
  return make_int(is_max ? int_min_of(t) : int_max_of(t), t);
}

}  // namespace tessera
