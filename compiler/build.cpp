#include "compiler/build.h"

#include "codegen/c/build_c.h"
#include "codegen/npu/build_npu.h"
#include "runtime/base/error.h"

namespace tessera {

CpuModule build(const Schedule& sch, const std::vector<Tensor>& args, const std::string& target,
                const std::string& name) {
  if (target == "npu") {
    throw LowerError("build: target 'npu' gives an NPU module; call build_npu");
  }
  if (target != "c") {
    throw LowerError(str("build: unknown target '", target, "'; known targets: c, npu"));
  }
  return build_c(lower(sch, args, name));
}

NpuModule build_npu(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name,
                    const npu::Target& target) {
  return build_npu(lower(sch, args, name, "npu"), target);
}

}  // namespace tessera
