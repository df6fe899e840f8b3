// Checks on Python values passed as integer arguments (extents, factors, indices, literals), so
// that a float, a string or an integer too wide for int64 gets tessera's typed error naming the
// argument, instead of pybind11's bare "Unable to cast Python instance to C++ type" or a silent
// truncation. Ranges (positive, fits int32, ...) are the C++ core's checks; this is only the type.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "runtime/base/error.h"

namespace tessera::python {

// "float 2.5", "str '4'", "bool True": what the user passed, for messages.
inline std::string describe_py(const pybind11::handle& h) {
  std::string type = pybind11::str(h.get_type().attr("__name__"));
  std::string text = pybind11::repr(h);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return type + " " + text;
}

// True for Python ints and anything that converts to one losslessly (__index__: numpy integer
// scalars), but not bool, which is an int in Python and almost always a mistake where a size is
// expected, and not a sequence (a numpy array has __index__ too, for one element).
inline bool is_py_integer(const pybind11::handle& h) {
  return !pybind11::isinstance<pybind11::bool_>(h) && PyIndex_Check(h.ptr()) &&
         !PySequence_Check(h.ptr());
}

// Literal values: Python numbers and numpy scalars, which tensor expressions take as constants.
// numpy's scalar types (np.int64(3), np.float32(0.5), np.bool_(True)) are literals like Python's
// numbers: they come out of shapes and numpy arithmetic in ordinary user code.
inline bool is_numpy_instance(const pybind11::handle& h, const char* type) {
  // only if numpy is already imported
  PyObject* numpy = PyImport_GetModule(pybind11::str("numpy").ptr());
  if (!numpy) return false;
  pybind11::object np = pybind11::reinterpret_steal<pybind11::object>(numpy);
  return pybind11::isinstance(h, np.attr(type));
}
inline bool is_bool_literal(const pybind11::handle& h) {
  return pybind11::isinstance<pybind11::bool_>(h) || is_numpy_instance(h, "bool_");
}
inline bool is_int_literal(const pybind11::handle& h) {
  return pybind11::isinstance<pybind11::int_>(h) ||
         (is_py_integer(h) && is_numpy_instance(h, "integer"));
}
inline bool is_float_literal(const pybind11::handle& h) {
  return pybind11::isinstance<pybind11::float_>(h) || is_numpy_instance(h, "floating");
}

inline bool is_literal(const pybind11::handle& h) {
  return is_int_literal(h) || is_float_literal(h) || is_bool_literal(h);
}

// The value of integer argument `what` (e.g. "stage 'C': split: factor"); E (ExprError,
// ScheduleError, ArgumentError) names it and the expected type when h is not an integer or does
// not fit int64.
template <typename E>
int64_t int64_arg(const pybind11::handle& h, const std::string& what) {
  if (!is_py_integer(h)) throw E(str(what, " must be an integer, got ", describe_py(h)));
  pybind11::object index = pybind11::reinterpret_steal<pybind11::object>(PyNumber_Index(h.ptr()));
  if (!index) throw pybind11::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) {
    throw E(str(what, " is ", std::string(pybind11::str(index)),
                ", which does not fit a 64-bit integer"));
  }
  if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
  return static_cast<int64_t>(v);
}

}  // namespace tessera::python
