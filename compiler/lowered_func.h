// The result of lowering: a function over argument buffers with a loop-IR body.
// After flatten_storage every BufferLoad/BufferStore has exactly one (flat, row-major) index and
// every temporary is declared by an Allocate node; argument buffers are never allocated.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // in the user's argument order; each is "global"
  Stmt body;
};

}  // namespace tessera
