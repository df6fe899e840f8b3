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

// A multi-output compute (TVM's compute whose function returns a tuple): f returns one body per
// output; the outputs share the shape and the axes and are computed in one loop nest. The bodies
// are all elementwise, or all the results of one reduction over tuples (comm_reduce of several
// sources), in order. Returns output 0, 1, ... (operation.h: output 0's node is the operation).
using MultiComputeFn = std::function<std::vector<Expr>(const std::vector<Var>&)>;
std::vector<Tensor> compute_multi(const std::vector<int64_t>& shape, const MultiComputeFn& f,
                                  const std::string& name,
                                  const std::vector<std::string>& axis_names = {},
                                  const std::optional<Work>& true_work = std::nullopt);
std::vector<Tensor> compute_multi_sym(const std::vector<Expr>& shape, const MultiComputeFn& f,
                                      const std::string& name,
                                      const std::vector<std::string>& axis_names = {},
                                      const std::optional<Work>& true_work = std::nullopt);

// Symbolic shapes (TVM's te.var / te.size_var), the _sym forms: a dimension may be an integer
// expression of size variables (Var::size). Such a tensor's `shape` holds stand-ins and its
// `sym_shape` the expressions; lowering needs every size bound to a number first
// (schedule/specialize.h). A dimension that is a constant expression is a constant dimension.
// ExprError for a float or bool dimension, or one that uses a variable that is not a size variable
// (naming the tensor).
Tensor placeholder_sym(const std::vector<Expr>& shape, DType dtype, const std::string& name);
Tensor compute_sym(const std::vector<Expr>& shape, const ComputeFn& f, const std::string& name,
                   const std::vector<std::string>& axis_names = {},
                   const std::optional<Work>& true_work = std::nullopt);
// A reduce axis over [min, min + extent) with a symbolic extent (a constant one is the int form).
IterVar reduce_axis(int64_t min, const Expr& extent, const std::string& name);
// The size variables `e` uses, in order of first appearance.
std::vector<Var> size_vars_of(const Expr& e);
// A tensor's shape as expressions (its sym_shape when symbolic, else its constants).
std::vector<Expr> shape_exprs(const Operation& op);
// Whether a tensor's shape is symbolic.
inline bool is_symbolic(const Operation& op) { return !op->sym_shape.empty(); }

// Reductions (the whole compute body must be one of these).
// `init` (TVM's init=), when given, is the value the reduction starts from instead of the
// identity: an expression over the compute's data axes (it may read tensors) in the source's type.
Expr sum(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr(),
         const Expr& init = Expr());
Expr max_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr(),
                const Expr& init = Expr());
Expr min_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where = Expr(),
                const Expr& init = Expr());

// A user's commutative reducer (TVM's te.comm_reducer): `combine` over the variables lhs and rhs
// (of one type; it may use nothing else: no tensor reads, no other variables) and `identity`, a
// constant of that type. ExprError naming the reducer otherwise.
CommReducer comm_reducer(const std::string& name, const Var& lhs, const Var& rhs,
                         const Expr& combine, const Expr& identity);
// A reducer over tuples: combine[j] gives value j of combining (lhs...) with (rhs...), each over
// those variables only; identity[j] a constant of lhs[j]'s type. ExprError naming the reducer
// when the arities or types disagree.
CommReducer comm_reducer(const std::string& name, const std::vector<Var>& lhs,
                         const std::vector<Var>& rhs, const std::vector<Expr>& combine,
                         const std::vector<Expr>& identity);
// A reduction of a tuple of sources (one per value of the reducer): its results, one expression
// each (return them all from a multi-output compute). `init`, when not empty, holds the value
// each result starts from (TVM's init= of a tuple reduction), one per source.
std::vector<Expr> comm_reduce(const CommReducer& reducer, const std::vector<Expr>& sources,
                              const std::vector<IterVar>& axis, const Expr& where = Expr(),
                              const std::vector<Expr>& init = {});
// A reduction with a user's reducer; the source must have the reducer's type.
Expr comm_reduce(const CommReducer& reducer, const Expr& source, const std::vector<IterVar>& axis,
                 const Expr& where = Expr(), const Expr& init = Expr());

// The identity of a reduction in type t (0 for sum, the lowest value for max, ...).
Expr reduce_identity(ReduceKind k, DType t);

}  // namespace tessera
