#include "autotune/rng.h"

#include "runtime/base/error.h"

namespace tessera::autotune {

uint64_t Rng::below(uint64_t n) {
  TESSERA_ICHECK(n > 0, "Rng::below(0)");
  // Largest multiple of n that fits: values at or above it would bias the low residues.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = next();
  while (x >= limit) x = next();
  return x % n;
}

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

}  // namespace tessera::autotune
