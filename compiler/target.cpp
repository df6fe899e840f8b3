#include "compiler/target.h"

#include "runtime/base/error.h"

namespace tessera {

Target::Target(const std::string& name) {
  if (name == "c") {
    kind_ = Kind::kC;
  } else if (name == "npu") {
    kind_ = Kind::kNpu;
    npu_ = npu::default_target();
  } else {
    throw TargetError(str("unknown target '", name,
                          "'; known shorthands: c (the host CPU), npu (the built-in npu-v1); for "
                          "another NPU pass its description (npu.load_target(path))"));
  }
}

Target::Target(const char* name) : Target(std::string(name ? name : "")) {}

Target::Target(const npu::Target& npu) : kind_(Kind::kNpu), npu_(npu) {
  npu::validate_target(npu_, npu_.name.empty() ? std::string("<unnamed>") : npu_.name);
}

Target Target::c() { return Target(); }

const npu::Target& Target::npu() const {
  TESSERA_ICHECK(kind_ == Kind::kNpu, "target '", name(), "' is not an NPU");
  return npu_;
}

std::string Target::name() const { return kind_ == Kind::kC ? std::string("c") : npu_.name; }

}  // namespace tessera
