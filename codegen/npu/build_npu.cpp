#include "codegen/npu/build_npu.h"

#include "codegen/npu/codegen_npu.h"

namespace tessera {

NpuModule build_npu(const LoweredFunc& f, const npu::Target& target) {
  return NpuModule(codegen_npu(f, target), target);
}

}  // namespace tessera
