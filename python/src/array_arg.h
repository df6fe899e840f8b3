// How a numpy array becomes a kernel argument (CPU and NPU modules alike): a view of its memory,
// no copy, after the checks that keep a wrong layout from being read as garbage.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "runtime/ndarray.h"

namespace tessera::python {

// A view of numpy array `h` as the argument described by `arg` (e.g. "matmul: argument 2 'C'").
// ArgumentError naming it when h is not a numpy array, is not C-contiguous, has a dtype tessera
// does not know, is not in the machine's byte order (a '>f4' array would otherwise be read
// with its bytes swapped; it is refused rather than converted because an output must be written
// in place), or whose data is not aligned to its element size. A read-only array becomes a read-only view: the module refuses it as an output.
NDArray array_arg(const pybind11::handle& h, const std::string& arg);

}  // namespace tessera::python
