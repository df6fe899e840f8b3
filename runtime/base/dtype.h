// Element types of tensors and expressions, and the promotion rules between them.
//
// Promotion (binary arithmetic, min/max, comparisons, select branches):
//   * equal types stay as they are;
//   * two integer types promote to the narrowest signed-or-unsigned type that holds every value of
//     both (int8+int16 -> int16, uint8+int8 -> int16, uint8+int32 -> int32);
//   * an integer and a float promote to the float only when the float holds every value of the
//     integer exactly (int8/int16/uint8 + float32 -> float32; int32 + float64 -> float64);
//     otherwise (int32 + float32, int64 + any float) it is an ExprError: cast explicitly;
//   * float32 + float64 -> float64;
//   * bool takes part only in logical operators, select conditions and ==/!=; arithmetic on bool
//     is an ExprError (cast it first).
// Literals from Python or C++ are "weak": an integer literal takes the other operand's type
// (an ExprError if it does not fit), a float literal takes the other operand's float type, or
// float32 next to a narrow integer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

enum class DType : uint8_t { kBool, kInt8, kInt16, kInt32, kInt64, kUInt8, kFloat32, kFloat64 };

bool is_int(DType t);  // signed or unsigned integer (not bool)
bool is_float(DType t);
bool is_signed(DType t);
int bits_of(DType t);
int bytes_of(DType t);
std::string dtype_name(DType t);    // "int8", "float32", ...
std::string dtype_c_name(DType t);  // "int8_t", "float", ...
// Parses "int8", "float32", ... ; nullopt for an unknown name.
std::optional<DType> parse_dtype(const std::string& name);
// The promoted type of a and b per the rules above; nullopt when the mix would lose information.
std::optional<DType> promote(DType a, DType b);
// Smallest and largest value of an integer type.
int64_t int_min_of(DType t);
int64_t int_max_of(DType t);

}  // namespace tessera
