#include "autotune/rng.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera::autotune {
namespace {

TEST(Rng, is_the_standard_mt19937_64_stream) {
  // The C++ standard fixes the 10000th output of a default-seeded (5489) mt19937_64.
  Rng rng(5489);
  for (int i = 0; i < 9999; ++i) rng.next();
  EXPECT_EQ(rng.next(), 9981545732273789042ull);
}

TEST(Rng, below_stays_in_range_and_is_close_to_uniform) {
  Rng rng(1);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    uint64_t v = rng.below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // about 4 standard deviations
  EXPECT_EQ(Rng(9).below(1), 0u);
  // Close to 2^64: the rejection keeps values in range.
  Rng big(2);
  const uint64_t n = (uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 1000; ++i) ASSERT_LT(big.below(n), n);
}

TEST(Rng, unit_is_in_zero_one) {
  Rng rng(3);
  double lo = 1, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    double u = rng.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
}

}  // namespace
}  // namespace tessera::autotune
