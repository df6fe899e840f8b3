// Shared helpers of the binding files: Python holds non-const handles to immutable IR objects.
#pragma once

#include <memory>
#include <vector>

#include "compiler/te/operation.h"

namespace tessera::python {

using PyIterVar = std::shared_ptr<IterVarNode>;
using PyOperation = std::shared_ptr<OperationNode>;
PyIterVar py_iv(const IterVar& iv);
std::vector<PyIterVar> py_ivs(const std::vector<IterVar>& v);
PyOperation py_op(const Operation& op);

}  // namespace tessera::python
