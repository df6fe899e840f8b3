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
    if (!op->size_var && !allowed_.count(op->id)) {
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
                    const Expr& where, const Expr& init, const CommReducer& reducer = nullptr) {
  if (!source.defined()) throw ExprError(str(reduce_kind_name(kind), ": missing source"));
  if (axis.empty())
    throw ExprError(str(reduce_kind_name(kind), ": needs at least one reduce axis"));
  for (const IterVar& iv : axis) {
    if (iv->kind != IterKind::kReduce) {
      throw ExprError(str(reduce_kind_name(kind), ": axis '", iv->var.name(),
                          "' is not a reduce axis; create it with reduce_axis"));
    }
  }
  const CallNode* tuple = as_tuple(source);
  for (const Expr& src : tuple ? tuple->args : std::vector<Expr>{source}) {
    if (src.dtype() == DType::kBool) {
      throw ExprError(
          str(reduce_kind_name(kind), " over bool values; cast them to an integer type"));
    }
  }
  if (tuple && init.defined() && !as_tuple(init)) {
    throw ExprError(str("comm_reducer '", reducer->name, "': init= of a reduction over tuples "
                        "is a tuple of ", tuple->args.size(), " values (one per source), as TVM"));
  }
  if (where.defined() && where.dtype() != DType::kBool) {
    throw ExprError(str(reduce_kind_name(kind), ": where= must be a bool condition, got ",
                        dtype_name(where.dtype())));
  }
  // One initial value per source (a tuple for a tuple reduction, TVM's init=(i0, v0)).
  auto initial = [&](Expr start, const Expr& src, size_t j) {
    if (start.dtype() == src.dtype()) return start;
    if (start.as<IntImmNode>() || start.as<FloatImmNode>()) {
      return cast(src.dtype(), start);  // a literal takes the reduction's type
    }
    throw ExprError(str(reduce_kind_name(kind), ": init= ",
                        tuple ? str("value ", j, " ") : std::string(), "has type ",
                        dtype_name(start.dtype()), " but the reduction's values",
                        tuple ? str(" at position ", j) : std::string(), " are ",
                        dtype_name(src.dtype()), "; cast it with .astype('",
                        dtype_name(src.dtype()), "')"));
  };
  Expr start = init;
  if (start.defined() && tuple) {
    const CallNode* inits = as_tuple(init);
    if (inits->args.size() != tuple->args.size()) {
      throw ExprError(str("comm_reducer '", reducer->name, "': init= has ", inits->args.size(),
                          " values but the reduction is over tuples of ", tuple->args.size(),
                          "; give one initial value per source"));
    }
    std::vector<Expr> fields;
    for (size_t j = 0; j < inits->args.size(); ++j) {
      fields.push_back(initial(inits->args[j], tuple->args[j], j));
    }
    start = make_tuple(fields);
  } else if (start.defined()) {
    start = initial(start, source, 0);
  }
  if (start.defined()) {
    post_order_visit(start, [&](const Expr& e) {
      const auto* v = e.as<VarNode>();
      for (const IterVar& iv : axis) {
        if (v && v == iv->var.get()) {
          throw ExprError(str(reduce_kind_name(kind), ": init= uses reduce axis '", v->name,
                              "'; the initial value depends on the data axes only"));
        }
      }
    });
  }
  if (reducer) {
    std::vector<Expr> sources = tuple ? tuple->args : std::vector<Expr>{source};
    if (sources.size() != reducer->arity()) {
      throw ExprError(str("comm_reducer '", reducer->name, "': it combines tuples of ",
                          reducer->arity(), " value(s) but is given ", sources.size(),
                          " source value(s); pass one source per value"));
    }
    for (size_t j = 0; j < sources.size(); ++j) {
      DType want = reducer->lhs[j].dtype();
      if (sources[j].dtype() == want) continue;
      throw ExprError(str("comm_reducer '", reducer->name, "': it combines ", dtype_name(want),
                          " values", reducer->arity() > 1 ? str(" at position ", j) : "",
                          " but the source is ", dtype_name(sources[j].dtype()),
                          "; cast the source with .astype('", dtype_name(want), "')"));
    }
  }
  return make_reduce(kind, source, axis, where, start, reducer);
}

// A symbolic dimension: an integer expression whose variables are size variables; returns the
// stand-in extent (the constant, or 1 when symbolic).
int64_t check_sym_dim(const Expr& d, size_t i, const std::string& name) {
  if (!d.defined() || !is_int(d.dtype())) {
    throw ExprError(str("tensor '", name, "': dimension ", i, " must be an integer expression",
                        d.defined() ? str(", got ", dtype_name(d.dtype())) : std::string()));
  }
  post_order_visit(d, [&](const Expr& e) {
    const auto* v = e.as<VarNode>();
    if (v && !v->size_var) {
      throw ExprError(str("tensor '", name, "': dimension ", i, " uses variable '", v->name,
                          "', which is not a size variable; make shape variables with te.var or "
                          "te.size_var"));
    }
    if (!v && !e.as<IntImmNode>() && !BinaryNode::matches(e.kind()) && !e.as<CastNode>()) {
      throw ExprError(str("tensor '", name, "': dimension ", i,
                          " must be integer arithmetic on size variables and constants"));
    }
  });
  if (const auto* c = d.as<IntImmNode>()) return c->value;
  return 1;
}

// The shape of a tensor whose dimensions are expressions: constants and stand-ins, plus the
// expressions when any is symbolic.
std::vector<int64_t> sym_shape_standins(const std::vector<Expr>& shape, const std::string& name,
                                        bool* symbolic) {
  std::vector<int64_t> out;
  *symbolic = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    out.push_back(check_sym_dim(shape[i], i, name));
    *symbolic |= !shape[i].as<IntImmNode>();
  }
  return out;
}

}  // namespace

std::vector<Var> size_vars_of(const Expr& e) {
  std::vector<Var> out;
  if (!e.defined()) return out;
  post_order_visit(e, [&](const Expr& x) {
    const auto* v = x.as<VarNode>();
    if (!v || !v->size_var) return;
    for (const Var& o : out) {
      if (o.get() == v) return;
    }
    out.push_back(Var(x));
  });
  return out;
}

std::vector<Expr> shape_exprs(const Operation& op) {
  if (!op->sym_shape.empty()) return op->sym_shape;
  std::vector<Expr> out;
  for (int64_t d : op->shape) out.push_back(make_int(d));
  return out;
}

Tensor placeholder_sym(const std::vector<Expr>& shape, DType dtype, const std::string& name) {
  bool symbolic = false;
  std::vector<int64_t> standin = sym_shape_standins(shape, name, &symbolic);
  Tensor t = placeholder(standin, dtype, name);
  if (symbolic) std::const_pointer_cast<OperationNode>(t.op())->sym_shape = shape;
  return t;
}

IterVar reduce_axis(int64_t min, const Expr& extent, const std::string& name) {
  if (const auto* c = extent.as<IntImmNode>()) return reduce_axis(min, c->value, name);
  check_sym_dim(extent, 0, "reduce_axis " + name);
  IterVar iv = reduce_axis(min, int64_t{1}, name);
  auto node = std::make_shared<IterVarNode>(*iv);
  node->sym_extent = extent;
  return node;
}

Tensor compute_sym(const std::vector<Expr>& shape, const ComputeFn& f, const std::string& name,
               const std::vector<std::string>& axis_names, const std::optional<Work>& true_work) {
  bool symbolic = false;
  std::vector<int64_t> standin = sym_shape_standins(shape, name, &symbolic);
  if (!symbolic) return compute(standin, f, name, axis_names, true_work);
  // The axes get their symbolic extents before the body is built, so the body (and a reduction
  // in it) sees the same IterVars lowering specializes.
  std::vector<Expr> dims = shape;
  Tensor t = compute(standin, f, name, axis_names, true_work);
  auto node = std::const_pointer_cast<OperationNode>(t.op());
  node->sym_shape = dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].as<IntImmNode>()) continue;
    auto iv = std::const_pointer_cast<IterVarNode>(node->axis[i]);
    iv->sym_extent = dims[i];
  }
  return t;
}

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

namespace {

// The one body of a multi-output compute: a tuple of its elementwise bodies, or the tuple
// reduction whose results the bodies are (in order). ExprError naming the compute otherwise.
Expr group_body(const std::vector<Expr>& bodies, const std::string& name) {
  if (bodies.size() == 1) return bodies[0];
  const auto* r0 = bodies[0].as<ReduceNode>();
  for (size_t i = 0; i < bodies.size(); ++i) {
    const auto* r = bodies[i].as<ReduceNode>();
    if (!r0 && !r) continue;
    bool same = r0 && r && as_tuple(r0->source) && r->source.same_as(r0->source) &&
                r->reducer == r0->reducer && r->condition.same_as(r0->condition) &&
                r->axis == r0->axis;
    if (!same) {
      auto what = [](const ReduceNode* x) {
        return !x ? "elementwise" : as_tuple(x->source) ? "a reduction over tuples"
                                                        : "a reduction of one value";
      };
      std::string problem =
          r0 && !as_tuple(r0->source)
              ? str("output 0 is ", what(r0))
              : str("output ", i, " is ", what(r), " but output 0 is ", what(r0),
                    r && r0 ? " (another reduction)" : "");
      throw ExprError(str("compute '", name, "': ", problem, "; the outputs of a multi-output "
                          "compute are either all elementwise or the results of one reduction "
                          "over tuples (te.comm_reducer with a tuple: T0, T1 = te.compute(shape, "
                          "lambda i: argmax((k, A[i, k]), axis=k))); compute other reductions "
                          "in their own te.compute"));
    }
    if (r->value_index != static_cast<int>(i) ||
        as_tuple(r->source)->args.size() != bodies.size()) {
      throw ExprError(str("compute '", name, "': returns result ", r->value_index,
                          " of reduction '", r->reducer->name, "' as output ", i, "; return all ",
                          as_tuple(r->source)->args.size(), " results of the reduction, in order"));
    }
  }
  return r0 ? bodies[0] : make_tuple(bodies);
}

std::vector<Tensor> compute_outputs(const std::vector<int64_t>& shape, const MultiComputeFn& f,
                                    const std::string& name,
                                    const std::vector<std::string>& axis_names,
                                    const std::optional<Work>& true_work) {
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
  std::vector<Expr> bodies = f(vars);
  if (bodies.empty()) throw ExprError(str("compute '", name, "': the function returns no value"));
  for (size_t i = 0; i < bodies.size(); ++i) {
    if (!bodies[i].defined()) {
      throw ExprError(str("compute '", name, "': the body", bodies.size() > 1 ? str(" ", i) : "",
                          " is empty"));
    }
  }
  Expr body = group_body(bodies, name);
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
    inner.visit(r->init);
    op->inputs = inner.inputs;
    op->reduce_axis = r->axis;
  } else {
    checker.visit(body);
    op->inputs = checker.inputs;
  }
  op->dtype = body.dtype();
  op->body = body;
  op->true_work = true_work;
  std::vector<Tensor> out;
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) out.emplace_back(op_output(op, i));
  return out;
}

}  // namespace

Tensor compute(const std::vector<int64_t>& shape, const ComputeFn& f, const std::string& name,
               const std::vector<std::string>& axis_names, const std::optional<Work>& true_work) {
  auto one = [&](const std::vector<Var>& vars) { return std::vector<Expr>{f(vars)}; };
  return compute_outputs(shape, one, name, axis_names, true_work)[0];
}

std::vector<Tensor> compute_multi(const std::vector<int64_t>& shape, const MultiComputeFn& f,
                                  const std::string& name,
                                  const std::vector<std::string>& axis_names,
                                  const std::optional<Work>& true_work) {
  return compute_outputs(shape, f, name, axis_names, true_work);
}

std::vector<Tensor> compute_multi_sym(const std::vector<Expr>& shape, const MultiComputeFn& f,
                                      const std::string& name,
                                      const std::vector<std::string>& axis_names,
                                      const std::optional<Work>& true_work) {
  bool symbolic = false;
  std::vector<int64_t> standin = sym_shape_standins(shape, name, &symbolic);
  std::vector<Tensor> outs = compute_outputs(standin, f, name, axis_names, true_work);
  if (!symbolic) return outs;
  // As compute_sym; the other outputs' nodes copy output 0's, so they are made again after.
  auto node = std::const_pointer_cast<OperationNode>(outs[0].op());
  node->sym_shape = shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].as<IntImmNode>()) continue;
    std::const_pointer_cast<IterVarNode>(node->axis[i])->sym_extent = shape[i];
  }
  for (size_t i = 1; i < outs.size(); ++i) {
    std::const_pointer_cast<OperationNode>(outs[i].op())->sym_shape = shape;
  }
  return outs;
}

Expr sum(const Expr& source, const std::vector<IterVar>& axis, const Expr& where,
         const Expr& init) {
  return make_reduction(ReduceKind::kSum, source, axis, where, init);
}
Expr max_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where,
                const Expr& init) {
  return make_reduction(ReduceKind::kMax, source, axis, where, init);
}
Expr min_reduce(const Expr& source, const std::vector<IterVar>& axis, const Expr& where,
                const Expr& init) {
  return make_reduction(ReduceKind::kMin, source, axis, where, init);
}

CommReducer comm_reducer(const std::string& name, const std::vector<Var>& lhs,
                         const std::vector<Var>& rhs, const std::vector<Expr>& combine,
                         const std::vector<Expr>& identity) {
  std::string what = str("comm_reducer '", name, "'");
  size_t n = lhs.size();
  if (n == 0) throw ExprError(what + ": combines no values");
  if (rhs.size() != n) throw ExprError(what + ": lhs and rhs differ in arity");
  if (combine.size() != n) {
    throw ExprError(str(what, ": fcombine takes tuples of ", n, " value(s) but returns ",
                        combine.size(), "; return one combined value per position"));
  }
  if (identity.size() != n) {
    throw ExprError(str(what, ": fidentity returns ", identity.size(), " value(s) for tuples of ",
                        n, "; return one identity per position"));
  }
  auto r = std::make_shared<CommReducerNode>();
  r->name = name;
  r->lhs = lhs;
  r->rhs = rhs;
  for (size_t j = 0; j < n; ++j) {
    std::string at = n > 1 ? str(" (position ", j, ")") : std::string();
    if (lhs[j].dtype() != rhs[j].dtype()) throw ExprError(what + ": lhs and rhs differ in type");
    DType t = lhs[j].dtype();
    const Expr& c = combine[j];
    if (!c.defined() || c.dtype() != t) {
      throw ExprError(str(what, ": fcombine must return a ", dtype_name(t), " expression", at,
                          c.defined() ? str(", got ", dtype_name(c.dtype())) : ""));
    }
    post_order_visit(c, [&](const Expr& e) {
      const auto* v = e.as<VarNode>();
      bool own = false;
      for (size_t k = 0; k < n; ++k) own |= v == lhs[k].get() || v == rhs[k].get();
      if (v && !own) {
        throw ExprError(str(what, ": fcombine uses variable '", v->name,
                            "'; it may use only its arguments and constants"));
      }
      if (e.as<ProducerLoadNode>() || e.as<ReduceNode>()) {
        throw ExprError(str(what, ": fcombine may not read tensors or reduce; it combines two "
                            "values"));
      }
    });
    Expr id = identity[j];
    if (id.defined() && id.dtype() != t) {  // a literal takes the reducer's type
      if (const auto* ci = id.as<IntImmNode>()) {
        id = is_float(t) ? make_const(t, double(ci->value)) : make_int(ci->value, t);
      } else if (const auto* f = id.as<FloatImmNode>(); f && is_float(t)) {
        id = make_const(t, f->value);
      }
    }
    if (!id.defined() || id.dtype() != t || !(id.as<IntImmNode>() || id.as<FloatImmNode>())) {
      throw ExprError(str(what, ": fidentity must give a ", dtype_name(t), " constant", at));
    }
    r->combine.push_back(c);
    r->identity.push_back(id);
  }
  return r;
}

CommReducer comm_reducer(const std::string& name, const Var& lhs, const Var& rhs,
                         const Expr& combine, const Expr& identity) {
  return comm_reducer(name, std::vector<Var>{lhs}, std::vector<Var>{rhs},
                      std::vector<Expr>{combine}, std::vector<Expr>{identity});
}

Expr comm_reduce(const CommReducer& reducer, const Expr& source, const std::vector<IterVar>& axis,
                 const Expr& where, const Expr& init) {
  return make_reduction(ReduceKind::kCustom, source, axis, where, init, reducer);
}

std::vector<Expr> comm_reduce(const CommReducer& reducer, const std::vector<Expr>& sources,
                              const std::vector<IterVar>& axis, const Expr& where,
                              const std::vector<Expr>& init) {
  if (sources.empty()) throw ExprError(str("comm_reducer '", reducer->name, "': no source"));
  if (!init.empty() && init.size() != sources.size()) {
    throw ExprError(str("comm_reducer '", reducer->name, "': init= has ", init.size(),
                        " values but the reduction is over tuples of ", sources.size(),
                        "; give one initial value per source"));
  }
  if (sources.size() == 1) {
    return {comm_reduce(reducer, sources[0], axis, where, init.empty() ? Expr() : init[0])};
  }
  Expr r0 = make_reduction(ReduceKind::kCustom, make_tuple(sources), axis, where,
                           init.empty() ? Expr() : make_tuple(init), reducer);
  const auto* r = r0.as<ReduceNode>();
  std::vector<Expr> out{r0};
  for (size_t i = 1; i < sources.size(); ++i) {
    out.push_back(make_reduce(r->combiner, r->source, r->axis, r->condition, r->init, r->reducer,
                              static_cast<int>(i)));
  }
  return out;
}

Expr reduce_identity(ReduceKind k, DType t) {
  if (k == ReduceKind::kSum) return make_const(t, 0);
  bool is_max = k == ReduceKind::kMax;
  if (is_float(t)) {
    double inf = std::numeric_limits<double>::infinity();
    return make_float(is_max ? -inf : inf, t);
  }
  if (is_max) return make_int(int_min_of(t), t);
  // uint64's largest value is the all-ones bit pattern (IntImm holds uint64 as bits).
  return make_int(t == DType::kUInt64 ? static_cast<int64_t>(uint_max_of(t)) : int_max_of(t), t);
}

}  // namespace tessera
