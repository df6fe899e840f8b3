// flatten_storage: rewrites every multi-dimensional buffer access into one row-major index.
// Buffers keep their shape (it says how much to allocate); only accesses change.
#pragma once

#include "compiler/ir/ir.h"

namespace tessera {

Stmt flatten_storage(const Stmt& s);

// The row-major flat index of `index` into an array of `shape` (a single index as it is): the
// layout flatten_storage gives every access, shared by the passes that reason about strides.
Expr flat_index(const std::vector<int64_t>& shape, const std::vector<Expr>& index);
Expr flat_index(const Buffer& b, const std::vector<Expr>& index);

}  // namespace tessera
