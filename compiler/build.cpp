#include "compiler/build.h"

#include "codegen/c/build_c.h"
#include "codegen/npu/build_npu.h"
#include "runtime/base/error.h"

namespace tessera {

Module build(const Schedule& sch, const std::vector<Tensor>& args, const Target& target,
             const std::string& name, const CompileOptions& c_options) {
  return build(lower(sch, args, name, target), target, c_options);
}

Module build(const LoweredFunc& f, const Target& target, const CompileOptions& c_options) {
  if (target.is_npu() && !c_options.compiler.empty()) {
    throw TargetError(str("build: compiler '", c_options.compiler,
                          "' applies to target c only; an NPU target has no C compiler"));
  }
  if (f.target != target.name()) {
    throw TargetError(str("build: function '", f.name, "' was lowered for target '", f.target,
                          "', not '", target.name(), "'; build it for '", f.target,
                          "' or lower again with target='", target.name(), "'"));
  }
  switch (target.kind()) {
    case Target::Kind::kC:
      return build_c(f, c_options);
    case Target::Kind::kNpu:
      return build_npu(f, target.npu());
  }
  return build_c(f, c_options);  // unreachable: every kind is handled above
}

}  // namespace tessera
