// The target of a compilation, as a value: the host CPU (C with OpenMP) or an NPU described by an
// npu::Target (runtime/npu/target.h: MAC-array shape, memories, DDR port, every cost).
//
//   lower(s, args, "f", Target::c());
//   lower(s, args, "f", npu::load_target("runtime/npu/targets/npu-32x32.json"));
//   lower(s, args, "f", "npu");   // shorthand: the built-in npu-v1
//
// The strings "c" and "npu" convert implicitly (shorthands); any other name is a TargetError
// that lists them. lower(), build(), the operator library and codegen all take a Target (or, for
// NPU-only code, the npu::Target inside it).
#pragma once

#include <string>

#include "runtime/npu/target.h"

namespace tessera {

class Target {
 public:
  enum class Kind : uint8_t { kC, kNpu };

  // The shorthands "c" and "npu" (npu-v1); TargetError for any other name.
  Target(const std::string& name);  // NOLINT: the shorthands read naturally at call sites
  Target(const char* name);         // NOLINT
  // An NPU described by `npu` (validated again: a hand-edited description fails here).
  Target(const npu::Target& npu);  // NOLINT
  static Target c();

  Kind kind() const { return kind_; }
  bool is_npu() const { return kind_ == Kind::kNpu; }
  // The NPU description; InternalError when the target is not an NPU.
  const npu::Target& npu() const;
  // "c", or the NPU description's name ("npu-v1", ...), for messages.
  std::string name() const;

 private:
  Target() = default;
  Kind kind_ = Kind::kC;
  npu::Target npu_;
};

}  // namespace tessera
