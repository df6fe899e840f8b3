// The description of a compiled CPU function that travels inside its shared library, so that an
// exported library can be loaded back and its arguments checked without the compiler.
//
// The generated C source defines two symbols (see codegen/c/codegen_c.h):
//   const char tessera_module_entry[]      = "<name>";   // which function the library exports
//   const char tessera_metadata_<name>[]   = "<json>";   // this metadata, as JSON text
// The JSON is compact, with keys in sorted order:
//   {"args":[{"dtype":"float32","name":"A","shape":[64,64],"written":false},...],"name":"add",
//    "externs":[{"function":"my_check","stage":"E"}],"version":3}
// `externs` lists the te.extern stages' C functions in the order the generated code calls them;
// the kernel returns -(kExternStatusBase + i) when the i-th one returns a nonzero status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"

namespace tessera {

// One argument of a compiled function: the buffer's user-facing name, element type and shape,
// and whether the function writes it (an output), so that a read-only array is refused there.
struct ArgSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  bool written = false;
};
bool operator==(const ArgSpec& a, const ArgSpec& b);
inline bool operator!=(const ArgSpec& a, const ArgSpec& b) { return !(a == b); }

// A te.extern stage's call: the stage and the user's C function it calls.
struct ExternSpec {
  std::string stage;
  std::string function;
};

struct ModuleMetadata {
  std::string name;  // the exported C function
  std::vector<ArgSpec> args;
  std::vector<ExternSpec> externs;
};

// 2: arguments say whether they are written. 3: the extern stages' functions.
constexpr int kModuleMetadataVersion = 3;
// The kernel's status when the i-th extern call (ModuleMetadata::externs) returns nonzero.
constexpr int32_t kExternStatusBase = 100;

// Deterministic JSON text (no whitespace, sorted keys).
std::string module_metadata_to_json(const ModuleMetadata& m);
// Parses the JSON text; RuntimeError naming `origin` (a file) when it is not valid metadata.
ModuleMetadata module_metadata_from_json(const std::string& text, const std::string& origin);

}  // namespace tessera
