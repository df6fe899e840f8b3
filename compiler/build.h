// build(): lower a schedule and generate a runnable module for a target.
//   target "c": C with OpenMP, compiled by the system C compiler and loaded in-process.
#pragma once

#include <string>
#include <vector>

#include "compiler/lower.h"
#include "runtime/cpu/cpu_module.h"

namespace tessera {

// LowerError for an unknown target; errors of lower() and of the backend pass through.
CpuModule build(const Schedule& sch, const std::vector<Tensor>& args, const std::string& target,
                const std::string& name = "main");

}  // namespace tessera
