// The tensor-expression language: how a user writes an operator's algorithm (TVM TE names).
//
//   Tensor A = placeholder({M, K}, DType::kFloat32, "A");
//   IterVar k = reduce_axis(0, K, "k");
//   Tensor C = compute({M, N}, [&](const std::vector<Var>& i) {
//       return sum(mul(A({i[0], k->var}), B({k->var, i[1]})), {k}); }, "C");
//
// Expression building goes through the functions in expr_ops.h, which apply the dtype promotion
// rules of runtime/base/dtype.h and raise ExprError for mixes that would lose information.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/te/expr_ops.h"
#include "compiler/te/operation.h"

namespace tessera {

// An input tensor. Shape dimensions must be positive, and the element count must fit the int32
// index kernels address tensors with (else ExprError naming the tensor and its shape).
Tensor placeholder(const std::vector<int64_t>& shape, DType dtype, const std::string& name);

// A reduction axis over [min, min + extent); extent >= 1 and the range inside int32 (loops count
// in int32), else ExprError naming the axis.
IterVar reduce_axis(int64_t min, int64_t extent, const std::string& name);

using ComputeFn = std::function<Expr(const std::vector<Var>&)>;
// A tensor whose element at i is f(i). `axis_names` names the axes (default i0, i1, ...).
// The body may read other tensors, use this compute's axes and the reduce axes of a reduction at
// its top; anything else (a reduction nested inside arithmetic, a foreign variable, a bool or
// float index) is an ExprError naming the tensor.
// `true_work`, when given, declares the work of computing this tensor from the placeholders at the
// operator's logical shape (an operator in a padded layout does more); roofline figures of a
// function whose outputs all declare it use the declaration (true_work.h).
Tensor compute(const std::vector<int64_t>& shape, const ComputeFn& f, const std::string& name,
               const std::vector<std::string>& axis_names = {},
               const std::optional<Work>& true_work = std::nullopt);

// Reductions (the whole compute body must be one of these).
Expr sum(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr());
Expr max_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr());
Expr min_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr());

// The identity of a reduction in type t (0 for sum, the lowest value for max, ...).
Expr reduce_identity(ReduceKind k, DType t);

}  // namespace tessera
