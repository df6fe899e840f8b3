// The tuners' random numbers: std::mt19937_64 (its output sequence is fixed by the C++ standard)
// with our own reductions to a range, because the standard distributions are implementation-
// defined. The same seed gives the same numbers with every compiler and standard library.
#pragma once

#include <cstdint>
#include <random>

namespace tessera::autotune {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t next() { return engine_(); }
  // Uniform in [0, n); n > 0. Unbiased (rejection of the top partial range).
  uint64_t below(uint64_t n);
  // Uniform in [0, 1) with 53 random bits.
  double unit();

 private:
  std::mt19937_64 engine_;
};

}  // namespace tessera::autotune
