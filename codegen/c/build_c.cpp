#include "codegen/c/build_c.h"

#include "codegen/c/codegen_c.h"

namespace tessera {

CpuModule build_c(const LoweredFunc& f, const CompileOptions& options) {
  return CpuModule::compile(codegen_c(f), f.name, c_arg_specs(f), options);
}

}  // namespace tessera
