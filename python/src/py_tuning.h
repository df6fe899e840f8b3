// Shared pieces of the auto-tuner's bindings (tuning.cpp, tuning_model.cpp, and the operator
// templates' autotune.cpp, which hands its C++ measurement functions to Python as a
// MeasureFunction).
//
// Threads: the tuning driver and the local executor's workers run C++ with the GIL released.
// Every Python object the C++ side keeps (a measurement, validity check, featurizer or progress
// callable) is held by a PyRef, whose last owner may be any thread: it takes the GIL to drop it.
// Python code is only ever entered through call_python(), which takes the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <string>

#include "autotune/executor.h"

namespace tessera::python {

namespace py = pybind11;

// A C++ measurement function as a Python object: what LocalExecutor runs. From a Python callable
// (measure_function_from_python) or from C++ (the operator templates).
struct MeasureFunction {
  autotune::MeasureFn fn;
  std::string name;  // for repr and messages
};

using PyRef = std::shared_ptr<py::object>;
PyRef hold(py::object o);

// nlohmann::json <-> Python objects, through Python's json module (the GIL must be held).
py::object json_to_py(const nlohmann::json& j);
nlohmann::json py_to_json(const py::handle& o);

// Turns the Python exception being handled into the tessera C++ error of the same class (a
// ScheduleError stays a ScheduleError, so the measurement is classified as the C++ one would
// be); any other Python exception becomes an InternalError carrying its traceback. `where`
// names the callable. Must be called with the GIL held, inside the catch of e.
[[noreturn]] void rethrow_python_error(py::error_already_set& e, const std::string& where);

// A C++ MeasureFn that calls `fn(input, context)` under the GIL.
MeasureFunction measure_function_from_python(py::object fn);

// A Python callable as a C++ callback that takes the GIL around the call; a Python exception
// becomes the tessera error of its class (rethrow_python_error), `where` naming the callable.
template <typename R, typename... Args>
std::function<R(Args...)> callback(const py::object& fn, std::string where) {
  PyRef ref = hold(fn);
  return [ref, where](Args... args) -> R {
    py::gil_scoped_acquire gil;
    try {
      if constexpr (std::is_void_v<R>)
        (*ref)(args...);
      else
        return (*ref)(args...).template cast<R>();
    } catch (py::error_already_set& e) {
      rethrow_python_error(e, where);
    }
  };
}

}  // namespace tessera::python
