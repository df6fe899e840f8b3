#include "compiler/build.h"

#include "codegen/c/build_c.h"
#include "codegen/npu/build_npu.h"
#include "runtime/base/error.h"

namespace tessera {

Module build(const Schedule& sch, const std::vector<Tensor>& args, const Target& target,
             const std::string& name, const CompileOptions& c_options) {
  if (target.is_npu() && !c_options.compiler.empty()) {
    throw TargetError(str("build: compiler '", c_options.compiler,
                          "' applies to target c only; an NPU target has no C compiler"));
  }
  LoweredFunc f = lower(sch, args, name, target);
  switch (target.kind()) {
    case Target::Kind::kC:
      return build_c(f, c_options);
    case Target::Kind::kNpu:
      return build_npu(f, target.npu());
  }
  return build_c(f, c_options);  // unreachable: every kind is handled above
}

}  // namespace tessera
