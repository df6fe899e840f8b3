// Maps tessera's C++ error classes to Python exceptions of the same names.
// ScheduleError, ExprError and ArgumentError are also ValueErrors, as a Python user expects.
#include <pybind11/pybind11.h>

#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "TesseraError", PyExc_RuntimeError);
  static py::exception<UserError> user(m, "UserError", error.ptr());
  // Multiple bases: build the class with Python's type() so it derives from both.
  auto derive = [&m](const char* name, py::handle base, py::handle extra) {
    py::object bases = extra ? py::make_tuple(base, extra) : py::make_tuple(base);
    py::object cls = py::reinterpret_borrow<py::object>((PyObject*)&PyType_Type)(
        name, bases, py::dict(py::arg("__module__") = "tessera"));
    m.attr(name) = cls;
    return cls;
  };
  static py::object expr_error = derive("ExprError", user, PyExc_ValueError);
  static py::object schedule_error = derive("ScheduleError", user, PyExc_ValueError);
  static py::object lower_error = derive("LowerError", user, py::handle());
  static py::object target_error = derive("TargetError", user, py::handle());
  static py::object kernel_file_error = derive("KernelFileError", user, py::handle());
  static py::object argument_error = derive("ArgumentError", user, PyExc_ValueError);
  static py::object simulation_error = derive("SimulationError", user, py::handle());
  static py::object runtime_error = derive("RuntimeError", error, py::handle());
  static py::object internal_error = derive("InternalError", error, py::handle());

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ExprError& e) {
      PyErr_SetString(expr_error.ptr(), e.what());
    } catch (const ScheduleError& e) {
      PyErr_SetString(schedule_error.ptr(), e.what());
    } catch (const LowerError& e) {
      PyErr_SetString(lower_error.ptr(), e.what());
    } catch (const TargetError& e) {
      PyErr_SetString(target_error.ptr(), e.what());
    } catch (const KernelFileError& e) {
      PyErr_SetString(kernel_file_error.ptr(), e.what());
    } catch (const ArgumentError& e) {
      PyErr_SetString(argument_error.ptr(), e.what());
    } catch (const SimulationError& e) {
      PyErr_SetString(simulation_error.ptr(), e.what());
    } catch (const UserError& e) {
      PyErr_SetString(user.ptr(), e.what());
    } catch (const RuntimeError& e) {
      PyErr_SetString(runtime_error.ptr(), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(internal_error.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace tessera::python
