#include "python/src/array_arg.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

NDArray array_arg(const py::handle& h, const std::string& arg) {
  if (!py::isinstance<py::array>(h)) {
    throw ArgumentError(str(arg, ": expected a numpy array, got a Python ",
                            std::string(py::str(h.get_type().attr("__name__")))));
  }
  py::array a = py::reinterpret_borrow<py::array>(h);
  if (!(a.flags() & py::array::c_style)) {
    throw ArgumentError(str(arg, ": the array is not C-contiguous; pass np.ascontiguousarray(x)"));
  }
  std::string dname = py::str(a.dtype().attr("name"));
  std::optional<DType> t = parse_dtype(dname);
  if (!t) {
    throw ArgumentError(
        str(arg, ": numpy dtype ", dname, " is not supported; supported: ", known_dtype_names()));
  }
  if (!a.dtype().attr("isnative").cast<bool>()) {
    std::string order = py::str(a.dtype().attr("str"));
    throw ArgumentError(str(arg, ": the array's dtype '", order,
                            "' is not in the machine's byte order; pass "
                            "x.astype(x.dtype.newbyteorder('='))"));
  }
  // Kernels (and the compilers behind them) assume each element sits at a multiple of its size;
  // np.frombuffer with an offset, or a view into a byte buffer, can break that.
  // (The element size comes from tessera's dtype: pybind11 2.10 reads numpy 2's descriptor at
  // numpy 1's layout, so py::array::itemsize() is not to be trusted.)
  const uintptr_t elem = static_cast<uintptr_t>(bytes_of(*t));
  if (reinterpret_cast<uintptr_t>(a.data()) % elem != 0) {
    throw ArgumentError(str(arg, ": the array's data is not aligned to its ", elem,
                            "-byte elements (as np.frombuffer with an offset can make); pass a "
                            "copy: x.copy()"));
  }
  bool writeable = a.writeable();
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  return NDArray::view(const_cast<void*>(a.data()), shape, *t, writeable);
}

}  // namespace tessera::python
