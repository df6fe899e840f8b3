#include "compiler/arith/const_fold.h"

#include <cmath>
#include <limits>

#include "runtime/base/error.h"
#include "runtime/base/float16.h"

namespace tessera {

Expr make_wrapped_int(int64_t v, DType t) { return make_int(wrap_int(v, t), t); }

int64_t floor_div(int64_t a, int64_t b) {
  TESSERA_ICHECK(b != 0, "floor_div by zero");
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // wraps at INT64_MIN
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  TESSERA_ICHECK(b != 0, "floor_mod by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

namespace {

// A comparison of two constants (k is EQ .. GE).
template <typename T>
bool compare(ExprKind k, T x, T y) {
  switch (k) {
    case ExprKind::kEQ:
      return x == y;
    case ExprKind::kNE:
      return x != y;
    case ExprKind::kLT:
      return x < y;
    case ExprKind::kLE:
      return x <= y;
    case ExprKind::kGT:
      return x > y;
    default:
      return x >= y;
  }
}

// uint64: operands are bit patterns; division, modulo, min, max and comparisons are unsigned.
Expr fold_uint64(ExprKind k, uint64_t x, uint64_t y) {
  const DType t = DType::kUInt64;
  auto bits = [&](uint64_t v) { return make_int(static_cast<int64_t>(v), t); };
  switch (k) {
    case ExprKind::kAdd:
      return bits(x + y);
    case ExprKind::kSub:
      return bits(x - y);
    case ExprKind::kMul:
      return bits(x * y);
    case ExprKind::kDiv:
      return y == 0 ? Expr() : bits(x / y);
    case ExprKind::kMod:
      return y == 0 ? Expr() : bits(x % y);
    case ExprKind::kMin:
      return bits(x < y ? x : y);
    case ExprKind::kMax:
      return bits(x < y ? y : x);
    case ExprKind::kEQ:
    case ExprKind::kNE:
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE:
      return make_bool(compare(k, x, y));
    default:
      return Expr();
  }
}

Expr fold_int(ExprKind k, DType t, int64_t x, int64_t y) {
  if (t == DType::kUInt64)
    return fold_uint64(k, static_cast<uint64_t>(x), static_cast<uint64_t>(y));
  // Operands are read as values of their type (for uint8 and uint32 non-negative, so the signed
  // division, modulo and comparisons below are the unsigned ones); arithmetic is done modulo 2^64
  // and then wrapped.
  x = wrap_int(x, t);
  y = wrap_int(y, t);
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (k) {
    case ExprKind::kAdd:
      return make_wrapped_int(static_cast<int64_t>(ux + uy), t);
    case ExprKind::kSub:
      return make_wrapped_int(static_cast<int64_t>(ux - uy), t);
    case ExprKind::kMul:
      return make_wrapped_int(static_cast<int64_t>(ux * uy), t);
    case ExprKind::kDiv:
      return y == 0 ? Expr() : make_wrapped_int(floor_div(x, y), t);
    case ExprKind::kMod:
      return y == 0 ? Expr() : make_wrapped_int(floor_mod(x, y), t);
    case ExprKind::kMin:
      return make_int(x < y ? x : y, t);
    case ExprKind::kMax:
      return make_int(x < y ? y : x, t);
    case ExprKind::kEQ:
    case ExprKind::kNE:
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE:
      return make_bool(compare(k, x, y));
    case ExprKind::kAnd:
      return make_bool(x && y);
    case ExprKind::kOr:
      return make_bool(x || y);
    default:
      return Expr();
  }
}

// The value of a float16, float32 or float64 operation, rounded as the backend rounds it. Adding,
// multiplying or dividing two floats in double and rounding once to float (or float16) gives the
// correctly rounded result, so float32 and float16 fold through double exactly.
double round_to(double v, DType t) {
  if (t == DType::kFloat16) return round_to_float16(v);
  return t == DType::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v;
}

Expr fold_float(ExprKind k, DType t, double x, double y) {
  double r;
  switch (k) {
    case ExprKind::kAdd:
      r = x + y;
      break;
    case ExprKind::kSub:
      r = x - y;
      break;
    case ExprKind::kMul:
      r = x * y;
      break;
    case ExprKind::kDiv:
      if (y == 0.0) return Expr();
      r = x / y;
      break;
    case ExprKind::kMin:
    case ExprKind::kMax:
      // NaN and signed zeros are where fmin/fmax and a ternary disagree: leave those.
      if (std::isnan(x) || std::isnan(y) || (x == y && std::signbit(x) != std::signbit(y))) {
        return Expr();
      }
      r = (k == ExprKind::kMin) == (x < y) ? x : y;
      break;
    case ExprKind::kEQ:
    case ExprKind::kNE:
    case ExprKind::kLT:
    case ExprKind::kLE:
    case ExprKind::kGT:
    case ExprKind::kGE:
      return make_bool(compare(k, x, y));
    default:
      return Expr();  // Mod: the backend's formula may round differently; leave it
  }
  r = round_to(r, t);
  if (!std::isfinite(r)) return Expr();
  return make_float(r, t);
}

}  // namespace

Expr const_fold(ExprKind k, const Expr& a, const Expr& b) {
  if (!a.defined() || !b.defined() || a.dtype() != b.dtype()) return Expr();
  const auto *ia = a.as<IntImmNode>(), *ib = b.as<IntImmNode>();
  if (ia && ib) return fold_int(k, a.dtype(), ia->value, ib->value);
  const auto *fa = a.as<FloatImmNode>(), *fb = b.as<FloatImmNode>();
  if (fa && fb) return fold_float(k, a.dtype(), fa->value, fb->value);
  return Expr();
}

Expr const_fold_cast(DType t, const Expr& v) {
  if (v.dtype() == t) return v.as<IntImmNode>() || v.as<FloatImmNode>() ? v : Expr();
  if (const auto* i = v.as<IntImmNode>()) {
    int64_t x = wrap_int(i->value, v.dtype());
    if (is_float(t)) {
      // One rounding from the integer (C's conversion); a uint64 bit pattern converts unsigned.
      // float16 rounds from the double, which is exact for every integer float16 can hold.
      bool u64 = v.dtype() == DType::kUInt64;
      uint64_t ux = static_cast<uint64_t>(x);
      if (t == DType::kFloat32) {
        return make_float(u64 ? static_cast<double>(static_cast<float>(ux))
                              : static_cast<double>(static_cast<float>(x)),
                          t);
      }
      return make_float(u64 ? static_cast<double>(ux) : static_cast<double>(x), t);
    }
    return make_wrapped_int(x, t);
  }
  if (const auto* f = v.as<FloatImmNode>()) {
    double x = f->value;
    if (is_float(t)) return make_float(round_to(x, t), t);
    if (t == DType::kBool) return make_bool(x != 0.0);
    // C truncates toward zero; out of range (or NaN) is undefined there, so it is not folded.
    if (std::isnan(x)) return Expr();
    double tr = std::trunc(x);
    if (t == DType::kUInt64) {
      if (tr < 0 || tr >= 1.8e19) return Expr();
      return make_int(static_cast<int64_t>(static_cast<uint64_t>(tr)), t);
    }
    if (tr < static_cast<double>(int_min_of(t)) || tr > static_cast<double>(int_max_of(t)) ||
        tr >= 9.2e18 || tr <= -9.2e18) {
      return Expr();
    }
    return make_int(static_cast<int64_t>(tr), t);
  }
  return Expr();
}

Expr const_fold_not(const Expr& a) {
  const auto* i = a.as<IntImmNode>();
  if (!i || a.dtype() != DType::kBool) return Expr();
  return make_bool(i->value == 0);
}

}  // namespace tessera
