// Element types of tensors and expressions, and the promotion rules between them.
//
// Promotion (binary arithmetic, min/max, comparisons, select branches):
//   * equal types stay as they are;
//   * two integer types promote to the narrowest signed-or-unsigned type that holds every value of
//     both (int8+int16 -> int16, uint8+int8 -> int16, uint8+int32 -> int32);
//     (uint32 + int32 -> int64); uint64 with a signed type has none: ExprError;
//   * an integer and a float promote to the float only when the float holds every value of the
//     integer exactly (int8/int16/uint8 + float32 -> float32; int8/uint8 + float16 -> float16;
//     int32/uint32 + float64 -> float64); otherwise (int32 + float32, int16 + float16, int64 or
//     uint64 + any float) it is an ExprError: cast explicitly;
//   * two floats promote to the wider (float16 + float32 -> float32, float32 + float64 ->
//     float64);
//   * bool takes part only in logical operators, select conditions and ==/!=; arithmetic on bool
//     is an ExprError (cast it first).
// Literals from Python or C++ are "weak": an integer literal takes the other operand's type
// (an ExprError if it does not fit), a float literal takes the other operand's float type, or
// float32 next to a narrow integer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

// float16 is IEEE binary16 (numpy's float16), two bytes; every operation on it rounds its exact
// result to float16 (round to nearest even), as numpy and TVM do. uint32/uint64 wrap modulo
// 2^32 / 2^64; an IntImm of uint64 holds the value's bit pattern (values above INT64_MAX are
// negative int64s): read it with as_uint64().
// New types are appended, so the numbers of the old ones never change.
enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kFloat32,
  kFloat64,
  kFloat16,
  kUInt32,
  kUInt64
};

bool is_int(DType t);  // signed or unsigned integer (not bool)
bool is_float(DType t);
bool is_signed(DType t);
bool is_unsigned(DType t);  // uint8, uint32, uint64
// uint32 and uint64: unsigned types as wide as (or wider than) C's int, whose arithmetic wraps
// and whose values the simplifier's int64 reasoning must not treat as signed numbers.
bool is_wide_unsigned(DType t);
int bits_of(DType t);
int bytes_of(DType t);
std::string dtype_name(DType t);    // "int8", "float32", ...
std::string dtype_c_name(DType t);  // "int8_t", "float", ...
// Parses "int8", "float32", ... ; nullopt for an unknown name.
std::optional<DType> parse_dtype(const std::string& name);
// Every dtype, in enum order; their names joined by ", " (for error messages).
const std::vector<DType>& all_dtypes();
std::string known_dtype_names();
// The promoted type of a and b per the rules above; nullopt when the mix would lose information.
std::optional<DType> promote(DType a, DType b);
// Smallest and largest value of an integer type (bool: 0 and 1). uint64's largest value does not
// fit int64: int_max_of(uint64) is an InternalError; use uint_max_of, or int_holds.
int64_t int_min_of(DType t);
int64_t int_max_of(DType t);
uint64_t uint_max_of(DType t);  // unsigned types and bool
// Does integer type `wide` hold every value of integer type `narrow`?
bool int_holds(DType wide, DType narrow);
// Does the integer v (a number, not a bit pattern) fit in integer type t? For uint64, v >= 0.
bool int_fits(int64_t v, DType t);

}  // namespace tessera
