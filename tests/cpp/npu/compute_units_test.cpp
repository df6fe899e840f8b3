// docs/npu_isa.md section 6, rule 6: the compute queue's units. With compute_units = 2 the MAC
// array and the vector unit overlap, issued in order, held by a scoreboard on conflicting ranges,
// retired in order; with 1 they run one at a time. Expected cycles are computed here from the
// target's cost fields (npu-v1 without its other fidelity costs), never read from a run.
#include <gtest/gtest.h>

#include "gemm_kernel.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

Target units(int64_t n) {
  Target t = testing::without_fidelity_costs(default_target());
  t.compute_units = n;
  return t;
}

const Target one = units(1), two = units(2);

Assembler with_ddr(const char* name, const Target& target) {
  Assembler a(target, name);
  a.buffer("ddr", {1 << 16}, DType::kInt8, BufferRole::kInput);
  return a;
}

// A GEMM of 32 steps into accumulator rows [0, 4) and, after it, a vector add of 15 rows whose
// accumulator rows start at `vec_acc`.
Kernel gemm_then_vector(const Target& t, uint32_t vec_acc) {
  Assembler a = with_ddr("gemm_then_vector", t);
  a.gemm(true, 8, 4, at(0, 0, 1), at(0, 1), at(64));
  a.vector_imm(VecOp::kAdd, 5, 3, acc(vec_acc, 3, 1), acc(vec_acc, 3, 1), 7);
  return a.finish();
}

const int64_t kGemm = 20 + 32;    // gemm_fixed_cycles + steps
const int64_t kVector = 10 + 15;  // vector_fixed_cycles + rows

TEST(ComputeUnits, gemm_and_vector_on_other_rows_overlap_on_two_units) {
  ASSERT_EQ(two.gemm_fixed_cycles, 20);
  ASSERT_EQ(two.vector_fixed_cycles, 10);
  SimStats s = simulate_timing(gemm_then_vector(two, 100), two);
  // Both start at 0; finish waits for both units: 1 cycle after the longer.
  EXPECT_EQ(s.cycles, uint64_t(std::max(kGemm, kVector) + 1));
  // The queue is busy while either unit runs; each unit's own time apart.
  EXPECT_EQ(s.unit(Queue::kCompute).busy_cycles, uint64_t(std::max(kGemm, kVector) + 1));
  EXPECT_EQ(s.mac_busy_cycles, uint64_t(kGemm));
  EXPECT_EQ(s.vector_busy_cycles, uint64_t(kVector));
}

TEST(ComputeUnits, one_unit_runs_them_one_after_the_other) {
  SimStats s = simulate_timing(gemm_then_vector(one, 100), one);
  EXPECT_EQ(s.cycles, uint64_t(kGemm + kVector + 1));
  EXPECT_EQ(s.unit(Queue::kCompute).busy_cycles, s.cycles);
  EXPECT_EQ(s.mac_busy_cycles, uint64_t(kGemm));
  EXPECT_EQ(s.vector_busy_cycles, uint64_t(kVector));
}

TEST(ComputeUnits, a_vector_reading_rows_the_gemm_writes_waits_for_it) {
  // The vector's rows [2, 17) overlap the GEMM's [0, 4): read after write.
  SimStats s = simulate_timing(gemm_then_vector(two, 2), two);
  EXPECT_EQ(s.cycles, uint64_t(kGemm + kVector + 1));
  EXPECT_EQ(s.unit(Queue::kCompute).stalled_cycles, uint64_t(kGemm));
}

TEST(ComputeUnits, a_gemm_overwriting_rows_a_running_vector_reads_waits_for_it) {
  // Write after read: the requantize of one tile, then the next tile's reset GEMM into the same
  // accumulator rows (no double buffering).
  Assembler a = with_ddr("war", two);
  a.requantize(8, 1, sram(200, 1), acc(0, 1), 1 << 14, 14, 0);
  a.gemm(true, 8, 1, at(0, 1), at(0, 1), at(64));
  SimStats s = simulate_timing(a.finish(), two);
  EXPECT_EQ(s.cycles, uint64_t((10 + 8) + (20 + 8) + 1));
}

TEST(ComputeUnits, a_gemm_reading_sram_rows_a_vector_writes_waits_for_it) {
  Assembler a = with_ddr("sram_raw", two);
  a.requantize(8, 1, sram(0, 1), acc(100, 1), 1 << 14, 14, 0);  // writes SRAM rows [0, 8)
  a.gemm(true, 8, 1, at(0, 1), at(4, 1), at(64));               // reads inp rows [4, 12)
  SimStats s = simulate_timing(a.finish(), two);
  EXPECT_EQ(s.cycles, uint64_t((10 + 8) + (20 + 8) + 1));
}

TEST(ComputeUnits, the_queue_issues_in_order) {
  // G1 (MAC) and V1 (vector) start at 0; G2 waits for the MAC array (52); V2, after G2 in the
  // queue, cannot start before G2 has started although the vector unit is free at 25.
  Assembler a = with_ddr("in_order", two);
  a.gemm(true, 8, 4, at(0, 0, 1), at(0, 1), at(64));                   // 0 .. 52
  a.vector_imm(VecOp::kAdd, 5, 3, acc(100, 3, 1), acc(100, 3, 1), 7);  // 0 .. 25
  a.gemm(true, 8, 4, at(10, 0, 1), at(0, 1), at(64));                  // 52 .. 104
  a.vector_imm(VecOp::kAdd, 5, 3, acc(200, 3, 1), acc(200, 3, 1), 7);  // 52 .. 77
  SimStats s = simulate_timing(a.finish(), two);
  EXPECT_EQ(s.cycles, uint64_t(2 * kGemm + 1));
}

TEST(ComputeUnits, tokens_are_pushed_when_every_earlier_compute_instruction_has_ended) {
  // The vector (25 cycles) pushes a token to the store queue while the GEMM before it (52) still
  // runs: the token means both are done, so the store starts at 52.
  Assembler a = with_ddr("retire", two);
  a.gemm(true, 8, 4, at(0, 0, 1), at(0, 1), at(64));
  a.requantize(1, 1, sram(200, 1), acc(100, 1), 1 << 14, 14, 0, kPushNext);
  a.store(Mem::kSram, 200, 1, 0, 16, 1, 1, kPopPrev);
  SimStats s = simulate_timing(a.finish(), two);
  int64_t store = two.dma_fixed_cycles + 1 + two.dma_row_cycles;  // 16 bytes, one row
  EXPECT_EQ(s.cycles, uint64_t(kGemm + store));
  EXPECT_EQ(s.unit(Queue::kStore).stalled_cycles, uint64_t(kGemm));
}

TEST(ComputeUnits, functional_results_are_the_same_with_one_and_two_units) {
  // A tile pipeline whose requantize overlaps the next tile's GEMM (accumulator rows alternate):
  // the bytes must not depend on the overlap.
  auto build = [](const Target& t) {
    Assembler a(t, "pipeline");
    uint32_t x = a.buffer("x", {16 * 64}, DType::kInt8, BufferRole::kInput);
    uint32_t w = a.buffer("w", {256 * 4}, DType::kInt8, BufferRole::kInput);
    uint32_t y = a.buffer("y", {16 * 64}, DType::kInt8, BufferRole::kOutput);
    a.load(Mem::kSram, 0, 1, x, 16, 64, 1);              // x: 64 rows
    a.load(Mem::kSram, 64, 1, w, 16, 64, 1, kPushNext);  // w: 4 tiles of 16 rows
    for (uint32_t tile = 0; tile < 4; ++tile) {
      uint32_t accb = (tile % 2) * 16;  // the accumulator alternates between two tiles
      a.gemm(true, 16, 1, at(accb, 1), at(tile * 16, 1), at(64 + tile * 16),
             tile == 0 ? kPopPrev : 0);
      a.requantize(16, 1, sram(200 + tile * 16, 1), acc(accb, 1), 1 << 14, 14, 0,
                   tile == 3 ? kPushNext : 0);
    }
    a.store(Mem::kSram, 200, 1, y, 16, 64, 1, kPopPrev);
    return a.finish();
  };
  std::vector<uint8_t> ddr_one, ddr_two;
  Kernel k1 = build(one), k2 = build(two);
  std::vector<uint8_t> init(k1.ddr_bytes());
  for (size_t i = 0; i < init.size(); ++i) init[i] = uint8_t(i * 37 + 11);
  ddr_one = ddr_two = init;
  SimStats s1 = simulate_functional(k1, one, ddr_one);
  SimStats s2 = simulate_functional(k2, two, ddr_two);
  EXPECT_EQ(ddr_one, ddr_two);
  EXPECT_NE(ddr_one, init) << "the kernel wrote its output";
  EXPECT_LT(s2.cycles, s1.cycles) << "the requantizes overlap the GEMMs on two units";
}

}  // namespace
}  // namespace tessera::npu
