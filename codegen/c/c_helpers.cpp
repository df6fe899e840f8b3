#include "codegen/c/c_helpers.h"

#include "runtime/base/error.h"

namespace tessera {

namespace {

constexpr CHelper kAllHelpers[] = {CHelper::kFloorDiv,   CHelper::kFloorMod,  CHelper::kMin,
                                   CHelper::kMax,        CHelper::kAbs,       CHelper::kSigmoid,
                                   CHelper::kRequantize, CHelper::kShiftLeft, CHelper::kShiftRight};

// The float16 conversions (see c_helpers.h), the same algorithm as runtime/base/float16.cpp.
constexpr const char* kF16Block = R"(static inline uint16_t tsr_f16_bits(double x) {
  union { double d; uint64_t u; } c = {x};
  const uint16_t sign = (uint16_t)((c.u >> 48) & 0x8000u);
  const int e = (int)((c.u >> 52) & 0x7ff);
  const uint64_t m = c.u & ((UINT64_C(1) << 52) - 1);
  if (e == 0x7ff) {
    const uint16_t p = (uint16_t)(m >> 42);
    return (uint16_t)(sign | 0x7c00u | (m == 0 ? 0u : p != 0 ? p : 1u));
  }
  if (e == 0) return sign;
  const int ex = e - 1023;
  if (ex > 15) return (uint16_t)(sign | 0x7c00u);  /* beyond the largest exponent: inf */
  const uint64_t sig = m | (UINT64_C(1) << 52);
  int shift = 42;
  uint32_t base = 0;
  if (ex >= -14) {
    base = (uint32_t)(ex + 14) << 10;
  } else {
    shift = 28 - ex;
    if (shift >= 64) return sign;
  }
  uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return (uint16_t)(sign | (base + q));
}
static inline float tsr_f16_value(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) ? 0x80000000u : 0u, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = (float)m * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  union { uint32_t u; float f; } c;
  c.u = sign | (e == 0x1f ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
  return c.f;
}
static inline float tsr_f16_round(double x) { return tsr_f16_value(tsr_f16_bits(x)); }
)";

const char* type_suffix(DType t) {
  switch (t) {
    case DType::kBool:
      return "b";
    case DType::kInt8:
      return "i8";
    case DType::kInt16:
      return "i16";
    case DType::kInt32:
      return "i32";
    case DType::kInt64:
      return "i64";
    case DType::kUInt8:
      return "u8";
    case DType::kUInt32:
      return "u32";
    case DType::kUInt64:
      return "u64";
    case DType::kFloat16:
      return "f16";
    case DType::kFloat32:
      return "f32";
    case DType::kFloat64:
      return "f64";
  }
  return "?";
}

const char* helper_stem(CHelper h) {
  switch (h) {
    case CHelper::kFloorDiv:
      return "floordiv";
    case CHelper::kFloorMod:
      return "floormod";
    case CHelper::kMin:
      return "min";
    case CHelper::kMax:
      return "max";
    case CHelper::kAbs:
      return "abs";
    case CHelper::kSigmoid:
      return "sigmoid";
    case CHelper::kRequantize:
      return "requantize";
    case CHelper::kF16:
      return "f16";
    case CHelper::kShiftLeft:
      return "shl";
    case CHelper::kShiftRight:
      return "shr";
  }
  return "?";
}

// C computes int8/int16/uint8 arithmetic in int: cast such results back to the operand type.
std::string narrow(DType t, const std::string& e) {
  bool narrower_than_int = t == DType::kInt8 || t == DType::kInt16 || t == DType::kUInt8;
  return narrower_than_int ? "(" + dtype_c_name(t) + ")(" + e + ")" : e;
}

// -a, wrapping at the type's minimum (in unsigned arithmetic for int32/int64, where C's `-`
// would be undefined there).
std::string negate(DType t) {
  if (t == DType::kInt32) return "(int32_t)(0u - (uint32_t)a)";
  if (t == DType::kInt64) return "(int64_t)(UINT64_C(0) - (uint64_t)a)";
  return narrow(t, "-a");
}

// The helper's body: a single return statement over operands a and b of C type T.
std::string helper_body(CHelper h, DType t) {
  const std::string T = dtype_c_name(t);
  const bool f32 = t == DType::kFloat32;
  switch (h) {
    // Integer division by zero gives 0 and INT_MIN / -1 wraps to INT_MIN (numpy's results); in C
    // both trap (SIGFPE) or are undefined, and a kernel must not bring the process down.
    case CHelper::kFloorDiv:
      if (is_float(t)) break;  // float division is plain `/`
      if (!is_signed(t)) return "return b == 0 ? 0 : " + narrow(t, "a / b") + ";";
      // C truncates toward zero; step down when the quotient is inexact and negative.
      return "  if (b == 0) return 0;\n  if (b == -1) return " + negate(t) + ";\n  " + T +
             " q = " + narrow(t, "a / b") + ";\n  return " +
             narrow(t, "(q * b != a && (a < 0) != (b < 0)) ? q - 1 : q") + ";";
    case CHelper::kFloorMod:
      if (is_float(t)) return str("return a - ", f32 ? "floorf" : "floor", "(a / b) * b;");
      if (!is_signed(t)) return "return b == 0 ? 0 : " + narrow(t, "a % b") + ";";
      // The result takes the sign of the divisor.
      return "  if (b == 0 || b == -1) return 0;\n  " + T + " r = " + narrow(t, "a % b") +
             ";\n  return " + narrow(t, "(r != 0 && (r < 0) != (b < 0)) ? r + b : r") + ";";
    case CHelper::kMin:
      return "return a < b ? a : b;";
    case CHelper::kMax:
      return "return a > b ? a : b;";
    case CHelper::kAbs:
      if (!is_int(t)) break;  // floats use fabsf/fabs
      if (!is_signed(t)) return "return a;";
      // abs(INT_MIN) wraps instead of being undefined.
      return "return a < 0 ? " + negate(t) + " : a;";
    case CHelper::kSigmoid:
      if (!is_float(t)) break;
      return f32 ? "return 1.0f / (1.0f + expf(-a));" : "return 1.0 / (1.0 + exp(-a));";
    case CHelper::kRequantize:
      if (t != DType::kInt32) break;
      // As the NPU's vector unit: a * multiplier exactly in 64 bits (|a|, |m| < 2^31), a rounding
      // arithmetic shift, the zero point, then saturation to int8. (>> of a negative int64 is
      // arithmetic on every compiler tessera supports.)
      return "  int64_t v = (int64_t)a * m;\n"
             "  if (shift > 0) v = (v + ((int64_t)1 << (shift - 1))) >> shift;\n"
             "  v += zp;\n"
             "  return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);";
    case CHelper::kShiftLeft:
    case CHelper::kShiftRight: {
      if (!is_int(t)) break;
      // An amount outside [0, bits) shifts every bit out (C leaves it undefined).
      std::string out_of_range = str(is_signed(t) ? "b < 0 || " : "", "b >= ", bits_of(t));
      if (h == CHelper::kShiftLeft) {
        // In the unsigned type of the same width, where C's << never overflows.
        std::string u = is_signed(t) ? "(u" + T + ")" : "";
        return str("return ", out_of_range, " ? 0 : (", T, ")(", u, "a << b);");
      }
      // >> of a negative value is arithmetic on every compiler tessera supports.
      std::string all_out = is_signed(t) ? "(a < 0 ? -1 : 0)" : "0";
      return str("return ", out_of_range, " ? ", all_out, " : ", narrow(t, "a >> b"), ";");
    }
    case CHelper::kF16:
      break;
  }
  throw InternalError(str("codegen_c: no helper ", helper_stem(h), " for ", dtype_name(t)));
}

bool is_unary(CHelper h) { return h == CHelper::kAbs || h == CHelper::kSigmoid; }

}  // namespace

std::string c_helper_name(CHelper h, DType t) {
  if (h == CHelper::kF16) return "tsr_f16_round";
  return str("tsr_", helper_stem(h), "_", type_suffix(t));
}

std::string c_helper_definition(CHelper h, DType t) {
  if (h == CHelper::kF16) return kF16Block;
  const std::string T = dtype_c_name(t);
  std::string body = helper_body(h, t);
  std::string params = is_unary(h) ? T + " a" : T + " a, " + T + " b";
  std::string result = T;
  if (h == CHelper::kRequantize) {
    params = "int32_t a, int64_t m, int64_t shift, int64_t zp";
    result = "int8_t";
  }
  std::string head = str("static inline ", result, " ", c_helper_name(h, t), "(", params, ") {");
  // One-line bodies stay on the signature's line; multi-line bodies are already indented.
  if (body.find('\n') == std::string::npos) return head + " " + body + " }\n";
  return head + "\n" + body + "\n}\n";
}

const std::vector<std::string>& c_reserved_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {
        // C11 keywords and the macros of <stdbool.h>
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
        "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
        "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
        "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic",
        "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
        "_Thread_local", "bool", "true", "false",
        // what generated code calls or names from <math.h>, <stdint.h>, <stdlib.h>
        "exp", "expf", "log", "logf", "sqrt", "sqrtf", "tanh", "tanhf", "floor", "floorf", "ceil",
        "ceilf", "pow", "powf", "fabs", "fabsf", "abs", "aligned_alloc", "free", "NULL", "INFINITY",
        "NAN", "HUGE_VAL", "HUGE_VALF", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
        "uint32_t", "uint64_t", "INT32_MIN", "INT64_MIN", "INT64_C", "UINT64_C", "__ATOMIC_RELAXED",
        "__atomic_store_n", "uint16_t", "UINT32_C",
        // the float16 conversions (kF16)
        "tsr_f16_bits", "tsr_f16_value", "tsr_f16_round",
        // the generated function's own names
        "args", "tsr_status"};
    for (CHelper h : kAllHelpers) {
      for (DType t : all_dtypes()) v.push_back(c_helper_name(h, t));
    }
    return v;
  }();
  return names;
}

}  // namespace tessera
