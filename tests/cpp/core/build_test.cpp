// build() dispatches every target in C++: the C backend for "c", the NPU backend for an NPU
// description (loaded from JSON here) or the "npu" shorthand; results checked against naive
// references computed here.
#include "compiler/build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "autotune/templates/npu_dense.h"
#include "runtime/base/error.h"

namespace tessera {
namespace {

npu::Target committed_target(const std::string& name) {
  return npu::load_target(std::string(TESSERA_SOURCE_DIR) + "/runtime/npu/targets/" + name +
                          ".json");
}

std::vector<int8_t> pseudo_random(size_t n, uint32_t seed) {
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<int8_t>(seed >> 24);
  }
  return v;
}

// Y[m][n] = clamp((sum_k X[m][k] W[n][k] * mult + 2^(shift-1)) >> shift): the library's dense on
// `target`, packed by hand into [M, K/B, B] and [N/B, K/B, B, B] and run through build().
void check_dense_on(const npu::Target& target, int64_t M, int64_t K, int64_t N) {
  const int64_t B = target.block(), KB = (K + B - 1) / B, NB = (N + B - 1) / B;
  Requant q;
  q.multiplier = 3;
  q.shift = 9;
  NpuOp op = npu_dense(target, M, K, N, q, default_dense_params(target, M, K, N));
  Module m = build(*op.schedule, op.args, target, "dense");
  ASSERT_TRUE(std::holds_alternative<NpuModule>(m));
  const NpuModule& mod = std::get<NpuModule>(m);
  EXPECT_EQ(mod.target().name, target.name);
  std::vector<int8_t> x = pseudo_random(M * K, 1), w = pseudo_random(N * K, 2);
  std::vector<int8_t> xp(M * KB * B, 0), wp(NB * KB * B * B, 0), yp(M * NB * B, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) xp[i * KB * B + k] = x[i * K + k];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      wp[(((n / B) * KB + k / B) * B + n % B) * B + k % B] = w[n * K + k];
  mod.run({NDArray::view(xp.data(), {M, KB, B}, DType::kInt8),
           NDArray::view(wp.data(), {NB, KB, B, B}, DType::kInt8),
           NDArray::view(yp.data(), {M, NB, B}, DType::kInt8)});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t n = 0; n < N; ++n) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k) s += int64_t(x[i * K + k]) * w[n * K + k];
      int64_t r =
          std::clamp<int64_t>((s * q.multiplier + (1 << (q.shift - 1))) >> q.shift, -128, 127);
      ASSERT_EQ(yp[i * NB * B + n], r) << target.name << " at " << i << ", " << n;
    }
}

TEST(Build, npu_targets_from_json_give_npu_modules_that_match_a_naive_reference) {
  check_dense_on(committed_target("npu-32x32"), 40, 70, 50);
  check_dense_on(committed_target("npu-8x8"), 19, 33, 17);
  check_dense_on(npu::default_target(), 21, 48, 30);
}

TEST(Build, c_shorthand_gives_a_cpu_module) {
  Tensor A = placeholder({8}, DType::kInt32, "A");
  Tensor B = compute(
      {8},
      [&](const std::vector<Var>& i) { return binary_op(ExprKind::kAdd, A({i[0]}), A({i[0]})); },
      "B", {"i"});
  auto s = create_schedule({B.op()});
  Module m = build(*s, {A, B}, "c", "twice");
  ASSERT_TRUE(std::holds_alternative<CpuModule>(m));
  std::vector<int32_t> a = {1, 2, 3, 4, 5, 6, 7, -8}, b(8, 0);
  std::get<CpuModule>(m).run(
      {NDArray::view(a.data(), {8}, DType::kInt32), NDArray::view(b.data(), {8}, DType::kInt32)});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[i], 2 * a[i]);
}

TEST(Build, npu_shorthand_is_the_builtin_npu_v1) {
  Target t("npu");
  ASSERT_TRUE(t.is_npu());
  EXPECT_EQ(npu::target_to_json(t.npu()), npu::target_to_json(npu::default_target()));
  EXPECT_EQ(Target::c().name(), "c");
}

TEST(Build, unknown_target_name_is_a_target_error_listing_the_shorthands) {
  try {
    Target t("gpu");
    FAIL() << "expected a TargetError";
  } catch (const TargetError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown target 'gpu'; known shorthands: c (the host "
                                         "CPU), npu (the built-in npu-v1)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessera
