// build(): lower a schedule and generate a runnable module for a target. Every target is
// dispatched here (the Python binding only forwards):
//   Target::c() / "c":  C with OpenMP, compiled by the system C compiler and loaded in-process
//                       (codegen/c/build_c.h) -> CpuModule;
//   an NPU target:      an NPU kernel for that target's simulator (codegen/npu/build_npu.h)
//                       -> NpuModule. "npu" is the built-in npu-v1.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "compiler/lower.h"
#include "runtime/cpu/cpu_module.h"
#include "runtime/npu_module.h"

namespace tessera {

// What build() returns: a CpuModule for the C target, an NpuModule for an NPU target.
using Module = std::variant<CpuModule, NpuModule>;

// TargetError for an unknown target name; errors of lower() and of the backend pass through.
// `c_options` say how the C target is compiled (another compiler, e.g. clang, with the default
// flags, is what the schedule fuzzer's differential check uses); naming a compiler for an NPU
// target is a TargetError.
Module build(const Schedule& sch, const std::vector<Tensor>& args, const Target& target,
             const std::string& name = "main", const CompileOptions& c_options = CompileOptions());
// Builds a function lower() made (TVM's build(lower(...))); TargetError when it was lowered for
// another target than `target`.
Module build(const LoweredFunc& f, const Target& target,
             const CompileOptions& c_options = CompileOptions());

}  // namespace tessera
