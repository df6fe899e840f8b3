// Structural equality, hashing and ordering of expressions.
//
// Two expressions are structurally equal when they have the same kinds, types and constants, the
// same variables (by identity, not by name), and read the same buffers and operations (by
// identity). The hash and the order are deterministic: they depend on names, constants and
// variable creation order, never on addresses, so that anything built from them (a sorted list of
// terms, a table's iteration order) is the same on every run.
#pragma once

#include <cstddef>

#include "compiler/ir/ir.h"

namespace tessera {

bool structural_equal(const Expr& a, const Expr& b);

// Equal expressions have equal hashes. Variables hash by name, buffers and operations by name.
size_t structural_hash(const Expr& e);

// A total preorder consistent with structural_equal: returns <0, 0 or >0. Variables order by
// creation (VarLess); other kinds by kind, type, constants and then children left to right.
// Returns 0 for equal expressions, and also for the rare pair that differs only in the identity of
// two same-named, same-shaped buffers or operations (nothing deterministic tells them apart).
// The simplifier uses it to put the terms of a sum in a canonical order.
int structural_compare(const Expr& a, const Expr& b);

}  // namespace tessera
