// Python bindings for the schedule area (filled in by its owner).
#include <pybind11/pybind11.h>

namespace tessera::python {
void bind_schedule(pybind11::module_& m) {}
}  // namespace tessera::python
