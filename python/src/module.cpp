// The _tessera extension module: one binding file per user-facing area registers into it.
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace tessera::python {
void bind_errors(py::module_& m);
void bind_te(py::module_& m);
void bind_te_extern(py::module_& m);
void bind_schedule(py::module_& m);
void bind_runtime(py::module_& m);
void bind_npu(py::module_& m);
void bind_npu_build(py::module_& m);
void bind_autotune(py::module_& m);
void bind_tuning(py::module_& m);
void bind_tuning_job(py::module_& m);
}  // namespace tessera::python

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "tessera: a tensor compiler for NPUs (C++ core)";
  tessera::python::bind_errors(m);
  tessera::python::bind_te(m);
  tessera::python::bind_te_extern(m);
  tessera::python::bind_schedule(m);
  tessera::python::bind_runtime(m);
  tessera::python::bind_npu(m);
  tessera::python::bind_npu_build(m);
  tessera::python::bind_autotune(m);
  tessera::python::bind_tuning(m);
  tessera::python::bind_tuning_job(m);
}
