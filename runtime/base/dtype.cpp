#include "runtime/base/dtype.h"

#include <limits>

#include "runtime/base/error.h"

namespace tessera {

bool is_int(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64 ||
         is_unsigned(t);
}
bool is_float(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}
bool is_unsigned(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt32 || t == DType::kUInt64;
}
bool is_signed(DType t) { return is_int(t) && !is_unsigned(t); }
bool is_wide_unsigned(DType t) { return t == DType::kUInt32 || t == DType::kUInt64; }

int bits_of(DType t) {
  switch (t) {
    case DType::kBool:
      return 1;
    case DType::kInt8:
    case DType::kUInt8:
      return 8;
    case DType::kInt16:
    case DType::kFloat16:
      return 16;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 32;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 64;
  }
  return 0;
}
int bytes_of(DType t) { return t == DType::kBool ? 1 : bits_of(t) / 8; }

std::string dtype_name(DType t) {
  switch (t) {
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kUInt8:
      return "uint8";
    case DType::kUInt32:
      return "uint32";
    case DType::kUInt64:
      return "uint64";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "?";
}

std::string dtype_c_name(DType t) {
  switch (t) {
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8_t";
    case DType::kInt16:
      return "int16_t";
    case DType::kInt32:
      return "int32_t";
    case DType::kInt64:
      return "int64_t";
    case DType::kUInt8:
      return "uint8_t";
    case DType::kUInt32:
      return "uint32_t";
    case DType::kUInt64:
      return "uint64_t";
    case DType::kFloat16:
      return "uint16_t";  // storage: the IEEE binary16 bits (codegen/c computes in float)
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
  }
  return "?";
}

const std::vector<DType>& all_dtypes() {
  // The order of error messages: bool, the signed, the unsigned, then the float types.
  static const std::vector<DType> kAll = {DType::kBool,    DType::kInt8,   DType::kInt16,
                                          DType::kInt32,   DType::kInt64,  DType::kUInt8,
                                          DType::kUInt32,  DType::kUInt64, DType::kFloat16,
                                          DType::kFloat32, DType::kFloat64};
  return kAll;
}

std::string known_dtype_names() {
  std::string s;
  for (DType t : all_dtypes()) s += (s.empty() ? "" : ", ") + dtype_name(t);
  return s;
}

std::optional<DType> parse_dtype(const std::string& name) {
  for (DType t : all_dtypes()) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

int64_t int_min_of(DType t) {
  switch (t) {
    case DType::kInt8:
      return std::numeric_limits<int8_t>::min();
    case DType::kInt16:
      return std::numeric_limits<int16_t>::min();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::min();
    default:
      return 0;
  }
}
int64_t int_max_of(DType t) {
  switch (t) {
    case DType::kBool:
      return 1;
    case DType::kInt8:
      return std::numeric_limits<int8_t>::max();
    case DType::kInt16:
      return std::numeric_limits<int16_t>::max();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::max();
    case DType::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    case DType::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    case DType::kUInt64:
      throw InternalError("int_max_of(uint64): the value does not fit int64; use uint_max_of");
    default:
      return 0;
  }
}
uint64_t uint_max_of(DType t) {
  switch (t) {
    case DType::kBool:
      return 1;
    case DType::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    case DType::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    case DType::kUInt64:
      return std::numeric_limits<uint64_t>::max();
    default:
      throw InternalError("uint_max_of(" + dtype_name(t) + "): not an unsigned type");
  }
}

bool int_holds(DType wide, DType narrow) {
  if (wide == narrow) return true;
  if (narrow == DType::kUInt64) return false;  // no other type holds 2^64 - 1
  if (wide == DType::kUInt64) return int_min_of(narrow) >= 0;
  return int_min_of(wide) <= int_min_of(narrow) && int_max_of(wide) >= int_max_of(narrow);
}

bool int_fits(int64_t v, DType t) {
  if (t == DType::kUInt64) return v >= 0;
  return v >= int_min_of(t) && v <= int_max_of(t);
}

namespace {
// Mantissa bits + 1: the widest integer a float represents exactly.
int exact_int_bits(DType f) { return f == DType::kFloat16 ? 11 : f == DType::kFloat32 ? 24 : 53; }
}  // namespace

std::optional<DType> promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kBool || b == DType::kBool) return std::nullopt;
  if (is_int(a) && is_int(b)) {
    if (int_holds(a, b)) return a;
    if (int_holds(b, a)) return b;
    // Mixed signedness where neither holds the other: the next wider signed type.
    for (DType t : {DType::kInt16, DType::kInt32, DType::kInt64}) {
      if (int_holds(t, a) && int_holds(t, b)) return t;
    }
    return std::nullopt;
  }
  if (is_float(a) && is_float(b)) return bits_of(a) > bits_of(b) ? a : b;
  DType f = is_float(a) ? a : b;
  DType i = is_float(a) ? b : a;
  // A signed type's magnitude takes bits - 1 bits; an unsigned one's all of them.
  int magnitude_bits = is_unsigned(i) ? bits_of(i) : bits_of(i) - 1;
  if (magnitude_bits < exact_int_bits(f)) return f;
  return std::nullopt;
}

}  // namespace tessera
