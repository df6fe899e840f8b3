// The timing rules of docs/npu_isa.md, one test per rule, and acceptance 2: overlap is modelled.
// Expected figures are computed here from the target's cost fields, never read from a run.
#include <gtest/gtest.h>

#include "gemm_kernel.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

Target t = default_target();

Assembler with_ddr(const char* name, int64_t bytes = 1 << 16) {
  Assembler a(t, name);
  a.buffer("ddr", {bytes}, DType::kInt8, BufferRole::kInput);
  return a;
}

int64_t dma(int64_t rows, int64_t bytes) {
  return t.dma_fixed_cycles + bytes / t.ddr_bytes_per_cycle + rows * t.dma_row_cycles;
}

TEST(Timing, one_load_costs_latency_plus_bytes_over_bandwidth_plus_one_cycle_per_row) {
  Assembler a = with_ddr("one_load");
  a.load(Mem::kSram, 0, 4, 0, 64, 16, 4);  // 16 DDR rows of 64 bytes
  SimStats s = simulate_timing(a.finish(), t);
  // finish runs in the compute queue in parallel: 1 cycle, long done.
  EXPECT_EQ(s.cycles, uint64_t(dma(16, 1024)));
  EXPECT_EQ(s.ddr_bytes_read, 1024u);
  EXPECT_EQ(s.ddr_port_busy_cycles, uint64_t(dma(16, 1024) - t.dma_fixed_cycles));
}

TEST(Timing, loads_in_one_queue_run_one_after_another) {
  Assembler a = with_ddr("two_loads");
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1);
  a.load(Mem::kSram, 64, 1, 1024, 16, 64, 1);
  EXPECT_EQ(simulate_timing(a.finish(), t).cycles, uint64_t(2 * dma(64, 1024)));
}

TEST(Timing, store_transfer_waits_for_the_ddr_port_held_by_a_load) {
  // Both DMAs start at cycle 0; their latencies overlap, their transfers cannot. The load (first
  // by queue order on a tie) transfers first, the store waits for the port.
  Assembler a = with_ddr("load_and_store");
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1);
  a.store(Mem::kSram, 100, 1, 4096, 16, 64, 1);
  SimStats s = simulate_timing(a.finish(), t);
  int64_t xfer = dma(64, 1024) - t.dma_fixed_cycles;
  EXPECT_EQ(s.cycles, uint64_t(t.dma_fixed_cycles + 2 * xfer));
  EXPECT_EQ(s.unit(Queue::kStore).stalled_cycles, uint64_t(xfer));
  EXPECT_EQ(s.ddr_bytes_written, 1024u);
}

TEST(Timing, gemm_costs_fixed_plus_one_cycle_per_step_and_vector_one_per_row) {
  Assembler a = with_ddr("compute");
  a.gemm(true, 8, 4, at(0, 4, 1), at(0, 1), at(64));
  a.vector_imm(VecOp::kAdd, 5, 3, acc(0, 3, 1), acc(0, 3, 1), 7);
  SimStats s = simulate_timing(a.finish(), t);
  EXPECT_EQ(s.cycles, uint64_t(t.gemm_fixed_cycles + 32 + t.vector_fixed_cycles + 15 + 1));
  EXPECT_EQ(s.unit(Queue::kCompute).busy_cycles, s.cycles);
  EXPECT_EQ(s.macs, 32u * 256);
  EXPECT_EQ(s.vector_ops, 15u * 16);
}

TEST(Timing, a_popped_token_delays_the_consumer_until_the_producer_completes) {
  Assembler a = with_ddr("token");
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1, kPushNext);
  a.gemm(true, 64, 1, at(0, 1), at(0, 1), at(64), kPopPrev);
  SimStats s = simulate_timing(a.finish(), t);
  EXPECT_EQ(s.cycles, uint64_t(dma(64, 1024) + t.gemm_fixed_cycles + 64 + 1));
  EXPECT_EQ(s.unit(Queue::kCompute).stalled_cycles, uint64_t(dma(64, 1024)));
}

TEST(Timing, without_tokens_queues_run_in_parallel) {
  Assembler a = with_ddr("parallel");
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1);
  a.gemm(true, 64, 1, at(0, 1), at(0, 1), at(64));
  SimStats s = simulate_timing(a.finish(), t);
  EXPECT_EQ(s.cycles, uint64_t(std::max<int64_t>(dma(64, 1024), t.gemm_fixed_cycles + 64 + 1)));
}

TEST(Timing, a_full_instruction_queue_stops_the_fetcher) {
  // With a load queue of depth 1, the gemm behind the second load is dispatched only when the
  // first load completes, although it has no token to wait for.
  Target shallow = t;
  shallow.load_queue_depth = 1;
  Assembler a(shallow, "shallow");
  a.buffer("ddr", {1 << 16}, DType::kInt8, BufferRole::kInput);
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1);
  a.load(Mem::kSram, 64, 1, 1024, 16, 64, 1);
  a.gemm(true, 1, 1, at(0), at(0), at(128));
  SimStats s = simulate_timing(a.finish(), shallow);
  EXPECT_EQ(s.cycles, uint64_t(2 * dma(64, 1024)));
  EXPECT_EQ(s.unit(Queue::kCompute).stalled_cycles, 0u) << "waiting for dispatch is not a stall";
}

// Acceptance 2: the same GEMM, serial and double buffered.
TEST(Timing, serial_gemm_takes_load_plus_compute_plus_store) {
  testing::GemmCosts c = testing::gemm64_costs_per_iteration(t);
  double hand = 16.0 * (c.load + c.compute + c.store);
  SimStats s = simulate_timing(testing::gemm64_kernel(t, false, {}), t);
  EXPECT_NEAR(double(s.cycles), hand, 0.10 * hand);
  EXPECT_GE(double(s.cycles), hand) << "serial can only add (sync) cycles";
}

TEST(Timing, double_buffered_gemm_takes_the_largest_of_load_compute_store) {
  testing::GemmCosts c = testing::gemm64_costs_per_iteration(t);
  double hand = 16.0 * std::max({c.load, c.compute, c.store});
  SimStats s = simulate_timing(testing::gemm64_kernel(t, true, {}), t);
  EXPECT_NEAR(double(s.cycles), hand, 0.10 * hand);
  SimStats serial = simulate_timing(testing::gemm64_kernel(t, false, {}), t);
  EXPECT_LT(s.cycles, serial.cycles * 2 / 3);
  EXPECT_EQ(s.ddr_bytes_read, serial.ddr_bytes_read);
}

TEST(Timing, gemm_statistics_count_every_unit_and_opcode) {
  SimStats s = simulate_timing(testing::gemm64_kernel(t, true, {}), t);
  EXPECT_EQ(s.count(Opcode::kLoad), 32u);
  EXPECT_EQ(s.count(Opcode::kGemm), 32u);
  EXPECT_EQ(s.count(Opcode::kVector), 16u);
  EXPECT_EQ(s.count(Opcode::kStore), 16u);
  EXPECT_EQ(s.count(Opcode::kFinish), 1u);
  EXPECT_EQ(s.ddr_bytes_read, 16u * (1024 + 1024));
  EXPECT_EQ(s.ddr_bytes_written, 64u * 64);
  EXPECT_EQ(s.sram_peak_bytes, (256u + 32) * 16);  // up to the second output tile
  EXPECT_EQ(s.acc_peak_bytes, 32u * 64);
  for (const UnitStats& u : s.units) EXPECT_LE(u.busy_cycles + u.stalled_cycles, s.cycles);
  EXPECT_EQ(s.units[0].insns + s.units[1].insns + s.units[2].insns, s.total_insns());
}

}  // namespace
}  // namespace tessera::npu
