// flatten_storage: rewrites every multi-dimensional buffer access into one row-major index.
// Buffers keep their shape (it says how much to allocate); only accesses change.
#pragma once

#include "compiler/ir/ir.h"

namespace tessera {

Stmt flatten_storage(const Stmt& s);

}  // namespace tessera
