#include "compiler/build.h"

#include "codegen/c/build_c.h"
#include "runtime/error.h"

namespace tessera {

CpuModule build(const Schedule& sch, const std::vector<Tensor>& args, const std::string& target,
                const std::string& name) {
  if (target != "c") {
    throw LowerError(str("build: unknown target '", target, "'; known targets: c"));
  }
  return build_c(lower(sch, args, name));
}

}  // namespace tessera
