// Prints one IR expression as a C expression, honouring the IR's semantics (see codegen_c.h).
// Every compound expression comes out fully parenthesised, so results compose without
// precedence surprises; strip_outer_parens() tidies the top level for statements.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "codegen/c/c_helpers.h"
#include "compiler/arith/interval.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {

// What expression printing needs to know about the function being generated, and what it
// records for the function's preamble.
struct CEmitContext {
  std::string func_name;  // for error messages
  NameTable names{/*sanitize=*/true};
  // C name of each buffer in scope (arguments and live Allocates). Keyed by node address for
  // lookup only; never iterated, so addresses do not reach the output.
  std::map<const BufferNode*, std::string> buffers;
  // Variables bound by an enclosing loop or let (by creation id).
  std::set<uint64_t> bound_vars;
  // Their ranges (loop: [min, min + extent - 1]; let: its value), so that integer / and % whose
  // operands are provably non-negative can be plain C operators instead of floor helpers.
  VarRanges ranges;
  // Helpers used so far; ordered, so the preamble is deterministic.
  std::set<std::pair<CHelper, DType>> helpers;
};

// The C text of e. InternalError for IR that cannot reach code generation (a ProducerLoad or
// Reduce, a multi-dimensional buffer access, an unbound variable, an unknown math function).
std::string c_expr(const Expr& e, CEmitContext& ctx);

// The C type holding a value of type t in expressions and variables: float for float16 (whose
// buffers hold uint16_t bits, dtype_c_name), dtype_c_name(t) otherwise.
std::string c_value_type(DType t);
// `value` (C text of a value of type t) converted to what a buffer of type t stores: the float16
// bits for float16 (rounded to nearest even), `value` itself otherwise.
std::string c_store_value(DType t, const std::string& value, CEmitContext& ctx);

// "(a + b)" -> "a + b"; leaves "(a) + (b)" alone.
std::string strip_outer_parens(const std::string& s);

}  // namespace tessera
