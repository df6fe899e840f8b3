// codegen_npu: hand-built NPU loop IR -> kernel -> functional simulator, checked bit-exact against
// naive C++ references computed here; timing, token-queue bounds, errors and determinism.
#include "codegen/npu/codegen_npu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "codegen/npu/build_npu.h"
#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/kernel_file.h"

namespace tessera {
namespace {

using npu::Opcode;

Stmt loop(const Var& v, int64_t min, int64_t extent, Stmt body) {
  return make_for(v, make_int(min), make_int(extent), ForKind::kSerial, std::move(body));
}

Stmt dma(bool load, Buffer chip, Expr chip_row, int64_t chip_stride, Buffer ddr, Expr ddr_offset,
         int64_t ddr_stride, int64_t rows, int64_t cols) {
  return make_npu_dma(load, std::move(chip), std::move(chip_row), chip_stride, std::move(ddr),
                      std::move(ddr_offset), ddr_stride, make_int(rows), make_int(cols));
}

Stmt gemm(bool reset, Buffer acc, Expr acc_row, Buffer inp, Expr inp_row, Buffer wgt,
          Expr wgt_row) {
  return make_npu_gemm(reset, std::move(acc), std::move(acc_row), std::move(inp),
                       std::move(inp_row), std::move(wgt), std::move(wgt_row));
}

Stmt vec(npu::VecOp op, Buffer dst, Expr dst_row, Buffer src, Expr src_row, Buffer src2 = nullptr,
         Expr src2_row = Expr()) {
  return make_npu_vector(op, std::move(dst), std::move(dst_row), std::move(src), std::move(src_row),
                         std::move(src2), std::move(src2_row));
}

Stmt requantize(Buffer dst, Expr dst_row, Buffer src, Expr src_row, int64_t mult, int64_t shift,
                int64_t zp) {
  return make_npu_vector(npu::VecOp::kRequantize, std::move(dst), std::move(dst_row),
                         std::move(src), std::move(src_row), nullptr, Expr(),
                         NpuVectorImm{mult, 0, shift, zp});
}

Stmt produce(const std::string& stage, Stmt body) { return make_attr("produce", stage, body); }

// int8 matmul with requantize: C[m][n] = rq(sum_k A[m][k] * Bt[n][k]), tiles of 64 rows of A.
//   W.sram row kb*N + n holds Bt[n][16kb .. 16kb+16), so the weight tile (nb, kb) starts at
//   kb*N + 16nb; A.sram row m*KB + kb, C.acc and C.sram row m*NB + nb.
constexpr int64_t kMult = 3, kShift = 10, kZp = -2, kTile = 64;

LoweredFunc matmul(int64_t M, int64_t N, int64_t K, bool double_buffer) {
  int64_t KB = K / 16, NB = N / 16;
  Buffer A = make_buffer("A", DType::kInt8, {M, K});
  Buffer Bt = make_buffer("Bt", DType::kInt8, {N, K});
  Buffer C = make_buffer("C", DType::kInt8, {M, N});
  Buffer W_s = make_buffer("W.sram", DType::kInt8, {K, N}, "sram");
  Buffer A_s = make_buffer("A.sram", DType::kInt8, {kTile, K}, "sram");
  Buffer C_s = make_buffer("C.sram", DType::kInt8, {kTile, N}, "sram");
  Buffer C_a = make_buffer("C.acc", DType::kInt32, {kTile, N}, "acc");
  Var kb("kb"), mo("mo"), m("m"), nb("nb"), kw("kw");
  Stmt load_w = produce(
      "W.sram", loop(kw, 0, KB, dma(true, W_s, Expr(kw) * int(N), 1, Bt, Expr(kw) * 16, K, N, 1)));
  Stmt load_a =
      produce("A.sram", dma(true, A_s, 0, KB, A, Expr(mo) * int(kTile * K), K, kTile, KB));
  Stmt reset = loop(
      nb, 0, NB,
      loop(m, 0, kTile,
           gemm(true, C_a, Expr(m) * int(NB) + nb, A_s, Expr(m) * int(KB), W_s, Expr(nb) * 16)));
  Var nb2("nb"), m2("m"), m3("m"), nb3("nb");
  Stmt accumulate =
      loop(nb2, 0, NB,
           loop(m2, 0, kTile,
                loop(kb, 1, KB - 1,
                     gemm(false, C_a, Expr(m2) * int(NB) + nb2, A_s, Expr(m2) * int(KB) + kb, W_s,
                          Expr(kb) * int(N) + Expr(nb2) * 16))));
  Stmt rq = produce("C.sram", loop(m3, 0, kTile,
                                   loop(nb3, 0, NB,
                                        requantize(C_s, Expr(m3) * int(NB) + nb3, C_a,
                                                   Expr(m3) * int(NB) + nb3, kMult, kShift, kZp))));
  Stmt store = produce("C", dma(false, C_s, 0, NB, C, Expr(mo) * int(kTile * N), N, kTile, NB));
  Stmt tiles = loop(mo, 0, M / kTile,
                    make_seq({load_a, produce("C.acc", make_seq({reset, accumulate})), rq, store}));
  Stmt c_sram = make_allocate(C_s, make_allocate(C_a, tiles));
  if (double_buffer) c_sram = make_attr("double_buffer", "C.sram", c_sram);
  Stmt a_sram = make_allocate(A_s, c_sram);
  if (double_buffer) a_sram = make_attr("double_buffer", "A.sram", a_sram);
  Stmt body = make_allocate(W_s, make_seq({load_w, a_sram}));
  return LoweredFunc{"matmul", {A, Bt, C}, body};
}

std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<int8_t>(seed >> 24);
  }
  return v;
}

std::vector<int8_t> matmul_reference(const std::vector<int8_t>& a, const std::vector<int8_t>& bt,
                                     int64_t M, int64_t N, int64_t K) {
  std::vector<int8_t> c(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k) s += int64_t(a[i * K + k]) * bt[j * K + k];
      int64_t q = ((s * kMult + (int64_t(1) << (kShift - 1))) >> kShift) + kZp;
      c[i * N + j] = static_cast<int8_t>(std::clamp<int64_t>(q, -128, 127));
    }
  return c;
}

struct MatmulRun {
  std::vector<int8_t> got, want;
  npu::SimStats timing;
  npu::Kernel kernel;
};

MatmulRun run_matmul(int64_t M, int64_t N, int64_t K, bool double_buffer) {
  NpuModule mod = build_npu(matmul(M, N, K, double_buffer), npu::default_target());
  std::vector<int8_t> a = random_int8(M * K, 1), bt = random_int8(N * K, 2), c(M * N, 0);
  mod.run({NDArray::view(a.data(), {M, K}, DType::kInt8),
           NDArray::view(bt.data(), {N, K}, DType::kInt8),
           NDArray::view(c.data(), {M, N}, DType::kInt8)});
  return MatmulRun{c, matmul_reference(a, bt, M, N, K), mod.timing(), mod.kernel()};
}

TEST(CodegenNpu, matmul_64x64x64_is_bit_exact_with_folded_gemms) {
  MatmulRun r = run_matmul(64, 64, 64, false);
  EXPECT_EQ(r.got, r.want);
  // Not a trivial output: requantize kept most values inside int8 without clamping.
  int64_t inside =
      std::count_if(r.want.begin(), r.want.end(), [](int8_t v) { return v > -128 && v < 127; });
  EXPECT_GT(inside, 64 * 64 / 2);
  // 64 x 4 x 4 GEMM steps and 256 requantized rows in a handful of instructions: the reset nest
  // (nb, m) folds whole, the accumulate nest (nb, m, kb) folds (nb, m) and unrolls kb = 1..3.
  EXPECT_EQ(r.timing.count(Opcode::kGemm), 4u);
  EXPECT_EQ(r.timing.count(Opcode::kVector), 1u);
  EXPECT_EQ(r.timing.count(Opcode::kLoad), 5u);  // 4 weight slices + 1 A tile
  EXPECT_EQ(r.timing.count(Opcode::kStore), 1u);
  EXPECT_EQ(r.timing.macs, uint64_t(64) * 64 * 64);
}

TEST(CodegenNpu, double_buffering_overlaps_loads_with_compute) {
  // 8 tiles of 64 rows; per tile a 420-cycle load of A against ~370 cycles of GEMM + requantize.
  MatmulRun single = run_matmul(512, 16, 64, false);
  MatmulRun dbl = run_matmul(512, 16, 64, true);
  EXPECT_EQ(single.got, single.want);
  EXPECT_EQ(dbl.got, dbl.want);
  double ratio = double(dbl.timing.cycles) / double(single.timing.cycles);
  std::printf("matmul 512x16x64: single-buffered %llu cycles, double-buffered %llu (%.2fx)\n",
              (unsigned long long)single.timing.cycles, (unsigned long long)dbl.timing.cycles,
              ratio);
  EXPECT_LE(ratio, 0.8);
  // Double buffering needs twice the rows of A.sram and C.sram, no more.
  EXPECT_EQ(dbl.timing.sram_peak_bytes,
            uint64_t(64 * 16) + 2 * uint64_t(64 * 64) + 2 * uint64_t(64 * 16));
}

TEST(CodegenNpu, many_tiles_with_a_slow_store_stay_within_the_token_queue) {
  // 200 one-row tiles: relu is 11 cycles, each store >= 100; the outputs never reuse rows, so
  // only the token-queue bound keeps compute from running 33 tiles ahead of store.
  const int64_t T = 200;
  Buffer X = make_buffer("X", DType::kInt8, {T, 16});
  Buffer Y = make_buffer("Y", DType::kInt8, {T, 16});
  Buffer Xs = make_buffer("X.sram", DType::kInt8, {T, 16}, "sram");
  Buffer Ys = make_buffer("Y.sram", DType::kInt8, {T, 16}, "sram");
  Var t("t");
  Stmt body = make_allocate(
      Xs, make_allocate(
              Ys, make_seq({produce("X.sram", dma(true, Xs, 0, 1, X, 0, 16, T, 1)),
                            loop(t, 0, T,
                                 make_seq({produce("Y.sram", vec(npu::VecOp::kRelu, Ys, t, Xs, t)),
                                           produce("Y", dma(false, Ys, t, 1, Y, Expr(t) * 16, 16, 1,
                                                            1))}))})));
  NpuModule mod = build_npu(LoweredFunc{"relu_rows", {X, Y}, body}, npu::default_target());
  std::vector<int8_t> x = random_int8(T * 16, 7), y(T * 16, 0);
  mod.run({NDArray::view(x.data(), {T, 16}, DType::kInt8),
           NDArray::view(y.data(), {T, 16}, DType::kInt8)});
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], std::max<int8_t>(x[i], 0)) << i;
  npu::SimStats s = mod.timing();
  EXPECT_EQ(s.count(Opcode::kStore), uint64_t(T));
  EXPECT_GT(s.count(Opcode::kSync), 0u);  // the bound made compute wait for the store
}

TEST(CodegenNpu, reloading_a_stored_output_waits_for_the_store) {
  // Z = sat(relu(X) + X), with relu(X) going through DDR (Y) and back: load after store on the
  // same bytes, ordered by a compute sync between the two DMA queues.
  Buffer X = make_buffer("X", DType::kInt8, {16, 16});
  Buffer Y = make_buffer("Y", DType::kInt8, {16, 16});
  Buffer Z = make_buffer("Z", DType::kInt8, {16, 16});
  Buffer S1 = make_buffer("S1", DType::kInt8, {16, 16}, "sram");
  Buffer S2 = make_buffer("S2", DType::kInt8, {16, 16}, "sram");
  Buffer S3 = make_buffer("S3", DType::kInt8, {16, 16}, "sram");
  Var r("r"), r2("r");
  Stmt body = make_allocate(
      S1, make_allocate(
              S2, make_allocate(
                      S3, make_seq({dma(true, S1, 0, 1, X, 0, 16, 16, 1),
                                    loop(r, 0, 16, vec(npu::VecOp::kRelu, S2, r, S1, r)),
                                    dma(false, S2, 0, 1, Y, 0, 16, 16, 1),
                                    dma(true, S3, 0, 1, Y, 0, 16, 16, 1),
                                    loop(r2, 0, 16, vec(npu::VecOp::kAdd, S3, r2, S3, r2, S1, r2)),
                                    dma(false, S3, 0, 1, Z, 0, 16, 16, 1)}))));
  NpuModule mod = build_npu(LoweredFunc{"roundtrip", {X, Y, Z}, body}, npu::default_target());
  std::vector<int8_t> x = random_int8(256, 3), y(256), z(256);
  mod.run({NDArray::view(x.data(), {16, 16}, DType::kInt8),
           NDArray::view(y.data(), {16, 16}, DType::kInt8),
           NDArray::view(z.data(), {16, 16}, DType::kInt8)});
  for (size_t i = 0; i < x.size(); ++i) {
    int relu = std::max<int>(x[i], 0);
    ASSERT_EQ(y[i], relu);
    ASSERT_EQ(z[i], std::clamp(relu + x[i], -128, 127)) << i;
  }
  EXPECT_EQ(mod.timing().count(Opcode::kSync), 1u);
  EXPECT_EQ(mod.timing().count(Opcode::kVector), 2u);  // each row loop folds into one
}

TEST(CodegenNpu, sram_overflow_lists_the_live_buffers_and_the_capacity) {
  Buffer X = make_buffer("X", DType::kInt8, {16, 16});
  Buffer As = make_buffer("A.sram", DType::kInt8, {8192, 16}, "sram");   // 128 KiB
  Buffer Bs = make_buffer("B.sram", DType::kInt8, {11008, 16}, "sram");  // 172 KiB
  Stmt body = make_allocate(As, make_allocate(Bs, vec(npu::VecOp::kRelu, Bs, 0, As, 0)));
  try {
    codegen_npu(LoweredFunc{"big", {X}, body}, npu::default_target());
    FAIL() << "expected a LowerError";
  } catch (const LowerError& e) {
    EXPECT_STREQ(e.what(),
                 "SRAM overflow: 300 KiB needed, 256 KiB available (sram_bytes of npu-v1): "
                 "A.sram 128 KiB, B.sram 172 KiB; use smaller tiles (split factors) or fewer "
                 "buffers");
  }
}

TEST(CodegenNpu, double_buffered_accumulator_overflow_counts_both_copies) {
  Buffer X = make_buffer("X", DType::kInt8, {16, 16});
  Buffer Ca = make_buffer("C.acc", DType::kInt32, {640, 16}, "acc");  // 40 KiB, x2 > 64 KiB
  Stmt body =
      make_attr("double_buffer", "C.acc", make_allocate(Ca, vec(npu::VecOp::kRelu, Ca, 0, Ca, 0)));
  try {
    codegen_npu(LoweredFunc{"acc", {X}, body}, npu::default_target());
    FAIL() << "expected a LowerError";
  } catch (const LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("accumulator overflow: 80 KiB needed, 64 KiB available "
                                         "(acc_bytes of npu-v1): C.acc 2 x 40 KiB"),
              std::string::npos)
        << e.what();
  }
}

TEST(CodegenNpu, leftover_buffer_store_names_the_stage) {
  Buffer C = make_buffer("C", DType::kInt8, {16});
  Var i("i");
  Stmt body = produce("C", loop(i, 0, 16, make_store(C, {i}, make_int(0, DType::kInt8))));
  try {
    codegen_npu(LoweredFunc{"f", {C}, body}, npu::default_target());
    FAIL() << "expected a LowerError";
  } catch (const LowerError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("stage 'C': the loop body is not a DMA, a tensorized GEMM or a vector op"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("cannot be expressed as NPU instructions"), std::string::npos) << msg;
  }
}

TEST(CodegenNpu, float_argument_is_rejected_by_name) {
  Buffer F = make_buffer("F", DType::kFloat32, {16});
  try {
    codegen_npu(LoweredFunc{"f", {F}, Stmt()}, npu::default_target());
    FAIL() << "expected a LowerError";
  } catch (const LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'F' has dtype float32"), std::string::npos)
        << e.what();
  }
}

TEST(CodegenNpu, module_rejects_a_wrong_shape_naming_the_argument) {
  NpuModule mod = build_npu(matmul(64, 16, 64, false), npu::default_target());
  std::vector<int8_t> a(64 * 64), bt(16 * 64), c(64 * 16);
  try {
    mod.run({NDArray::view(a.data(), {64, 64}, DType::kInt8),
             NDArray::view(bt.data(), {64, 16}, DType::kInt8),
             NDArray::view(c.data(), {64, 16}, DType::kInt8)});
    FAIL() << "expected an ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 'Bt' must have shape (16, 64)"),
              std::string::npos)
        << e.what();
  }
}

TEST(CodegenNpu, same_function_gives_identical_kernel_bytes) {
  npu::Kernel a = codegen_npu(matmul(256, 32, 64, true), npu::default_target());
  npu::Kernel b = codegen_npu(matmul(256, 32, 64, true), npu::default_target());
  EXPECT_EQ(npu::serialize_kernel(a), npu::serialize_kernel(b));
}

TEST(CodegenNpu, saved_module_loads_and_runs_the_same) {
  LoweredFunc f = matmul(64, 32, 64, false);
  f.work = Work{64 * 32 * 64, 64 * 64 + 32 * 64 + 64 * 32, 64 * 32};  // as lower() would set it
  NpuModule mod = build_npu(f, npu::default_target());
  std::string path = ::testing::TempDir() + "codegen_npu_matmul.tnpu";
  mod.save(path);
  NpuModule back = NpuModule::load(path);
  EXPECT_EQ(npu::serialize_kernel(back.kernel()), npu::serialize_kernel(mod.kernel()));
  EXPECT_EQ(back.timing().cycles, mod.timing().cycles);
  // The true work survives the file: the bound is MAC-limited, 131072 MACs / 256 per cycle.
  EXPECT_DOUBLE_EQ(back.roofline().cycles, 512.0);
  EXPECT_EQ(back.roofline().ddr_bytes, uint64_t(64 * 64 + 32 * 64 + 64 * 32));
  std::remove(path.c_str());
}

TEST(CodegenNpu, module_runs_check_hazards_unless_told_not_to) {
  // Every compiled kernel the tests run goes through NpuModule::run, so through the hazard check.
  npu::Assembler a(npu::default_target(), "racy");
  uint32_t x = a.buffer("x", {16, 16}, DType::kInt8, npu::BufferRole::kInput);
  uint32_t y = a.buffer("y", {16, 16}, DType::kInt8, npu::BufferRole::kOutput);
  a.load(npu::Mem::kSram, 0, 1, x, 16, 16, 1);  // no token to the relu that reads it
  a.relu(16, 1, npu::sram(16, 1), npu::sram(0, 1), npu::kPushNext);
  a.store(npu::Mem::kSram, 16, 1, y, 16, 16, 1, npu::kPopPrev);
  NpuModule mod(a.finish(), npu::default_target());
  std::vector<int8_t> in(256, 5), out(256, 1);
  std::vector<NDArray> args = {NDArray::view(in.data(), {16, 16}, DType::kInt8),
                               NDArray::view(out.data(), {16, 16}, DType::kInt8)};
  EXPECT_THROW(mod.run(args), SimulationError);
  npu::SimOptions unchecked;
  unchecked.check_hazards = false;
  mod.run(args, unchecked);
  EXPECT_EQ(out, std::vector<int8_t>(256, 0)) << "the relu read SRAM before the load wrote it";
}

TEST(CodegenNpu, a_function_built_by_hand_without_true_work_has_only_the_kernel_bound) {
  NpuModule mod = build_npu(matmul(64, 32, 64, false), npu::default_target());
  EXPECT_THROW(mod.roofline(), ArgumentError);
  EXPECT_EQ(mod.kernel_roofline().macs, uint64_t(64 * 32 * 64));
}

}  // namespace
}  // namespace tessera
