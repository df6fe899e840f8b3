// Tensor-expression operations: the algorithm half of an operator (TVM's TE).
//
// An operation produces a tensor. A placeholder is an input; a compute operation defines every
// element of its output by an expression over its axes (and, for a reduction, its reduce axes).
// Operations are immutable and shared; a Tensor is a handle to the operation that produces it.
//
// A multi-output compute (TVM's compute whose function returns a tuple, and tuple reductions such
// as argmax) computes several tensors of one shape in one loop nest. Its first output's node is
// the operation (`primary`): its body is a tuple of the outputs' bodies (make_tuple; a tuple
// reduction for a reduction), and it is what a stage computes. Output i > 0 is a node of its own
// (so that reads of it name it) with `primary` pointing to output 0 and value_index i; schedule
// and lowering look through it to the primary (primary_of).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "runtime/base/work.h"

namespace tessera {

enum class OpKind : uint8_t { kPlaceholder, kCompute, kExtern };

// An extern stage's call (TVM's te.extern with call_extern): a C function that computes the
// stage's output from its inputs' buffers. Each argument is input buffer `input`, the output
// buffer (`output`), or a scalar expression (constants and size variables; a symbolic shape's
// dimension). `source` is the C code that defines `func`; it is compiled into the module with the
// kernel. `ret` is the function's return type (none: void); an integer means a status, 0 for
// success.
struct ExternArg {
  int input = -1;  // index into the operation's inputs, or -1
  bool output = false;
  Expr value;  // a scalar argument when input < 0 and !output
};
struct ExternCall {
  std::string func;
  std::optional<DType> ret = DType::kInt32;  // none: void
  std::vector<ExternArg> args;
  std::string source;
};

struct OperationNode {
  OpKind kind;
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  // Empty unless a dimension is symbolic (uses size variables): then one expression per
  // dimension, and `shape` holds stand-ins (1) that nothing but schedule primitives may read.
  std::vector<Expr> sym_shape;
  // Extern only: the C call (the operation has no axes and no body; `inputs` are its input
  // tensors in the user's order).
  std::shared_ptr<const ExternCall> extern_call;
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
  // Multi-output computes: which output this node is, and (output i > 0) output 0's node.
  int value_index = 0;
  Operation primary;
  // Output 0 of a multi-output compute: the other outputs' nodes while anyone holds them (output
  // 0 does not own them, so that a node never owns itself); output() re-creates a dropped one.
  mutable std::vector<std::weak_ptr<const OperationNode>> outputs;
};

// The operation a tensor belongs to: output 0's node for any output of a multi-output compute.
inline const Operation& primary_of(const Operation& op) { return op->primary ? op->primary : op; }
// How many tensors the operation computes (1 but for a multi-output compute).
int num_outputs(const Operation& op);
// Output i of the operation (ExprError naming it when i is out of range).
Operation op_output(const Operation& op, int i);
// The body of output i (a component of the primary's tuple body).
Expr output_body(const Operation& op, int i);
// The type of output i.
DType output_dtype(const Operation& op, int i);

// A handle to an operation's output.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Operation op) : op_(std::move(op)) {}
  const Operation& op() const { return op_; }
  // TVM's: the operation's name, with ".v<i>" for an output of a multi-output compute.
  std::string name() const;
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
