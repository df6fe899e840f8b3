// The static inline helpers that generated C uses where C's operators differ from the IR's
// semantics (floor division and modulo, min/max, integer abs, sigmoid) or where the IR has an
// operation C lacks (requantize: the NPU's int32 -> int8 rescaling, docs/npu_isa.md). Generated
// code defines only the helpers it uses, in a fixed order, so the source stays short and
// deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"

namespace tessera {

// kF16 is the float16 conversion block (one entry, any type): tsr_f16_bits(double) -> uint16_t
// rounds to the nearest float16 (ties to even, subnormals, overflow to inf, NaN keeps its sign and
// payload: runtime/base/float16.h's algorithm), tsr_f16_value(uint16_t) -> float widens exactly,
// tsr_f16_round(double) -> float is the two together. Generated C keeps float16 values in float
// and rounds after every operation (c_expr.cpp).
// kShiftLeft / kShiftRight: numpy's shifts, defined for every shift amount (an amount outside
// [0, bits) shifts everything out: 0, or -1 for a negative value shifted right).
enum class CHelper : uint8_t {
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kAbs,
  kSigmoid,
  kRequantize,
  kF16,
  kShiftLeft,
  kShiftRight
};

// "tsr_floordiv_i32", "tsr_min_f32", ...: the helper's name for operands of type t
// (kF16: "tsr_f16_round").
std::string c_helper_name(CHelper h, DType t);
// The C definition of that helper (one static inline function, newline-terminated). Requantize
// exists for t = int32 only: tsr_requantize_i32(int32_t a, int64_t multiplier, int64_t shift,
// int64_t zero_point) -> int8_t. kF16 defines its three functions.
std::string c_helper_definition(CHelper h, DType t);

// Identifiers generated code must not use for variables or buffers: C keywords, the names and
// macros of the C library headers it includes, and every helper name.
const std::vector<std::string>& c_reserved_names();

}  // namespace tessera
