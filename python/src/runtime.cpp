// Python bindings for the runtime area (filled in by its owner).
#include <pybind11/pybind11.h>

namespace tessera::python {
void bind_runtime(pybind11::module_& m) {}
}  // namespace tessera::python
