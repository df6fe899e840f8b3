// One simplification step for one expression node whose operands are already simplified: the
// rules of the simplifier, without the traversal (which is in simplify.cpp).
//
// Integers: constants fold (const_fold.h). Index arithmetic (int32/int64 over variables and
// constants) is put in canonical linear form (linear_form.h), and floor division and modulo by a
// positive constant c split the numerator as c*q + r and drop what the bounds of r decide ((x*32 +
// y) / 32 == x when 0 <= y < 32), divide out common factors ((x*8 + 7) / 24 == x / 3, (x*4) % 16 ==
// (x % 4) * 4) and merge nested divisions
// ((x / 4) / 8 == x / 32); min, max and comparisons are decided from the bounds of the difference
// of their operands, and otherwise written as `terms op terms` with common terms cancelled.
// Integer data arithmetic (int8/int16/uint8, whose arithmetic wraps, and int32/int64 values
// computed from loads or calls: an accumulator may really wrap) keeps its shape, which later
// passes pattern-match (acc + a*b is a MAC): only x+0, x-0, x-x, x*1, x*0 simplify; division,
// min/max and comparisons are decided from the bounds of each operand separately.
// uint32/uint64: constants fold with unsigned semantics; otherwise only the identities exact
// under wrapping (x+0, x-0, x-x, x*1, x*0, x/1, x%1, min(x, x), x == x): no bounds, no linear
// forms, which read values as signed int64 numbers.
// Floats: constant operands fold; nothing else (no reassociation, no x*1.0).
// Bools: constants fold through && || !, x && true == x, !!x == x, !(a < b) == a >= b on integers.
//
// Why int32/int64 index arithmetic may be treated as mathematical integers: it computes loop
// indices and addresses, which the lowering keeps far from overflow; every loop-nest compiler
// makes this assumption.
#pragma once

#include "compiler/arith/interval.h"
#include "compiler/ir/ir.h"

namespace tessera {

Expr rewrite_binary(ExprKind k, const Expr& a, const Expr& b, const VarRanges& ranges);
Expr rewrite_not(const Expr& a);
Expr rewrite_select(const Expr& cond, const Expr& t, const Expr& f);
Expr rewrite_cast(DType t, const Expr& v);

}  // namespace tessera
