// Constants from Python values for the te bindings: dtype names, integer literals of every
// integer type (uint64 up to 2^64 - 1), and te.const / te.min_value / te.max_value.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "compiler/ir/ir.h"

namespace tessera::python {

// The dtype named `name`, or ExprError listing the known ones.
DType dtype_from(const std::string& name);
// A Python integer as a constant of integer (or float) type t: uint64 takes 0 .. 2^64 - 1 (stored
// as its bit pattern), every other type what int_literal accepts; ExprError naming `what`.
Expr int_constant(const pybind11::handle& h, DType t, const std::string& what);
// Registers te.const, te.min_value and te.max_value.
void bind_te_const(pybind11::module_& te);

}  // namespace tessera::python
