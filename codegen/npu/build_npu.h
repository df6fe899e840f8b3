// The NPU backend end to end: a lowered function -> a module that runs on the simulator.
#pragma once

#include "compiler/lowered_func.h"
#include "runtime/npu/target.h"
#include "runtime/npu_module.h"

namespace tessera {

// codegen_npu(f, target) wrapped with its target into a module.
NpuModule build_npu(const LoweredFunc& f, const npu::Target& target = npu::default_target());

}  // namespace tessera
