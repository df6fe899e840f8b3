// The C backend end to end: generate C for a lowered function, compile it and load it.
#pragma once

#include "compiler/lowered_func.h"
#include "runtime/cpu/cpu_module.h"

namespace tessera {

// codegen_c(f) compiled with `options` into a loaded module.
CpuModule build_c(const LoweredFunc& f, const CompileOptions& options = CompileOptions());

}  // namespace tessera
