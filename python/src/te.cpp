// Python bindings for tensor expressions: Expr (with operators), IterVar, Tensor, Operation and
// the te functions. Python literals become "weak" constants that take the other operand's type.
#include "compiler/te/te.h"

#include <limits>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "compiler/ir/equal.h"
#include "compiler/ir/ir_printer.h"
#include "python/src/py_args.h"
#include "python/src/py_handles.h"
#include "python/src/te_const.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

PyIterVar py_iv(const IterVar& iv) { return std::const_pointer_cast<IterVarNode>(iv); }
std::vector<PyIterVar> py_ivs(const std::vector<IterVar>& v) {
  std::vector<PyIterVar> out;
  for (const IterVar& iv : v) out.push_back(py_iv(iv));
  return out;
}
PyOperation py_op(const Operation& op) { return std::const_pointer_cast<OperationNode>(op); }

namespace {


// A tensor's shape as text, symbolic dimensions as their expressions.
std::string shape_str(const Tensor& t) {
  std::vector<Expr> d = shape_exprs(t.op());
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + to_string(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}

// A read of a tensor with fewer indices than dimensions, as `A[i]` gives for a 2-D `A`: TVM's
// TensorSlice, so that chained indexing `A[i][j]` reads A[i, j]. It is an expression only once
// every dimension is indexed.
struct TensorSlice {
  Tensor tensor;
  std::vector<Expr> indices;
};

// A Python value as an Expr; literals take `like`'s type (int32 / float32 / bool when alone).
Expr to_expr(const py::handle& h, std::optional<DType> like = std::nullopt) {
  if (py::isinstance<Expr>(h)) return h.cast<Expr>();
  if (py::isinstance<IterVarNode>(h)) return h.cast<PyIterVar>()->var;
  if (py::isinstance<TensorSlice>(h)) {  // still short of indices: the read names the tensor
    const TensorSlice& s = h.cast<const TensorSlice&>();
    return s.tensor(s.indices);
  }
  if (is_bool_literal(h)) return make_bool(PyObject_IsTrue(h.ptr()) == 1);
  if (is_int_literal(h)) {
    if (like && *like == DType::kUInt64) return int_constant(h, *like, "integer literal");
    int64_t v = int64_arg<ExprError>(h, "integer literal");
    if (like) return int_literal(v, *like);
    return int_literal(v, DType::kInt32);
  }
  if (is_float_literal(h)) {
    double v = PyFloat_AsDouble(h.ptr());  // np.float32 has __float__
    return float_literal(v, like && is_float(*like) ? *like : DType::kFloat32);
  }
  throw ExprError(str("cannot use a Python ", std::string(py::str(h.get_type().attr("__name__"))),
                      " as a tensor expression"));
}

Expr binary(ExprKind k, const py::handle& a, const py::handle& b) {
  if (is_literal(a) && is_literal(b)) return binary_op(k, to_expr(a), to_expr(b));
  if (is_literal(a)) {
    Expr eb = to_expr(b);
    return binary_op(k, to_expr(a, eb.dtype()), eb);
  }
  Expr ea = to_expr(a);
  return binary_op(k, ea, to_expr(b, ea.dtype()));
}

// a & b, a | b: logical on bools, bitwise (as TVM) on integers; a << b, a >> b, a ^ b: bitwise.
// Literals take the other operand's type, as in binary().
Expr bits(const char* name, const py::handle& a, const py::handle& b) {
  Expr ea, eb;
  if (is_literal(a) && !is_literal(b)) {
    eb = to_expr(b);
    ea = to_expr(a, eb.dtype());
  } else {
    ea = to_expr(a);
    eb = to_expr(b, ea.dtype());
  }
  std::string n = name;
  if ((n == "bitwise_and" || n == "bitwise_or") && ea.dtype() == DType::kBool &&
      eb.dtype() == DType::kBool) {
    return binary_op(n == "bitwise_and" ? ExprKind::kAnd : ExprKind::kOr, ea, eb);
  }
  return bitwise_op(n, ea, eb);
}

// Index `i` of a read of tensor `t`: an expression, an axis or a Python integer.
Expr to_index(const Tensor& t, size_t i, const py::handle& h) {
  if (!py::isinstance<Expr>(h) && !py::isinstance<IterVarNode>(h) && !is_py_integer(h)) {
    throw ExprError(str("tensor '", t.name(), "': index ", i,
                        " must be an integer expression (an axis, an Expr or an int), got ",
                        describe_py(h)));
  }
  return to_expr(h);
}

std::vector<Expr> to_indices(const Tensor& t, const py::handle& key, std::vector<Expr> idx = {}) {
  if (py::isinstance<py::tuple>(key)) {
    for (const py::handle& h : key.cast<py::tuple>()) idx.push_back(to_index(t, idx.size(), h));
  } else {
    idx.push_back(to_index(t, idx.size(), key));
  }
  return idx;
}

// `t[key]` (or a slice's `[key]` after `indices`): the element read once every dimension has an
// index, else a TensorSlice waiting for the rest.
py::object index_tensor(const Tensor& t, const py::handle& key, std::vector<Expr> indices = {}) {
  std::vector<Expr> idx = to_indices(t, key, std::move(indices));
  if (static_cast<int>(idx.size()) < t.ndim()) return py::cast(TensorSlice{t, std::move(idx)});
  return py::cast(t(idx));
}

// Two tensors of one shape (symbolic dimensions compared as expressions).
bool same_shape(const Tensor& a, const Tensor& b) {
  std::vector<Expr> x = shape_exprs(a.op()), y = shape_exprs(b.op());
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!structural_equal(x[i], y[i])) return false;
  }
  return true;
}

// Tensor arithmetic, as TVM's operator overloads on te.Tensor (topi's elementwise operators):
// an elementwise compute named `name` over tensors of one shape, with a Python number or a
// scalar Expr broadcast to every element. Python numbers take the tensor's type.
Tensor elementwise(ExprKind k, const char* name, const py::object& a, const py::object& b) {
  const py::object& first = py::isinstance<Tensor>(a) ? a : b;
  Tensor ref = first.cast<Tensor>();
  for (const py::object* o : {&a, &b}) {
    if (py::isinstance<Tensor>(*o)) {
      Tensor t = o->cast<Tensor>();
      if (!same_shape(t, ref)) {
        throw ExprError(str("tensor arithmetic '", name, "': tensor '", ref.name(), "' has shape ",
                            shape_str(ref), " but tensor '", t.name(), "' has shape ",
                            shape_str(t),
                            "; elementwise operators take tensors of one shape or a scalar (TVM's "
                            "topi broadcasts other shapes: write that as a te.compute)"));
      }
    } else if (!is_literal(*o) && !py::isinstance<Expr>(*o)) {
      throw ExprError(str("tensor arithmetic '", name, "' with tensor '", ref.name(),
                          "': the other operand must be a tensor of the same shape, a number or "
                          "a scalar expression, got ",
                          describe_py(*o)));
    }
  }
  std::vector<std::string> axes;
  for (int d = 0; d < ref.ndim(); ++d) axes.push_back(str("ax", d));
  return compute_sym(
      shape_exprs(ref.op()),
      [&](const std::vector<Var>& vars) {
        std::vector<Expr> idx(vars.begin(), vars.end());
        auto operand = [&](const py::object& o) -> py::object {
          return py::isinstance<Tensor>(o) ? py::cast(o.cast<Tensor>()(idx)) : o;
        };
        return binary(k, operand(a), operand(b));
      },
      name, axes);
}

// A shape argument: an integer or a tuple/list of integers (ranges are checked by the core).
std::vector<int64_t> to_shape(const py::handle& shape, const std::string& what) {
  if (is_py_integer(shape)) return {int64_arg<ExprError>(shape, what + ": shape")};
  // Any sequence (tuple, list, numpy array), but not a string.
  if (!PySequence_Check(shape.ptr()) || py::isinstance<py::str>(shape) ||
      py::isinstance<py::bytes>(shape)) {
    throw ExprError(str(what, ": shape must be a tuple of integers, got ", describe_py(shape)));
  }
  std::vector<int64_t> out;
  for (const py::handle& d : shape) {
    out.push_back(int64_arg<ExprError>(d, str(what, ": shape[", out.size(), "]")));
  }
  return out;
}

// A shape that may hold size variables (te.var) or expressions of them: its dimensions as
// expressions (integers become int32 constants).
bool is_sym_dim(const py::handle& d) { return py::isinstance<Expr>(d); }
std::vector<Expr> to_sym_shape(const py::handle& shape, const std::string& what) {
  std::vector<Expr> out;
  auto one = [&](const py::handle& d) {
    if (is_sym_dim(d)) return out.push_back(d.cast<Expr>());
    int64_t v = int64_arg<ExprError>(d, str(what, ": shape[", out.size(), "]"));
    if (v < INT32_MIN || v > INT32_MAX) {
      throw ExprError(str(what, ": shape[", out.size(), "] = ", v, " exceeds the int32 range"));
    }
    out.push_back(make_int(v));
  };
  if (is_sym_dim(shape)) {
    one(shape);
  } else if (PySequence_Check(shape.ptr()) && !py::isinstance<py::str>(shape)) {
    for (const py::handle& d : shape) one(d);
  }
  return out;
}
bool has_sym_dim(const py::handle& shape) {
  if (is_sym_dim(shape)) return true;
  if (!PySequence_Check(shape.ptr()) || py::isinstance<py::str>(shape) ||
      py::isinstance<py::bytes>(shape)) {
    return false;
  }
  for (const py::handle& d : shape) {
    if (is_sym_dim(d)) return true;
  }
  return false;
}

// The axes of a reduction: reduce axes made by te.reduce_axis (an axis or a list of them).
std::vector<IterVar> to_reduce_axes(const py::handle& axis, const char* reduction) {
  std::vector<IterVar> axes;
  auto one = [&](const py::handle& h) {
    if (py::isinstance<IterVarNode>(h)) return axes.push_back(h.cast<PyIterVar>());
    if (py::isinstance<Expr>(h) && h.cast<Expr>().as<VarNode>()) {
      throw ExprError(str("te.", reduction, ": axis '", h.cast<Expr>().as<VarNode>()->name,
                          "' is a data axis (a parameter of the compute's lambda), not a reduce ",
                          "axis; reduce over an axis made by te.reduce_axis"));
    }
    throw ExprError(str("te.", reduction, ": axis must be a reduce axis made by te.reduce_axis ",
                        "(or a list of them), got ", describe_py(h)));
  };
  if (py::isinstance<py::list>(axis) || py::isinstance<py::tuple>(axis)) {
    for (const py::handle& h : axis) one(h);
  } else {
    one(axis);
  }
  return axes;
}

template <typename Cls>
void add_operators(Cls& cls) {
  using K = ExprKind;
  auto def2 = [&cls](const char* name, K k, bool reflected) {
    if (reflected) {
      cls.def(name, [k](const py::object& self, const py::object& other) {
        return binary(k, other, self);
      });
    } else {
      cls.def(name, [k](const py::object& self, const py::object& other) {
        return binary(k, self, other);
      });
    }
  };
  def2("__add__", K::kAdd, false);
  def2("__radd__", K::kAdd, true);
  def2("__sub__", K::kSub, false);
  def2("__rsub__", K::kSub, true);
  def2("__mul__", K::kMul, false);
  def2("__rmul__", K::kMul, true);
  def2("__truediv__", K::kDiv, false);
  def2("__rtruediv__", K::kDiv, true);
  def2("__floordiv__", K::kDiv, false);
  def2("__rfloordiv__", K::kDiv, true);
  def2("__mod__", K::kMod, false);
  def2("__rmod__", K::kMod, true);
  def2("__lt__", K::kLT, false);
  def2("__le__", K::kLE, false);
  def2("__gt__", K::kGT, false);
  def2("__ge__", K::kGE, false);
  auto defbits = [&cls](const char* name, const char* op, bool reflected) {
    cls.def(name, [op, reflected](const py::object& self, const py::object& other) {
      return reflected ? bits(op, other, self) : bits(op, self, other);
    });
  };
  defbits("__and__", "bitwise_and", false);
  defbits("__rand__", "bitwise_and", true);
  defbits("__or__", "bitwise_or", false);
  defbits("__ror__", "bitwise_or", true);
  defbits("__xor__", "bitwise_xor", false);
  defbits("__rxor__", "bitwise_xor", true);
  defbits("__lshift__", "shift_left", false);
  defbits("__rlshift__", "shift_left", true);
  defbits("__rshift__", "shift_right", false);
  defbits("__rrshift__", "shift_right", true);
  cls.def("equal", [](const py::object& a, const py::object& b) { return binary(K::kEQ, a, b); });
  cls.def("not_equal",
          [](const py::object& a, const py::object& b) { return binary(K::kNE, a, b); });
  cls.def("__neg__", [](const py::object& a) { return negate(to_expr(a)); });
  cls.def("__invert__", [](const py::object& a) {
    Expr e = to_expr(a);
    return is_int(e.dtype()) ? bitwise_not(e) : logical_not(e);
  });
  cls.def("astype", [](const py::object& a, const std::string& t) {
    return cast(dtype_from(t), to_expr(a));
  });
  cls.def("__bool__", [](const py::object&) -> bool {
    throw ExprError(
        "a tensor expression has no truth value; use te.all/te.any or & | ~ instead of and/or/not, "
        "and te.if_then_else instead of if");
  });
}

}  // namespace

void bind_te(py::module_& m) {
  py::module_ te = m.def_submodule("te", "tensor expressions");
  bind_te_const(te);

  py::class_<Expr> expr(te, "Expr");
  expr.def_property_readonly("dtype", [](const Expr& e) { return dtype_name(e.dtype()); })
      .def("__str__", [](const Expr& e) { return to_string(e); })
      .def("__repr__", [](const Expr& e) { return "Expr(" + to_string(e) + ")"; })
      .def("same_as", &Expr::same_as)
      .def_property_readonly("is_size_var",
                             [](const Expr& e) {
                               const auto* v = e.as<VarNode>();
                               return v != nullptr && v->size_var;
                             });
  add_operators(expr);
  // `i == j` builds an expression, as in TVM; hashing falls back to identity.
  expr.def("__eq__",
           [](const py::object& a, const py::object& b) { return binary(ExprKind::kEQ, a, b); });
  expr.def("__ne__",
           [](const py::object& a, const py::object& b) { return binary(ExprKind::kNE, a, b); });
  expr.def("__hash__", [](const Expr& e) { return reinterpret_cast<intptr_t>(e.get()); });

  py::class_<IterVarNode, std::shared_ptr<IterVarNode>> iv(te, "IterVar");
  iv.def_property_readonly("var", [](const IterVarNode& n) -> Expr { return n.var; })
      .def_property_readonly("name", [](const IterVarNode& n) { return n.var.name(); })
      .def_property_readonly("dom",
                             [](const IterVarNode& n) {
                               return n.sym_extent.defined()
                                          ? py::make_tuple(n.min, py::cast(n.sym_extent))
                                          : py::make_tuple(n.min, n.extent);
                             })
      // A symbolic axis's extent is an expression of size variables (as TVM's dom.extent).
      .def_property_readonly("extent",
                             [](const IterVarNode& n) -> py::object {
                               if (n.sym_extent.defined()) return py::cast(n.sym_extent);
                               return py::cast(n.extent);
                             })
      .def("same_as", [](const IterVarNode& a, const PyIterVar& b) { return &a == b.get(); })
      .def_property_readonly("is_reduce",
                             [](const IterVarNode& n) { return n.kind == IterKind::kReduce; })
      .def_property_readonly("dtype",
                             [](const IterVarNode& n) { return dtype_name(n.var.dtype()); })
      .def("__repr__", [](const IterVarNode& n) {
        return str("IterVar(", n.var.name(), ", ", n.min, "..", n.min + n.extent, ")");
      });
  add_operators(iv);

  py::class_<OperationNode, std::shared_ptr<OperationNode>>(te, "Operation")
      .def_property_readonly("name", [](const OperationNode& o) { return o.name; })
      .def_property_readonly("axis", [](const OperationNode& o) { return py_ivs(o.axis); })
      .def_property_readonly("reduce_axis",
                             [](const OperationNode& o) { return py_ivs(o.reduce_axis); })
      .def_property_readonly("body",
                             [](const std::shared_ptr<OperationNode>& o) {
                               // TVM's: one body per output.
                               std::vector<Expr> b;
                               for (int i = 0; o->body.defined() && i < num_outputs(o); ++i) {
                                 b.push_back(output_body(o, i));
                               }
                               return b;
                             })
      .def_property_readonly("input_tensors",
                             [](const OperationNode& o) {
                               std::vector<Tensor> t;
                               for (const Operation& in : o.inputs) t.emplace_back(in);
                               return t;
                             })
      .def("output",
           [](const std::shared_ptr<OperationNode>& o, int i) { return Tensor(op_output(o, i)); })
      .def_property_readonly("num_outputs",
                             [](const std::shared_ptr<OperationNode>& o) { return num_outputs(o); })
      .def("same_as", [](const OperationNode& a, const PyOperation& b) { return &a == b.get(); })
      .def("__repr__", [](const OperationNode& o) { return "Operation(" + o.name + ")"; });

  py::class_<Tensor> tensor(te, "Tensor");
  // As in TVM, every output of a multi-output compute has the one operation.
  tensor.def_property_readonly("op", [](const Tensor& t) { return py_op(primary_of(t.op())); })
      .def_property_readonly("value_index", [](const Tensor& t) { return t.op()->value_index; })
      .def_property_readonly("name", &Tensor::name)
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_name(t.dtype()); })
      .def_property_readonly("shape",
                             [](const Tensor& t) {
                               py::tuple s(t.shape().size());
                               for (size_t i = 0; i < t.shape().size(); ++i) {
                                 const Expr* d = is_symbolic(t.op()) ? &t.op()->sym_shape[i]
                                                                     : nullptr;
                                 if (d && !d->as<IntImmNode>()) {
                                   s[i] = py::cast(*d);
                                 } else {
                                   s[i] = t.shape()[i];
                                 }
                               }
                               return s;
                             })
      .def_property_readonly("ndim", &Tensor::ndim)
      .def("__getitem__",
           [](const Tensor& t, const py::object& key) { return index_tensor(t, key); })
      .def("__call__",
           [](const Tensor& t, py::args args) {
             std::vector<Expr> idx;
             for (const py::handle& h : args) idx.push_back(to_index(t, idx.size(), h));
             return t(idx);
           })
      .def("__eq__", [](const Tensor& a, const Tensor& b) { return a.op() == b.op(); })
      .def("__hash__", [](const Tensor& t) { return reinterpret_cast<intptr_t>(t.op().get()); })
      .def("__neg__",
           [](const Tensor& t) {
             std::vector<std::string> axes;
             for (int d = 0; d < t.ndim(); ++d) axes.push_back(str("ax", d));
             return compute_sym(
                 shape_exprs(t.op()),
                 [&](const std::vector<Var>& v) {
                   return negate(t(std::vector<Expr>(v.begin(), v.end())));
                 },
                 "T_negative", axes);
           })
      .def("__repr__", [](const Tensor& t) { return "Tensor(" + t.name() + ")"; });
  // A + B, A * 2, 1 - A, ...: elementwise computes named as topi names them.
  struct TensorOp {
    const char* py;
    ExprKind kind;
    const char* name;
    bool reflected;
  };
  static const TensorOp kTensorOps[] = {
      {"__add__", ExprKind::kAdd, "T_add", false},
      {"__radd__", ExprKind::kAdd, "T_add", true},
      {"__sub__", ExprKind::kSub, "T_subtract", false},
      {"__rsub__", ExprKind::kSub, "T_subtract", true},
      {"__mul__", ExprKind::kMul, "T_multiply", false},
      {"__rmul__", ExprKind::kMul, "T_multiply", true},
      {"__truediv__", ExprKind::kDiv, "T_divide", false},
      {"__rtruediv__", ExprKind::kDiv, "T_divide", true},
      {"__floordiv__", ExprKind::kDiv, "T_floor_divide", false},
      {"__rfloordiv__", ExprKind::kDiv, "T_floor_divide", true},
      {"__mod__", ExprKind::kMod, "T_mod", false},
      {"__rmod__", ExprKind::kMod, "T_mod", true},
  };
  for (const TensorOp& op : kTensorOps) {
    tensor.def(op.py, [op](const py::object& self, const py::object& other) {
      return op.reflected ? elementwise(op.kind, op.name, other, self)
                          : elementwise(op.kind, op.name, self, other);
    });
  }

  py::class_<TensorSlice> slice(te, "TensorSlice");
  slice.def_property_readonly("tensor", [](const TensorSlice& s) { return s.tensor; })
      .def("__getitem__",
           [](const TensorSlice& s, const py::object& key) {
             return index_tensor(s.tensor, key, s.indices);
           })
      .def("__repr__", [](const TensorSlice& s) {
        return str("TensorSlice(", s.tensor.name(), ", ", s.indices.size(), " of ", s.tensor.ndim(),
                   " indices)");
      });
  add_operators(slice);  // arithmetic on a partial read: the ExprError of the read (to_expr)

  te.def(
      "placeholder",
      [](const py::object& shape, const std::string& dtype, const std::string& name) {
        if (has_sym_dim(shape)) {
          return placeholder_sym(to_sym_shape(shape, str("te.placeholder '", name, "'")),
                                 dtype_from(dtype), name);
        }
        return placeholder(to_shape(shape, str("te.placeholder '", name, "'")), dtype_from(dtype),
                           name);
      },
      py::arg("shape"), py::arg("dtype") = "float32", py::arg("name") = "placeholder");

  // te.var / te.size_var: a size variable (a symbolic extent, bound when the kernel is called).
  te.def(
      "_size_var",
      [](const std::string& name, const std::string& dtype) {
        DType t = dtype_from(dtype);
        if (!is_int(t)) {
          throw ExprError(str("te.var '", name, "': dtype ", dtype,
                              "; size variables are integers (int32 or int64)"));
        }
        return static_cast<Expr>(Var::size(name, t));
      },
      py::arg("name"), py::arg("dtype") = "int32");

  te.def(
      "reduce_axis",
      [](const py::object& dom, const std::string& name) {
        std::string what = str("te.reduce_axis '", name, "'");
        bool pair =
            (py::isinstance<py::tuple>(dom) || py::isinstance<py::list>(dom)) && py::len(dom) == 2;
        if (!pair) {
          throw ExprError(
              str(what, ": dom must be a pair (min, end) of integers, got ", describe_py(dom)));
        }
        py::sequence d = dom.cast<py::sequence>();
        if (is_sym_dim(d[1])) {  // a symbolic end: te.reduce_axis((0, n))
          int64_t lo = int64_arg<ExprError>(d[0], what + ": dom[0] (min)");
          Expr end = d[1].cast<Expr>();
          Expr extent =
              lo == 0 ? end : binary_op(ExprKind::kSub, end, int_literal(lo, end.dtype()));
          return py_iv(reduce_axis(lo, extent, name));
        }
        int64_t lo = int64_arg<ExprError>(d[0], what + ": dom[0] (min)");
        int64_t hi = int64_arg<ExprError>(d[1], what + ": dom[1] (end)");
        // end - min in int128 terms: both are int64, so the difference may not fit int64.
        if ((hi > 0 && lo < hi - INT64_MAX) || (hi < 0 && lo > hi + INT64_MAX)) {
          throw ExprError(str(what, ": the range [", lo, ", ", hi, ") is too wide"));
        }
        return py_iv(reduce_axis(lo, hi - lo, name));
      },
      py::arg("dom"), py::arg("name") = "rv");

  te.def("_compute", [](const py::object& shape, const py::function& f, const std::string& name,
                        const std::vector<std::string>& axis_names,
                        const std::optional<std::tuple<uint64_t, uint64_t, uint64_t>>& work) {
    std::optional<Work> true_work;
    if (work) true_work = Work{std::get<0>(*work), std::get<1>(*work), std::get<2>(*work)};
    // A function returning a tuple or list makes a multi-output compute (TVM's): the outputs
    // are returned as a list.
    auto body = [&](const std::vector<Var>& vars) {
      py::tuple args(vars.size());
      for (size_t i = 0; i < vars.size(); ++i)
        args[i] = py::cast(static_cast<const Expr&>(vars[i]));
      py::object value = f(*args);
      std::vector<Expr> out;
      if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
        for (const py::handle& v : value) {
          out.push_back(to_expr(py::reinterpret_borrow<py::object>(v)));
        }
      } else {
        out.push_back(to_expr(value));
      }
      return out;
    };
    std::vector<Tensor> outs =
        has_sym_dim(shape)
            ? compute_multi_sym(to_sym_shape(shape, str("te.compute '", name, "'")), body, name,
                                axis_names, true_work)
            : compute_multi(to_shape(shape, str("te.compute '", name, "'")), body, name,
                            axis_names, true_work);
    if (outs.size() > 1 && true_work) {
      throw ExprError(str("te.compute '", name, "': true_work is declared for one-output "
                          "computes; this one has ", outs.size(), " outputs"));
    }
    return outs.size() == 1 ? py::cast(outs[0]) : py::cast(outs);
  });

  auto reduction = [](ReduceKind k) {
    return [k](const py::object& source, const py::object& axis, const py::object& where,
               const py::object& init) {
      std::vector<IterVar> axes = to_reduce_axes(axis, k == ReduceKind::kSum   ? "sum"
                                                       : k == ReduceKind::kMax ? "max"
                                                                               : "min");
      Expr w = where.is_none() ? Expr() : to_expr(where);
      Expr s = to_expr(source);
      Expr i = init.is_none() ? Expr() : to_expr(init, s.dtype());  // a literal takes s's type
      switch (k) {
        case ReduceKind::kSum:
          return sum(s, axes, w, i);
        case ReduceKind::kMax:
          return max_reduce(s, axes, w, i);
        case ReduceKind::kMin:
          return min_reduce(s, axes, w, i);
        case ReduceKind::kCustom:
          break;  // te.comm_reducer goes through _comm_reduce
      }
      throw InternalError("te: a custom reduction reached the built-in reduction binding");
    };
  };
  te.def("_sum", reduction(ReduceKind::kSum), py::arg("source"), py::arg("axis"),
         py::arg("where") = py::none(), py::arg("init") = py::none());
  te.def("_max_reduce", reduction(ReduceKind::kMax), py::arg("source"), py::arg("axis"),
         py::arg("where") = py::none(), py::arg("init") = py::none());
  te.def("_min_reduce", reduction(ReduceKind::kMin), py::arg("source"), py::arg("axis"),
         py::arg("where") = py::none(), py::arg("init") = py::none());
  // te.comm_reducer's reduction: the reducer is built for the source's type (fcombine over two
  // variables of it, fidentity(dtype)), then the reduction.
  te.def("_comm_reduce", [](const std::string& name, const py::function& fcombine,
                            const py::function& fidentity, const py::object& source,
                            const py::object& axis, const py::object& where,
                            const py::object& init) {
    std::vector<IterVar> axes = to_reduce_axes(axis, "comm_reducer");
    Expr s = to_expr(source);
    DType t = s.dtype();
    Var lhs("x", t), rhs("y", t);
    py::object c = fcombine(py::cast(static_cast<const Expr&>(lhs)),
                            py::cast(static_cast<const Expr&>(rhs)));
    if (py::isinstance<py::tuple>(c) || py::isinstance<py::list>(c)) {
      throw ExprError(str("te.comm_reducer '", name, "': fcombine returns ", py::len(c),
                          " values but the reduction has one source; a reducer over tuples "
                          "takes a tuple of sources, one per value: ", name, "((k, A[i, k]), "
                          "axis=k)"));
    }
    Expr combine = to_expr(c, t);
    Expr identity = to_expr(fidentity(dtype_name(t)), t);
    Expr w = where.is_none() ? Expr() : to_expr(where);
    Expr i = init.is_none() ? Expr() : to_expr(init, t);
    return comm_reduce(comm_reducer(name, lhs, rhs, combine, identity), s, axes, w, i);
  });
  // te.comm_reducer over a tuple of sources (TVM's argmax): fcombine(x, y) gets tuples of
  // variables named after its parameters and returns a tuple; fidentity(*dtypes) a tuple.
  te.def("_comm_reduce_tuple", [](const std::string& name, const py::function& fcombine,
                                  const py::function& fidentity, const py::sequence& sources,
                                  const py::object& axis, const py::object& where,
                                  const py::object& init, const std::string& lname,
                                  const std::string& rname) {
    std::vector<IterVar> axes = to_reduce_axes(axis, "comm_reducer");
    std::string what = str("te.comm_reducer '", name, "'");
    std::vector<Expr> srcs;
    std::vector<Var> lhs, rhs;
    py::tuple lt(py::len(sources)), rt(py::len(sources)), dtypes(py::len(sources));
    for (size_t j = 0; j < py::len(sources); ++j) {
      srcs.push_back(to_expr(sources[j]));
      DType t = srcs.back().dtype();
      lhs.emplace_back(str(lname, "_", j), t);
      rhs.emplace_back(str(rname, "_", j), t);
      lt[j] = py::cast(static_cast<const Expr&>(lhs.back()));
      rt[j] = py::cast(static_cast<const Expr&>(rhs.back()));
      dtypes[j] = py::str(dtype_name(t));
    }
    size_t n = srcs.size();
    // fn: "fcombine returns", "fidentity returns", "init= has".
    auto values = [&](const py::object& v, const char* fn) {
      if (!py::isinstance<py::tuple>(v) && !py::isinstance<py::list>(v)) {
        throw ExprError(str(what, ": ", fn, " one value but the reduction is over tuples of ", n,
                            "; give a tuple of ", n, " values"));
      }
      if (py::len(v) != n) {
        throw ExprError(str(what, ": ", fn, " ", py::len(v), " values but the reduction is over "
                            "tuples of ", n, " (one per source); give ", n));
      }
      std::vector<Expr> out;
      for (size_t j = 0; j < n; ++j) out.push_back(to_expr(v[py::int_(j)], lhs[j].dtype()));
      return out;
    };
    std::vector<Expr> combine = values(fcombine(lt, rt), "fcombine returns");
    std::vector<Expr> identity = values(fidentity(*dtypes), "fidentity returns");
    Expr w = where.is_none() ? Expr() : to_expr(where);
    // TVM's init= of a tuple reduction: one initial value per source (a literal takes its type).
    std::vector<Expr> inits = init.is_none() ? std::vector<Expr>{} : values(init, "init= has");
    return comm_reduce(comm_reducer(name, lhs, rhs, combine, identity), srcs, axes, w, inits);
  });
  te.def("_binary_max",
         [](const py::object& a, const py::object& b) { return binary(ExprKind::kMax, a, b); });
  te.def("_binary_min",
         [](const py::object& a, const py::object& b) { return binary(ExprKind::kMin, a, b); });
  te.def("_binary", [](const std::string& op, const py::object& a, const py::object& b) {
    static const std::pair<const char*, ExprKind> kOps[] = {
        {"and", ExprKind::kAnd}, {"or", ExprKind::kOr},        {"eq", ExprKind::kEQ},
        {"ne", ExprKind::kNE},   {"floordiv", ExprKind::kDiv}, {"floormod", ExprKind::kMod}};
    for (const auto& [n, k] : kOps) {
      if (op == n) return binary(k, a, b);
    }
    throw InternalError("unknown binary op " + op);
  });
  te.def("_bits", [](const std::string& name, const py::object& a, const py::object& b) {
    return bits(name.c_str(), a, b);
  });
  te.def("_bitwise_not", [](const py::object& a) { return bitwise_not(to_expr(a)); });
  te.def("select", [](const py::object& c, const py::object& t, const py::object& f) {
    Expr cond = to_expr(c);
    if (is_literal(t) && !is_literal(f)) {
      Expr ef = to_expr(f);
      return select(cond, to_expr(t, ef.dtype()), ef);
    }
    Expr et = to_expr(t);
    return select(cond, et, to_expr(f, et.dtype()));
  });
  te.def("cast", [](const py::object& v, const std::string& dtype) {
    return cast(dtype_from(dtype), to_expr(v));
  });
  te.def(
      "requantize",
      [](const py::object& x, int64_t multiplier, int64_t shift, int64_t zero_point) {
        return requantize(to_expr(x), multiplier, shift, zero_point);
      },
      py::arg("x"), py::arg("multiplier"), py::arg("shift"), py::arg("zero_point") = 0);
  te.def("_call", [](const std::string& name, const py::args& args) {
    std::vector<Expr> a;
    for (const py::handle& h : args) a.push_back(to_expr(h));
    if (a.size() == 2 && is_literal(args[1])) a[1] = to_expr(args[1], a[0].dtype());
    return math_call(name, a);
  });
}

}  // namespace tessera::python
