// The result of lowering: a function over argument buffers with a loop-IR body.
// After flatten_storage every BufferLoad/BufferStore has exactly one (flat, row-major) index and
// every temporary is declared by an Allocate node; argument buffers are never allocated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "runtime/base/work.h"

namespace tessera {

struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // in the user's argument order; each is "global"
  Stmt body;
  // The true work of what the function computes (compiler/te/true_work.h), for roofline figures:
  // lower() always sets it; the NPU backend stamps it into the kernel.
  std::optional<Work> work;
  // The name of the target lowered for ("c", "npu-v1", ...): build() of a lowered function checks
  // that it builds for the same one.
  std::string target;
  // The C sources of the function's extern stages (te.extern), each once in stage order: the C
  // backend compiles them into the module ahead of the kernel.
  std::vector<std::string> extern_sources;
};

}  // namespace tessera
