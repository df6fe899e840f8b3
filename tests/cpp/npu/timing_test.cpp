// The timing rules of docs/npu_isa.md, one test per rule, and acceptance 2: overlap is modelled.
// Expected figures are computed here from the target's cost fields, never read from a run.
// The base rules run on npu-v1 without its fidelity costs (fetch, accumulator latency, padding);
// each cost has its own tests at the end, with the cost alone and with it set to zero.
#include <gtest/gtest.h>

#include "gemm_kernel.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

Target t = testing::without_fidelity_costs(default_target());

Assembler with_ddr(const char* name, int64_t bytes = 1 << 16, const Target& target = t) {
  Assembler a(target, name);
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

// ---- Fidelity costs. Each test turns one cost on (npu-v1's value) and computes the cycles by
// hand.

Target with_fetch(int64_t burst) {
  Target f = t;
  f.fetch_burst_insns = burst;
  return f;
}

// A fetch burst is read like a DMA: request latency, then the port for its bytes plus one row.
int64_t fetch_burst(const Target& f, int64_t insns) {
  return f.dma_fixed_cycles + (insns * 32 + f.ddr_bytes_per_cycle - 1) / f.ddr_bytes_per_cycle +
         f.dma_row_cycles;
}

TEST(Timing, instructions_arrive_over_the_ddr_port_before_they_run) {
  Target f = with_fetch(default_target().fetch_burst_insns);
  Assembler a = with_ddr("fetched_load", 1 << 16, f);
  a.load(Mem::kSram, 0, 4, 0, 64, 16, 4);
  SimStats s = simulate_timing(a.finish(), f);
  // One burst holds both instructions; the load is dispatched when it has arrived.
  EXPECT_EQ(s.cycles, uint64_t(fetch_burst(f, 2) + dma(16, 1024)));
  EXPECT_EQ(s.ddr_bytes_fetched, 2u * 32);
  EXPECT_EQ(s.ddr_port_busy_cycles,
            uint64_t(fetch_burst(f, 2) - f.dma_fixed_cycles + dma(16, 1024) - f.dma_fixed_cycles));
  EXPECT_EQ(s.ddr_bytes_read, 1024u) << "instruction bytes are not load traffic";
}

TEST(Timing, a_fetch_burst_shares_the_ddr_port_with_loads_and_goes_first_on_a_tie) {
  // Bursts of 2: burst 0 (both loads) arrives, both are dispatched at once, so burst 1 (finish) is
  // requested at the same cycle as the first load starts; their transfers are ready together and
  // the fetch takes the port first.
  Target f = with_fetch(2);
  Assembler a = with_ddr("fetch_vs_load", 1 << 16, f);
  a.load(Mem::kSram, 0, 1, 0, 16, 64, 1);
  a.load(Mem::kSram, 64, 1, 1024, 16, 64, 1);
  SimStats s = simulate_timing(a.finish(), f);
  int64_t second_burst_port = fetch_burst(f, 1) - f.dma_fixed_cycles;
  EXPECT_EQ(s.cycles, uint64_t(fetch_burst(f, 2) + second_burst_port + 2 * dma(64, 1024)));
  EXPECT_EQ(s.unit(Queue::kLoad).stalled_cycles, uint64_t(second_burst_port));
  EXPECT_EQ(s.ddr_bytes_fetched, 3u * 32);
}

TEST(Timing, the_next_fetch_burst_waits_until_the_last_one_is_dispatched) {
  // Compute queue of depth 1 and bursts of 2: gemm #1 is dispatched only when gemm #0 completes,
  // and only then is the burst holding gemm #2 and finish requested.
  Target f = with_fetch(2);
  f.compute_queue_depth = 1;
  Assembler a = with_ddr("fetch_drain", 1 << 16, f);
  for (int i = 0; i < 3; ++i) a.gemm(true, 64, 1, at(0, 1), at(0, 1), at(64));
  SimStats s = simulate_timing(a.finish(), f);
  int64_t gemm = f.gemm_fixed_cycles + 64;
  int64_t first = fetch_burst(f, 2);                  // gemm #0 starts
  int64_t second = first + gemm + fetch_burst(f, 2);  // gemm #2 arrives
  EXPECT_EQ(s.cycles, uint64_t(second + gemm + 1));   // then gemm #2, then finish
}

TEST(Timing, zero_fetch_burst_makes_instruction_fetch_free_as_before) {
  Assembler a = with_ddr("unfetched_load");
  a.load(Mem::kSram, 0, 4, 0, 64, 16, 4);
  Kernel k = a.finish();
  SimStats s = simulate_timing(k, t);
  EXPECT_EQ(s.cycles, uint64_t(dma(16, 1024)));
  EXPECT_EQ(s.ddr_bytes_fetched, 0u);
  EXPECT_EQ(s.ddr_port_busy_cycles, uint64_t(dma(16, 1024) - t.dma_fixed_cycles));
}

Target with_acc_latency(int64_t latency) {
  Target l = t;
  l.acc_raw_latency_cycles = latency;
  return l;
}

// One accumulating GEMM (plus finish) with the given accumulator address.
uint64_t gemm_cycles(const Target& target, bool reset, uint16_t e0, uint16_t e1, Affine acc_addr) {
  Assembler a = with_ddr("acc_latency", 1 << 16, target);
  a.gemm(reset, e0, e1, acc_addr, at(0, 1, 1), at(512));
  return simulate_timing(a.finish(), target).cycles - 1;  // finish runs after it
}

TEST(Timing, accumulating_into_the_row_of_the_step_before_waits_for_the_accumulator) {
  Target l = with_acc_latency(default_target().acc_raw_latency_cycles);
  const int64_t L = l.acc_raw_latency_cycles, F = l.gemm_fixed_cycles;
  // Inner loop on one row (acc stride1 = 0), as a dense layer's reduction: within each of the 4
  // rows, each of the 7 later steps issues L cycles after the one before.
  EXPECT_EQ(gemm_cycles(l, false, 4, 8, at(0, 1, 0)), uint64_t(F + 4 * (1 + 7 * L)));
  // Every step on row 0.
  EXPECT_EQ(gemm_cycles(l, false, 4, 4, at(0, 0, 0)), uint64_t(F + 1 + 15 * L));
  // Rows revisited once per outer iteration, 2 steps apart: each outer iteration takes L cycles.
  EXPECT_EQ(gemm_cycles(l, false, 5, 2, at(0, 0, 1)),
            uint64_t(F + 4 * std::max<int64_t>(2, L) + 2));
  // Rows i0 + i1 (3x3): by hand, the steps issue at 0 1 2 | 4 5 6 | 8 9 10 (step (1,0) waits for
  // (0,1) on row 1, (1,1) for (0,2), (2,0) for (1,1), (2,1) for (1,2)).
  ASSERT_EQ(L, 3);
  EXPECT_EQ(gemm_cycles(l, false, 3, 3, at(0, 1, 1)), uint64_t(F + 11));
}

TEST(Timing, steps_that_reset_or_touch_rows_far_enough_apart_do_not_wait) {
  Target l = with_acc_latency(default_target().acc_raw_latency_cycles);
  const int64_t F = l.gemm_fixed_cycles;
  EXPECT_EQ(gemm_cycles(l, true, 4, 8, at(0, 1, 0)), uint64_t(F + 32)) << "reset reads no row";
  EXPECT_EQ(gemm_cycles(l, false, 8, 4, at(0, 4, 1)), uint64_t(F + 32)) << "every row is new";
  EXPECT_EQ(gemm_cycles(l, false, 5, 4, at(0, 0, 1)), uint64_t(F + 20)) << "rows 4 steps apart";
}

TEST(Timing, zero_accumulator_latency_restores_one_step_per_cycle) {
  for (int64_t latency : {0, 1}) {
    Target l = with_acc_latency(latency);
    EXPECT_EQ(gemm_cycles(l, false, 4, 8, at(0, 1, 0)), uint64_t(l.gemm_fixed_cycles + 32));
    EXPECT_EQ(gemm_cycles(l, false, 3, 3, at(0, 1, 1)), uint64_t(l.gemm_fixed_cycles + 9));
  }
}

TEST(Timing, zero_padding_costs_load_unit_cycles_after_the_transfer_without_the_port) {
  Target p = t;
  p.pad_unit_cycles = default_target().pad_unit_cycles;
  // An 8x8 tile padded by one on each side: 10x10 units, 36 of them zeros. A store starting at the
  // same cycle gets the port as soon as the load's transfer ends; it does not wait for the zeros.
  Assembler a = with_ddr("padded", 1 << 16, p);
  a.load(Mem::kSram, 0, 10, 0, 128, 8, 8, 0, Pad{1, 1, 1, 1});
  a.store(Mem::kSram, 200, 1, 8192, 16, 64, 1);
  SimStats s = simulate_timing(a.finish(), p);
  int64_t load_xfer = dma(8, 1024) - p.dma_fixed_cycles,
          store_xfer = dma(64, 1024) - p.dma_fixed_cycles;
  int64_t load_end = p.dma_fixed_cycles + load_xfer + 36 * p.pad_unit_cycles;
  int64_t store_end = p.dma_fixed_cycles + load_xfer + store_xfer;
  EXPECT_EQ(s.cycles, uint64_t(std::max(load_end, store_end)));
  EXPECT_EQ(s.unit(Queue::kLoad).busy_cycles, uint64_t(load_end));
  EXPECT_EQ(s.unit(Queue::kStore).stalled_cycles, uint64_t(load_xfer));
  EXPECT_EQ(s.ddr_port_busy_cycles, uint64_t(load_xfer + store_xfer));
}

TEST(Timing, zero_pad_unit_cycles_makes_padding_free_as_before) {
  Assembler a = with_ddr("padded_free");
  a.load(Mem::kSram, 0, 10, 0, 128, 8, 8, 0, Pad{1, 1, 1, 1});
  EXPECT_EQ(simulate_timing(a.finish(), t).cycles, uint64_t(dma(8, 1024)));
}

TEST(Timing, npu_v1_without_its_fidelity_costs_gives_the_cycles_of_the_model_before_them) {
  // The 64x64x64 GEMM in both schedules, as benchmarks/npu_sim/REPORT.md recorded them before the
  // fidelity costs existed.
  EXPECT_EQ(simulate_timing(testing::gemm64_kernel(t, false, {}), t).cycles, 9728u);
  EXPECT_EQ(simulate_timing(testing::gemm64_kernel(t, true, {}), t).cycles, 5782u);
  Target v1 = default_target();
  EXPECT_GT(simulate_timing(testing::gemm64_kernel(v1, true, {}), v1).cycles, 5782u)
      << "npu-v1 pays for instruction fetch and the accumulator latency";
}

}  // namespace
}  // namespace tessera::npu
