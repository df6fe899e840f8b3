// Extern stages (TVM's te.extern): a C function the user writes computes a tensor from the
// buffers of its inputs, as one stage between tensor-expression stages.
//
//   ExternCall call{"my_func", DType::kInt32, {{0}, {-1, true}, {-1, false, make_int(10)}}, src};
//   Tensor E = extern_op({make_int(10)}, DType::kFloat32, {A}, call, "E");  // my_func(A, E, 10)
//
// The stage has no loops of its own (the function's loops are in C): schedule primitives that
// name its axes are ScheduleErrors, it always runs at the root, and the tensors it reads are
// complete buffers before it runs (their stages cannot be inlined or computed at another
// stage's loop). Only the C target builds it; the call passes each buffer's data pointer (dense,
// row-major, the element type's C pointer), each scalar by value.
#pragma once

#include <string>
#include <vector>

#include "compiler/te/operation.h"

namespace tessera {

// The output of an extern stage named `name` of `shape` (constant or symbolic dimensions, as
// compute_sym) and `dtype`, reading `inputs`. ExprError naming the stage when the call is
// malformed: the function name is not a C identifier or clashes with a name tessera generates,
// an argument names an input that does not exist, a scalar argument is not an integer or float
// expression of constants and size variables, the source is empty or never mentions the function.
Tensor extern_op(const std::vector<Expr>& shape, DType dtype, const std::vector<Tensor>& inputs,
                 const ExternCall& call, const std::string& name);

// Whether `op` is an extern stage's operation.
inline bool is_extern(const Operation& op) { return op && op->kind == OpKind::kExtern; }

}  // namespace tessera
