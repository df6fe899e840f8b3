// build(): lower a schedule and generate a runnable module for a target.
//   target "c":   C with OpenMP, compiled by the system C compiler and loaded in-process.
//   target "npu": an NPU kernel for the npu-v1 simulator (build_npu).
#pragma once

#include <string>
#include <vector>

#include "compiler/lower.h"
#include "runtime/cpu/cpu_module.h"
#include "runtime/npu_module.h"

namespace tessera {

// LowerError for an unknown target; errors of lower() and of the backend pass through.
CpuModule build(const Schedule& sch, const std::vector<Tensor>& args, const std::string& target,
                const std::string& name = "main");
// The NPU kernel of a schedule, on `target` (the default npu-v1 when omitted).
NpuModule build_npu(const Schedule& sch, const std::vector<Tensor>& args,
                    const std::string& name = "main",
                    const npu::Target& target = npu::default_target());

}  // namespace tessera
