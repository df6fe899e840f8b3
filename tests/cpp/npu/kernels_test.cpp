// Acceptance 1: hand-written kernels computed bit-exactly. References are naive loops written
// here, independently of the simulator's code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "gemm_kernel.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = int8_t(d(rng));
  return v;
}

void put(std::vector<uint8_t>& ddr, const Kernel& k, const char* name, const void* data) {
  const BufferDecl& b = k.buffer(name);
  std::memcpy(ddr.data() + b.ddr_offset, data, b.bytes());
}

template <typename T>
std::vector<T> get(const std::vector<uint8_t>& ddr, const Kernel& k, const char* name) {
  const BufferDecl& b = k.buffer(name);
  std::vector<T> out(b.bytes() / sizeof(T));
  std::memcpy(out.data(), ddr.data() + b.ddr_offset, b.bytes());
  return out;
}

// Rounding half up, as docs/npu_isa.md specifies requantize.
int8_t requantize_ref(int32_t x, int32_t mult, int shift, int zp) {
  int64_t p = int64_t(x) * mult;
  int64_t r = shift ? (p + (int64_t(1) << (shift - 1))) >> shift : p;
  return int8_t(std::min<int64_t>(127, std::max<int64_t>(-128, r + zp)));
}

class GemmKernel : public ::testing::TestWithParam<bool> {};

TEST_P(GemmKernel, int8_gemm_64x64x64_with_requantize_matches_naive_reference) {
  Target t = default_target();
  testing::GemmParams p;
  Kernel k = testing::gemm64_kernel(t, GetParam(), p);
  std::vector<int8_t> A = random_int8(64 * 64, 1), B = random_int8(64 * 64, 2);
  std::vector<int8_t> W = testing::pack_gemm_weights(B);
  std::vector<uint8_t> ddr(k.ddr_bytes());
  put(ddr, k, "A", A.data());
  put(ddr, k, "W", W.data());
  SimStats s = simulate_functional(k, t, ddr);
  std::vector<int8_t> C = get<int8_t>(ddr, k, "C");
  int saturated = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      int32_t sum = 0;
      for (int kk = 0; kk < 64; ++kk) sum += int32_t(A[m * 64 + kk]) * B[kk * 64 + n];
      int8_t want = requantize_ref(sum, p.multiplier, p.shift, p.zero_point);
      ASSERT_EQ(C[m * 64 + n], want) << "C[" << m << "][" << n << "] sum=" << sum;
      saturated += want == 127 || want == -128;
    }
  EXPECT_LT(saturated, 64 * 64 / 4) << "scale chosen so that most outputs are not saturated";
  EXPECT_EQ(s.macs, 64ull * 64 * 64);
}

INSTANTIATE_TEST_SUITE_P(SerialAndDoubleBuffered, GemmKernel, ::testing::Bool());

TEST(Kernels, elementwise_add_then_relu_saturates_to_int8) {
  Target t = default_target();
  Assembler a(t, "add_relu");
  uint32_t X = a.buffer("x", {64, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t Y = a.buffer("y", {64, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t Z = a.buffer("z", {64, 16}, DType::kInt8, BufferRole::kOutput);
  a.load(Mem::kSram, 0, 1, X, 16, 64, 1);
  a.load(Mem::kSram, 64, 1, Y, 16, 64, 1, kPushNext);
  a.vector(VecOp::kAdd, 8, 8, acc(0, 8, 1), sram(0, 8, 1), sram(64, 8, 1), kPopPrev);
  a.relu(64, 1, sram(128, 1), acc(0, 1), kPushNext);
  a.store(Mem::kSram, 128, 1, Z, 16, 64, 1, kPopPrev);
  Kernel k = a.finish();
  std::vector<int8_t> x = random_int8(1024, 3), y = random_int8(1024, 4);
  std::vector<uint8_t> ddr(k.ddr_bytes());
  put(ddr, k, "x", x.data());
  put(ddr, k, "y", y.data());
  simulate_functional(k, t, ddr);
  std::vector<int8_t> z = get<int8_t>(ddr, k, "z");
  for (int i = 0; i < 1024; ++i) {
    int sum = x[i] + y[i];
    ASSERT_EQ(z[i], std::min(127, std::max(0, sum))) << "element " << i;
  }
}

// A 3x3 convolution tile, NCHWc16 layout: input [2 cblocks][8][8][16] int8, weights
// [2][3][3][16 out][16 in], output [8][8][16] int32 straight from the accumulator. The load pads
// one pixel on every side; the GEMM walks output pixels with the input row stride of the padded
// tile, once per (cblock, r, s) tap.
TEST(Kernels, zero_padded_3x3_conv_tile_matches_naive_reference) {
  Target t = default_target();
  const int H = 8, W = 8, CB = 2, P = W + 2;
  Assembler a(t, "conv3x3_tile");
  uint32_t IN = a.buffer("input", {CB, H, W, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t WT = a.buffer("weight", {CB, 3, 3, 16, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t OUT = a.buffer("output", {H, W, 16}, DType::kInt32, BufferRole::kOutput);
  const uint32_t wgt_base = CB * (H + 2) * P;
  for (int cb = 0; cb < CB; ++cb)
    a.load(Mem::kSram, cb * (H + 2) * P, P, IN + cb * H * W * 16, W * 16, H, W, 0, Pad{1, 1, 1, 1});
  a.load(Mem::kSram, wgt_base, 0, WT, 0, 1, CB * 9 * 16, kPushNext);
  for (int cb = 0; cb < CB; ++cb)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int tap = (cb * 3 + r) * 3 + s;
        a.gemm(tap == 0, H, W, at(0, W, 1), at(cb * (H + 2) * P + r * P + s, P, 1),
               at(wgt_base + tap * 16), tap == 0 ? kPopPrev : 0);
      }
  a.sync(Queue::kCompute, kPushNext);
  a.store(Mem::kAcc, 0, 1, OUT, 64, H * W, 1, kPopPrev);
  Kernel k = a.finish();

  std::vector<int8_t> in = random_int8(CB * H * W * 16, 5), wt = random_int8(CB * 9 * 256, 6);
  std::vector<uint8_t> ddr(k.ddr_bytes());
  put(ddr, k, "input", in.data());
  put(ddr, k, "weight", wt.data());
  simulate_functional(k, t, ddr);
  std::vector<int32_t> out = get<int32_t>(ddr, k, "output");
  for (int oh = 0; oh < H; ++oh)
    for (int ow = 0; ow < W; ++ow)
      for (int o = 0; o < 16; ++o) {
        int32_t sum = 0;
        for (int cb = 0; cb < CB; ++cb)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              int ih = oh + r - 1, iw = ow + s - 1;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              for (int i = 0; i < 16; ++i)
                sum += int32_t(in[((cb * H + ih) * W + iw) * 16 + i]) *
                       wt[(((cb * 3 + r) * 3 + s) * 16 + o) * 16 + i];
            }
        ASSERT_EQ(out[(oh * W + ow) * 16 + o], sum) << "pixel " << oh << "," << ow << " ch " << o;
      }
}

}  // namespace
}  // namespace tessera::npu
