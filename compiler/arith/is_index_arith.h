// Index arithmetic: an expression computed from variables and integer constants alone (loop
// variables, strides, offsets; anything that reads a buffer, calls or casts is data). It is the
// arithmetic compiler/arith reasons about assuming it never overflows, and the C backend emits it
// as plain signed C (fast addressing) instead of wrapping it; check_bounds proves, for every
// compute, that it indeed stays inside its type.
#pragma once

#include "compiler/ir/ir.h"

namespace tessera {

bool is_index_arith(const Expr& e);

}  // namespace tessera
