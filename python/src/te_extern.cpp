// Python bindings for extern stages (TVM's te.extern with tir.call_extern):
//
//   E = te.extern((n,), [A], lambda ins, outs: tir.call_extern("int32", "my_func", ins[0],
//                 outs[0], ins[0].shape[0]), name="E", c_source=SRC)
//
// fcompute gets ExternBuffer handles (TVM's tir.Buffer: name, shape, dtype, data) for the inputs
// and the output, and returns the call that call_extern records; the core (compiler/te/
// extern_op.h) checks it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "compiler/ir/ir_printer.h"
#include "compiler/te/extern_op.h"
#include "compiler/te/te.h"
#include "python/src/py_args.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

namespace {

// An extern stage's buffer as fcompute sees it: input `input`, or the output.
struct ExternBuffer {
  std::string name;
  DType dtype;
  std::vector<Expr> shape;
  int input = -1;
  bool output = false;
};

// What tir.call_extern returns: the call, arguments as the user gave them.
struct PyExternCall {
  std::optional<DType> ret;
  std::string func;
  std::vector<py::object> args;
};

DType dtype_arg(const std::string& name, const std::string& what) {
  auto t = parse_dtype(name);
  if (!t) throw ExprError(str(what, ": unknown dtype '", name, "'; known: ", known_dtype_names()));
  return *t;
}

// A shape: an int, an Expr (a size variable's expression) or a sequence of them.
std::vector<Expr> shape_arg(const py::handle& shape, const std::string& what) {
  std::vector<Expr> out;
  auto one = [&](const py::handle& d) {
    if (py::isinstance<Expr>(d)) return out.push_back(d.cast<Expr>());
    int64_t v = int64_arg<ExprError>(d, str(what, ": shape[", out.size(), "]"));
    if (v < INT32_MIN || v > INT32_MAX) {
      throw ExprError(str(what, ": shape[", out.size(), "] = ", v, " exceeds the int32 range"));
    }
    out.push_back(make_int(v));
  };
  if (py::isinstance<Expr>(shape) || is_py_integer(shape)) {
    one(shape);
  } else if (PySequence_Check(shape.ptr()) && !py::isinstance<py::str>(shape)) {
    for (const py::handle& d : shape) one(d);
  } else {
    throw ExprError(str(what, ": shape must be a tuple of integers, got ", describe_py(shape)));
  }
  return out;
}

// TVM's te.extern takes one shape or a list of shapes (one per output).
std::vector<Expr> output_shape(const py::handle& shape, const std::string& what) {
  if (py::isinstance<py::list>(shape) || py::isinstance<py::tuple>(shape)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(shape);
    bool nested =
        seq.size() > 0 && (py::isinstance<py::list>(seq[0]) || py::isinstance<py::tuple>(seq[0]));
    if (nested) {
      if (seq.size() != 1) {
        throw ExprError(str(what, ": ", seq.size(), " output shapes; tessera's extern stages ",
                            "have one output (write one te.extern per output)"));
      }
      return shape_arg(seq[0], what);
    }
  }
  return shape_arg(shape, what);
}

ExternArg extern_arg(const py::handle& a, const std::string& what) {
  ExternArg out;
  if (py::isinstance<ExternBuffer>(a)) {
    const auto& b = a.cast<const ExternBuffer&>();
    out.input = b.input;
    out.output = b.output;
  } else if (py::isinstance<Expr>(a)) {
    out.value = a.cast<Expr>();
  } else if (is_int_literal(a)) {
    out.value = make_int(int64_arg<ExprError>(a, what), DType::kInt32);
  } else if (is_float_literal(a)) {
    out.value = make_float(a.cast<double>(), DType::kFloat32);
  } else if (py::isinstance<Tensor>(a)) {
    throw ExprError(str(what, " is the tensor '", a.cast<Tensor>().name(), "'; pass its buffer ",
                        "(ins[i] or outs[0], the arguments fcompute gets)"));
  } else {
    throw ExprError(str(what, ": cannot pass ", describe_py(a), " to C; pass a buffer (ins[i], ",
                        "outs[0]), a number or a size expression"));
  }
  return out;
}

}  // namespace

void bind_te_extern(py::module_& m) {
  py::module_ te = m.attr("te").cast<py::module_>();
  py::class_<ExternBuffer>(te, "ExternBuffer",
                           "A buffer of an extern stage, as fcompute sees it (TVM's tir.Buffer)")
      .def_property_readonly("name", [](const ExternBuffer& b) { return b.name; })
      .def_property_readonly("dtype", [](const ExternBuffer& b) { return dtype_name(b.dtype); })
      .def_property_readonly("ndim", [](const ExternBuffer& b) { return b.shape.size(); })
      .def_property_readonly("shape",
                             [](const ExternBuffer& b) {
                               // Constant dimensions as ints, symbolic ones as expressions.
                               py::list out;
                               for (const Expr& d : b.shape) {
                                 const int64_t* c = as_const_int(d);
                                 out.append(c ? py::cast(*c) : py::cast(d));
                               }
                               return out;
                             })
      .def_property_readonly("data", [](const ExternBuffer& b) { return b; })
      .def("__repr__", [](const ExternBuffer& b) { return "ExternBuffer(" + b.name + ")"; });

  py::class_<PyExternCall>(te, "ExternCall", "A call of a C function (tir.call_extern)")
      .def_property_readonly("func", [](const PyExternCall& c) { return c.func; })
      .def("__repr__", [](const PyExternCall& c) { return "call_extern(" + c.func + ")"; });

  te.def(
      "_call_extern",
      [](const std::string& dtype, const std::string& func, const py::args& args) {
        PyExternCall c;
        if (dtype != "void" && dtype != "handle")
          c.ret = dtype_arg(dtype, "call_extern '" + func + "'");
        c.func = func;
        for (const py::handle& a : args) c.args.push_back(py::reinterpret_borrow<py::object>(a));
        return c;
      },
      py::arg("dtype"), py::arg("func_name"));

  te.def(
      "_extern",
      [](const py::object& shape, const std::vector<Tensor>& inputs, const py::function& fcompute,
         const std::string& name, const std::optional<std::string>& dtype,
         const std::optional<std::string>& c_source) {
        const std::string what = str("te.extern '", name, "'");
        std::vector<Expr> dims = output_shape(shape, what);
        DType t = dtype            ? dtype_arg(*dtype, what)
                  : inputs.empty() ? DType::kFloat32
                                   : inputs[0].dtype();
        py::list ins;
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (!inputs[i].defined()) throw ExprError(str(what, ": input ", i, " is empty"));
          ins.append(ExternBuffer{inputs[i].name(), inputs[i].dtype(), shape_exprs(inputs[i].op()),
                                  static_cast<int>(i), false});
        }
        py::list outs;
        outs.append(ExternBuffer{name, t, dims, -1, true});
        py::object r;
        try {
          r = fcompute(ins, outs);
        } catch (py::error_already_set& e) {
          if (!e.matches(PyExc_IndexError)) throw;
          std::string in_names;
          for (const Tensor& x : inputs) in_names += (in_names.empty() ? "" : ", ") + x.name();
          std::string why = py::str(e.value());
          throw ExprError(str(what, ": fcompute indexed a buffer that does not exist (", why,
                              "); the stage has ", inputs.size(),
                              " input buffer(s) (ins: ", in_names.empty() ? "none" : in_names,
                              ") and 1 output (outs: ", name, ")"));
        }
        if (!py::isinstance<PyExternCall>(r)) {
          throw ExprError(str(what, ": fcompute returned ", describe_py(r), "; it must return ",
                              "tir.call_extern(dtype, \"func\", ins[0], ..., outs[0])"));
        }
        const auto& pc = r.cast<const PyExternCall&>();
        ExternCall call;
        call.func = pc.func;
        call.ret = pc.ret;
        for (size_t a = 0; a < pc.args.size(); ++a) {
          call.args.push_back(
              extern_arg(pc.args[a], str(what, ": argument ", a, " of '", pc.func, "'")));
        }
        call.source = c_source.value_or("");
        return extern_op(dims, t, inputs, call, name);
      },
      py::arg("shape"), py::arg("inputs"), py::arg("fcompute"), py::arg("name") = "extern",
      py::arg("dtype") = py::none(), py::arg("c_source") = py::none());
}

}  // namespace tessera::python
