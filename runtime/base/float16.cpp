#include "runtime/base/float16.h"

#include <cmath>
#include <cstring>

namespace tessera {

uint16_t float16_bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t m = b & ((uint64_t{1} << 52) - 1);
  if (e == 0x7ff) {  // inf or NaN
    if (m == 0) return sign | 0x7c00u;
    uint16_t payload = static_cast<uint16_t>(m >> 42);
    return sign | 0x7c00u | (payload != 0 ? payload : 1);
  }
  if (e == 0) return sign;  // zero or a double subnormal: far below float16's smallest
  const int exp = e - 1023;
  const uint64_t sig = m | (uint64_t{1} << 52);
  // The result as an integer count of float16 ulps: a normal keeps 10 fraction bits, a
  // subnormal counts multiples of 2^-24. A carry out of the fraction lands in the exponent
  // (up to 0x7c00, infinity), which is what IEEE rounding wants.
  int shift;
  uint32_t base;
  if (exp > 15) return sign | 0x7c00u;  // beyond float16's largest exponent: infinity
  if (exp >= -14) {
    shift = 42;
    base = static_cast<uint32_t>(exp + 14) << 10;  // (biased exponent - 1) << 10; sig adds the 1
  } else {
    shift = 28 - exp;  // value / 2^-24 = sig * 2^(exp - 28)
    base = 0;
    if (shift >= 64) return sign;
  }
  uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return static_cast<uint16_t>(sign | (base + q));
}

double float16_value(uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  if (e == 0x1f) {
    if (m == 0) return sign * INFINITY;
    // A NaN with the payload in the top bits of the double's (the inverse of float16_bits).
    uint64_t b = (h & 0x8000u ? uint64_t{1} << 63 : 0) | (uint64_t{0x7ff} << 52) |
                 (static_cast<uint64_t>(m) << 42);
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
  }
  if (e == 0) return sign * std::ldexp(static_cast<double>(m), -24);
  return sign * std::ldexp(static_cast<double>(m | 0x400), e - 25);
}

}  // namespace tessera
