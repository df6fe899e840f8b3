#include "runtime/npu/roofline.h"

#include <gtest/gtest.h>

#include "gemm_kernel.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

TEST(Roofline, bound_is_the_largest_of_mac_ddr_and_vector_time) {
  Target t = default_target();
  RooflineBound b = roofline_bound(t, 256 * 1000, 16 * 300, 16 * 50);
  EXPECT_DOUBLE_EQ(b.mac_cycles, 1000);
  EXPECT_DOUBLE_EQ(b.ddr_cycles, 300);
  EXPECT_DOUBLE_EQ(b.vector_cycles, 50);
  EXPECT_DOUBLE_EQ(b.cycles, 1000);
  EXPECT_DOUBLE_EQ(roofline_bound(t, 0, 16 * 300, 0).cycles, 300);
}

TEST(Roofline, gemm_kernel_bound_counts_buffers_once_and_every_mac) {
  Target t = default_target();
  Kernel k = testing::gemm64_kernel(t, true, {});
  RooflineBound b = roofline_bound(k, t);
  EXPECT_EQ(b.macs, 64u * 64 * 64);
  EXPECT_EQ(b.ddr_bytes, 3u * 64 * 64);  // A, W, C
  EXPECT_EQ(b.vector_ops, 64u * 64);     // one requantize per output element
  EXPECT_DOUBLE_EQ(b.cycles, 1024);      // MAC-bound: 262144 / 256
  SimStats s = simulate_timing(k, t);
  double ratio = achieved_over_bound(s.cycles, b);
  EXPECT_DOUBLE_EQ(ratio, double(s.cycles) / 1024);
  EXPECT_GT(ratio, 1.0);
}

}  // namespace
}  // namespace tessera::npu
