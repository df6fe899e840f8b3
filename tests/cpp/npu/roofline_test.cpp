#include "runtime/npu/roofline.h"

#include <gtest/gtest.h>

#include "gemm_kernel.h"
#include "runtime/base/error.h"
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
  RooflineBound b = kernel_roofline_bound(k, t);
  EXPECT_EQ(b.macs, 64u * 64 * 64);
  EXPECT_EQ(b.ddr_bytes, 3u * 64 * 64);  // A, W, C
  EXPECT_EQ(b.vector_ops, 64u * 64);     // one requantize per output element
  EXPECT_DOUBLE_EQ(b.cycles, 1024);      // MAC-bound: 262144 / 256
  SimStats s = simulate_timing(k, t);
  double ratio = achieved_over_bound(s.cycles, b);
  EXPECT_DOUBLE_EQ(ratio, double(s.cycles) / 1024);
  EXPECT_GT(ratio, 1.0);
}

TEST(Roofline, the_bound_of_a_kernel_is_its_declared_true_work_not_its_instructions) {
  // The GEMM kernel's 64x64x64 MACs, but the operator it computes is 64x64x40 (K padded to 64),
  // its input 64x40 and weights 40x64.
  Target t = default_target();
  Kernel k = testing::gemm64_kernel(t, true, {});
  k.work = Work{64ull * 64 * 40, 64 * 40 + 40 * 64 + 64 * 64, 64 * 64};
  RooflineBound b = roofline_bound(k, t);
  EXPECT_EQ(b.macs, 64u * 64 * 40);
  EXPECT_DOUBLE_EQ(b.cycles, 64.0 * 64 * 40 / 256);
  EXPECT_STREQ(b.limited_by(), "MAC");
  RooflineBound own = kernel_roofline_bound(k, t);
  EXPECT_EQ(own.macs, 64u * 64 * 64) << "the kernel's padded work";
  EXPECT_GT(own.cycles, b.cycles);
}

TEST(Roofline, a_kernel_without_declared_work_has_no_true_work_bound) {
  Target t = default_target();
  Kernel k = testing::gemm64_kernel(t, true, {});
  try {
    roofline_bound(k, t);
    FAIL() << "expected an ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'gemm64_double_buffered' declares no true work"),
              std::string::npos)
        << e.what();
  }
}

TEST(Roofline, limited_by_names_the_largest_term) {
  Target t = default_target();
  EXPECT_STREQ(roofline_bound(t, 256, 16 * 300, 0).limited_by(), "DDR");
  EXPECT_STREQ(roofline_bound(t, 0, 16, 16 * 50).limited_by(), "vector");
}

}  // namespace
}  // namespace tessera::npu
