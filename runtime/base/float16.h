// IEEE binary16 (numpy's float16) conversions, bit-exact: the compiler folds float16 constants
// with them, and the C backend emits the same algorithm (codegen/c/c_helpers.cpp) into kernels.
//
// float16_bits rounds a double to the nearest float16, ties to even, with subnormals, overflow to
// infinity and signed zeros; a NaN keeps its sign and the top 10 bits of its payload (a payload
// that would become 0 becomes 1, so a NaN stays a NaN), as numpy's npy_doublebits_to_halfbits.
// Rounding a double directly, never through float, avoids double rounding.
#pragma once

#include <cstdint>

namespace tessera {

uint16_t float16_bits(double x);
double float16_value(uint16_t h);
// x rounded to the nearest float16 value (as a double, exactly).
inline double round_to_float16(double x) { return float16_value(float16_bits(x)); }

}  // namespace tessera
