// Constant folding with the IR's semantics, shared by the simplifier and the bound analyses.
//
// Integer results wrap to the width of their type as the C backend's two's complement arithmetic
// would (int8 127 + 1 == -128, uint8 0 - 1 == 255, uint32 0xFFFFFFFF + 1 == 0); Div and Mod are
// floor division and floor modulo (for unsigned types the same as C's / and %); uint64 values are
// bit patterns in int64 and fold with unsigned division, modulo, min, max and comparisons. float16
// results are rounded to float16 (the exact result of one operation on float16 operands, rounded
// once, which is what float32 arithmetic rounded to float16 gives too). Folding is refused (an
// undefined Expr is returned) whenever the result is not certain to match what the generated code
// computes: division or modulo by zero, float Mod, a float result that is not finite, min/max of a
// NaN, and float-to-int casts out of range.
#pragma once

#include <cstdint>

#include "compiler/ir/ir.h"

namespace tessera {

// v reduced to t's width: signed types to [min, max] of the type, uint8 to [0, 255], uint32 to
// [0, 2^32 - 1], bool to 0/1 (any non-zero value is true), int64 and uint64 (a bit pattern)
// unchanged. Inline: the hot path of compiled evaluation.
inline int64_t wrap_int(int64_t v, DType t) {
  switch (t) {
    case DType::kBool:
      return v != 0 ? 1 : 0;
    case DType::kInt8:
      return static_cast<int8_t>(static_cast<uint8_t>(v));
    case DType::kInt16:
      return static_cast<int16_t>(static_cast<uint16_t>(v));
    case DType::kInt32:
      return static_cast<int32_t>(static_cast<uint32_t>(v));
    case DType::kUInt8:
      return static_cast<uint8_t>(v);
    case DType::kUInt32:
      return static_cast<uint32_t>(v);
    default:
      return v;
  }
}
// The integer constant v in type t, wrapped to t's width.
Expr make_wrapped_int(int64_t v, DType t);

// Floor division and modulo (b != 0). floor_div(INT64_MIN, -1) wraps to INT64_MIN.
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

// op(a, b) when both are constants and folding is safe (see above), else undefined.
// k is any binary kind (Add .. Or).
Expr const_fold(ExprKind k, const Expr& a, const Expr& b);
// Cast of a constant to t, or undefined.
Expr const_fold_cast(DType t, const Expr& v);
// !a for a bool constant, or undefined.
Expr const_fold_not(const Expr& a);

}  // namespace tessera
