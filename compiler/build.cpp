#include "compiler/build.h"

#include "codegen/c/build_c.h"
#include "codegen/npu/build_npu.h"

namespace tessera {

Module build(const Schedule& sch, const std::vector<Tensor>& args, const Target& target,
             const std::string& name) {
  LoweredFunc f = lower(sch, args, name, target);
  switch (target.kind()) {
    case Target::Kind::kC:
      return build_c(f);
    case Target::Kind::kNpu:
      return build_npu(f, target.npu());
  }
  return build_c(f);  // unreachable: every kind is handled above
}

}  // namespace tessera
