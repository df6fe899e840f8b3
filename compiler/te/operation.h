// Tensor-expression operations: the algorithm half of an operator (TVM's TE).
//
// An operation produces one tensor. A placeholder is an input; a compute operation defines every
// element of its output by an expression over its axes (and, for a reduction, its reduce axes).
// Operations are immutable and shared; a Tensor is a handle to the operation that produces it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "runtime/base/work.h"

namespace tessera {

enum class OpKind : uint8_t { kPlaceholder, kCompute };

struct OperationNode {
  OpKind kind;
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  // Empty unless a dimension is symbolic (uses size variables): then one expression per
  // dimension, and `shape` holds stand-ins (1) that nothing but schedule primitives may read.
  std::vector<Expr> sym_shape;
  // Compute only: one data-parallel axis per output dimension, the reduce axes the body uses
  // (in the order of the Reduce node), and the body. A reduction's body is a Reduce node.
  std::vector<IterVar> axis;
  std::vector<IterVar> reduce_axis;
  Expr body;
  // The tensors the body reads, in order of first use.
  std::vector<Operation> inputs;
  // Compute only: the true work of computing this tensor from the placeholders (runtime/base/
  // work.h), as the operator's author declares it from its logical shape; a padded layout's
  // expression does more. When absent, lowering computes it from the expression (true_work.h).
  std::optional<Work> true_work;
};

// A handle to an operation's output.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Operation op) : op_(std::move(op)) {}
  const Operation& op() const { return op_; }
  const std::string& name() const { return op_->name; }
  DType dtype() const { return op_->dtype; }
  const std::vector<int64_t>& shape() const { return op_->shape; }
  int ndim() const { return static_cast<int>(op_->shape.size()); }
  bool defined() const { return op_ != nullptr; }
  // An element read: checks the index count and that indices are integers (ExprError).
  Expr operator()(const std::vector<Expr>& indices) const;

 private:
  Operation op_;
};

}  // namespace tessera
