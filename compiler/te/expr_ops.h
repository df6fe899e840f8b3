// User-facing expression construction with dtype promotion (rules in runtime/base/dtype.h).
// Every function raises ExprError naming the operator and both types when the mix is illegal.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

// a <op> b for op in Add..Or (comparisons give bool; And/Or need bool operands).
Expr binary_op(ExprKind op, Expr a, Expr b);
// A "weak" literal that takes the type of the expression it meets: an integer literal takes
// `like`'s type (ExprError if it does not fit; a float `like` gives a float constant); a float
// literal takes `like`'s float type, float32 next to a narrow integer (ExprError next to
// int32/int64/bool: cast first).
Expr int_literal(int64_t v, DType like);
Expr float_literal(double v, DType like);
Expr logical_not(Expr a);
Expr negate(Expr a);
// select evaluates both sides; if_then_else is its lazy cousin (here both are pure, so equal).
Expr select(Expr cond, Expr t, Expr f);
Expr if_then_else(Expr cond, Expr t, Expr f);
// Explicit conversion; the only way to go int32 -> float32 and the like.
Expr cast(DType t, Expr v);
// exp, log, sqrt, tanh, sigmoid, floor, ceil (float only); abs (int or float); pow (float).
Expr math_call(const std::string& name, std::vector<Expr> args);

// Integer bit operations, TVM's tir.shift_left / shift_right / bitwise_and / bitwise_or /
// bitwise_xor (Python's << >> & | ^ on integer expressions): a Call of that name on the promoted
// integer type (ExprError for floats and bool). Shifts follow numpy: right shifts are arithmetic
// for signed and logical for unsigned types; an amount outside [0, bits) shifts every bit out.
Expr bitwise_op(const std::string& name, Expr a, Expr b);
Expr bitwise_not(Expr a);  // ~a on an integer type

// The NPU's int32 -> int8 requantization (docs/npu_isa.md):
//   clamp(((x * multiplier + 2^(shift-1)) >> shift) + zero_point, -128, 127)   (no rounding
// term when shift = 0), computed exactly in 64 bits. x must be int32; multiplier an int32,
// shift in [0, 62], zero_point an int8.
Expr requantize(Expr x, int64_t multiplier, int64_t shift, int64_t zero_point);

const char* op_symbol(ExprKind op);  // "+", "<", "min", ...

}  // namespace tessera
