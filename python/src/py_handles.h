// Shared helpers of the binding files: Python holds non-const handles to immutable IR objects.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/target.h"
#include "compiler/te/operation.h"

namespace tessera::python {

using PyIterVar = std::shared_ptr<IterVarNode>;
using PyOperation = std::shared_ptr<OperationNode>;
PyIterVar py_iv(const IterVar& iv);
std::vector<PyIterVar> py_ivs(const std::vector<IterVar>& v);
PyOperation py_op(const Operation& op);

// A target as Python passes it: a shorthand ("c", "npu") or an npu.Target description.
using PyTarget = std::variant<std::string, npu::Target>;
inline Target to_target(const PyTarget& t) {
  return std::holds_alternative<std::string>(t) ? Target(std::get<std::string>(t))
                                                : Target(std::get<npu::Target>(t));
}
// An NPU description or None (the built-in npu-v1).
inline npu::Target npu_target_or_default(const std::optional<npu::Target>& t) {
  return t ? *t : npu::default_target();
}

}  // namespace tessera::python
