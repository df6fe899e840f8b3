// te.const, te.min_value, te.max_value and the integer literals behind them (te_const.h).
#include "python/src/te_const.h"

#include <limits>

#include "compiler/te/expr_ops.h"
#include "python/src/py_args.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

namespace {

// The largest finite value of a float type.
double max_finite(DType t) {
  if (t == DType::kFloat16) return 65504.0;
  return t == DType::kFloat32 ? double(std::numeric_limits<float>::max())
                              : std::numeric_limits<double>::max();
}

}  // namespace

DType dtype_from(const std::string& name) {
  auto t = parse_dtype(name);
  if (!t) throw ExprError(str("unknown dtype '", name, "'; known: ", known_dtype_names()));
  return *t;
}

Expr int_constant(const py::handle& h, DType t, const std::string& what) {
  if (t != DType::kUInt64 || !is_py_integer(h))
    return int_literal(int64_arg<ExprError>(h, what), t);
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!index) throw py::error_already_set();
  unsigned long long u = PyLong_AsUnsignedLongLong(index.ptr());  // fails for < 0 and >= 2^64
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw ExprError(str(what, " ", std::string(py::str(index)),
                        " does not fit in uint64 (range 0..18446744073709551615)"));
  }
  return make_int(static_cast<int64_t>(u), t);
}

void bind_te_const(py::module_& te) {
  te.def(
      "const",
      [](const py::object& v, const std::string& dtype) {
        DType t = dtype_from(dtype);
        // Python floats and numpy floating scalars.
        bool floating =
            py::isinstance<py::float_>(v) ||
            (!is_py_integer(v) && !py::isinstance<py::str>(v) && py::hasattr(v, "__float__"));
        if (floating) {
          if (!is_float(t)) throw ExprError(str("const: float value for dtype ", dtype));
          return make_float(py::float_(v).cast<double>(), t);
        }
        if (t == DType::kBool) {
          if (!py::isinstance<py::bool_>(v) && !is_py_integer(v))
            throw ExprError(str("te.const: value for bool must be a bool, got ", describe_py(v)));
          return make_bool(v.cast<bool>());
        }
        if (is_float(t) && !is_py_integer(v)) {
          throw ExprError(
              str("te.const: value for ", dtype, " must be a number, got ", describe_py(v)));
        }
        return int_constant(v, t, str("te.const: value for ", dtype));
      },
      py::arg("value"), py::arg("dtype") = "int32");
  // TVM's te.min_value / te.max_value: the lowest / highest finite value of a type.
  te.def("min_value", [](const std::string& dtype) {
    DType t = dtype_from(dtype);
    if (is_float(t)) return make_float(-max_finite(t), t);
    return make_int(int_min_of(t), t);
  });
  te.def("max_value", [](const std::string& dtype) {
    DType t = dtype_from(dtype);
    if (is_float(t)) return make_float(max_finite(t), t);
    if (t == DType::kUInt64) return make_int(static_cast<int64_t>(uint_max_of(t)), t);
    return make_int(int_max_of(t), t);
  });
}

}  // namespace tessera::python
