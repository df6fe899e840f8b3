// The helpers of py_tuning.h.
#include "python/src/py_tuning.h"

#include "autotune/errors.h"
#include "runtime/base/error.h"

namespace tessera::python {

namespace {

// The Python exception classes that map back to C++ ones, set by bind_tuning (the module lives
// as long as the interpreter, so borrowed handles stay valid).
struct ErrorClass {
  const char* name;
  void (*raise)(const std::string&);
};

template <typename E>
void raise(const std::string& message) {
  throw E(message);
}

// Subclasses before their bases: the first match wins.
const ErrorClass kErrorClasses[] = {
    {"MeasurementCancelled", raise<autotune::MeasurementCancelled>},
    {"ConfigError", raise<autotune::ConfigError>},
    {"TuningLogError", raise<autotune::TuningLogError>},
    {"ScheduleError", raise<ScheduleError>},
    {"ExprError", raise<ExprError>},
    {"LowerError", raise<LowerError>},
    {"TargetError", raise<TargetError>},
    {"KernelFileError", raise<KernelFileError>},
    {"ArgumentError", raise<ArgumentError>},
    {"SimulationError", raise<SimulationError>},
};

bool is_python_alive() { return Py_IsInitialized() && !_Py_IsFinalizing(); }

}  // namespace

PyRef hold(py::object o) {
  return PyRef(new py::object(std::move(o)), [](py::object* p) {
    if (is_python_alive()) {
      py::gil_scoped_acquire gil;
      delete p;
    } else {
      p->release();  // the interpreter is gone: nothing left to decrement
      delete p;
    }
  });
}

py::object json_to_py(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

nlohmann::json py_to_json(const py::handle& o) {
  std::string text = py::str(py::module_::import("json").attr("dumps")(o));
  return nlohmann::json::parse(text);
}

void rethrow_python_error(py::error_already_set& e, const std::string& where) {
  py::module_ core = py::module_::import("tessera._tessera");
  py::module_ tuning = core.attr("tuning");
  const std::string message = py::str(e.value());
  for (const ErrorClass& c : kErrorClasses) {
    py::object cls = py::hasattr(tuning, c.name) ? tuning.attr(c.name) : core.attr(c.name);
    if (e.matches(cls)) c.raise(message);
  }
  // Anything else is a bug of the Python code or of tessera: the exception and where it was
  // raised, innermost frame first, files by their base name (a log's bytes do not depend on where
  // the code is checked out).
  py::object extract = py::module_::import("traceback").attr("extract_tb");
  py::object basename = py::module_::import("os.path").attr("basename");
  std::string frames;
  py::list tb = extract(e.trace());
  for (size_t i = tb.size(); i-- > 0;) {
    py::object f = tb[i];
    frames +=
        str(frames.empty() ? "" : " <- ", std::string(py::str(basename(f.attr("filename")))), ":",
            f.attr("lineno").cast<int64_t>(), " in ", std::string(py::str(f.attr("name"))));
  }
  const std::string type = py::str(e.type().attr("__name__"));
  throw InternalError(
      str(where, " raised ", type, ": ", message, frames.empty() ? "" : " (at " + frames + ")"));
}

}  // namespace tessera::python
