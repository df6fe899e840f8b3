// Functional mode moves data in the order the timing model runs instructions, and its hazard check
// turns a missing dependency token into an error (docs/npu_isa.md section 6). The kernel is a
// double-buffered relu pipeline written with the assembler: per tile, load -> relu -> store,
// with all four token directions; each test leaves one token (a push and its pop) out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

enum class Missing { kNone, kLoadCompute, kComputeStore, kStoreCompute, kComputeLoad };

constexpr int kTiles = 4, kRows = 16;

// SRAM: input buffers at rows 0 and 16, output buffers at rows 32 and 48.
Kernel relu_pipeline(Missing missing) {
  Assembler a(default_target(), "relu_pipeline");
  uint32_t X = a.buffer("x", {kTiles * kRows, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t Y = a.buffer("y", {kTiles * kRows, 16}, DType::kInt8, BufferRole::kOutput);
  for (int i = 0; i < kTiles; ++i) {
    uint32_t in = (i % 2) * kRows, out = 32 + (i % 2) * kRows, ddr = i * kRows * 16;
    bool reuse = i >= 2, again = i + 2 < kTiles;
    unsigned load = kPushNext | (reuse ? kPopNext : 0);
    unsigned relu = kPopPrev | kPushNext | (again ? kPushPrev : 0) | (reuse ? kPopNext : 0);
    unsigned store = kPopPrev | (again ? kPushPrev : 0);
    if (missing == Missing::kLoadCompute && i == 0) load &= ~kPushNext, relu &= ~kPopPrev;
    if (missing == Missing::kComputeStore && i == 1) relu &= ~kPushNext, store &= ~kPopPrev;
    if (missing == Missing::kStoreCompute && i == 0) store &= ~kPushPrev;
    if (missing == Missing::kStoreCompute && i == 2) relu &= ~kPopNext;
    if (missing == Missing::kComputeLoad && i == 0) relu &= ~kPushPrev;
    if (missing == Missing::kComputeLoad && i == 2) load &= ~kPopNext;
    a.load(Mem::kSram, in, 1, X + ddr, 16, kRows, 1, load);
    a.relu(kRows, 1, sram(out, 1), sram(in, 1), relu);
    a.store(Mem::kSram, out, 1, Y + ddr, 16, kRows, 1, store);
  }
  return a.finish();
}

std::vector<int8_t> input() {
  std::mt19937 rng(11);
  std::vector<int8_t> x(kTiles * kRows * 16);
  for (int8_t& v : x) v = int8_t(int(rng() % 256) - 128);
  return x;
}

// Runs the kernel functionally; returns y.
std::vector<int8_t> run(const Kernel& k, bool check) {
  std::vector<uint8_t> ddr(k.ddr_bytes());
  std::vector<int8_t> x = input();
  std::memcpy(ddr.data() + k.buffer("x").ddr_offset, x.data(), x.size());
  SimOptions o;
  o.check_hazards = check;
  simulate_functional(k, default_target(), ddr, o);
  std::vector<int8_t> y(x.size());
  std::memcpy(y.data(), ddr.data() + k.buffer("y").ddr_offset, y.size());
  return y;
}

std::string hazard_of(Missing missing) {
  try {
    run(relu_pipeline(missing), true);
  } catch (const SimulationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a hazard";
  return "";
}

#define EXPECT_CONTAINS(message, part) \
  EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message)

TEST(Hazards, with_every_token_the_pipeline_is_bit_exact_and_passes_the_check) {
  std::vector<int8_t> x = input(), y = run(relu_pipeline(Missing::kNone), true);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], std::max<int8_t>(x[i], 0)) << i;
}

// Instructions: tile i is load #3i, relu #3i+1, store #3i+2.
TEST(Hazards, missing_load_to_compute_token_is_reported_with_both_instructions_and_the_rows) {
  std::string m = hazard_of(Missing::kLoadCompute);
  EXPECT_CONTAINS(m, "hazard");
  EXPECT_CONTAINS(m, "instruction #1 (vector.relu ext=16x1 sram[32+1i+0j] <- sram[0+1i+0j]");
  EXPECT_CONTAINS(m, "instruction #0 (load sram[0] stride=1 <- ddr[0]");
  EXPECT_CONTAINS(m, "SRAM rows [0, 16)");
  EXPECT_CONTAINS(m, "neither is ordered before the other by queue order or a dependency token");
}

TEST(Hazards, missing_compute_to_store_token_is_reported) {
  std::string m = hazard_of(Missing::kComputeStore);
  EXPECT_CONTAINS(m, "instruction #4 (vector.relu");     // tile 1 writes output buffer 1 ...
  EXPECT_CONTAINS(m, "instruction #5 (store sram[48]");  // ... which its store reads
  EXPECT_CONTAINS(m, "SRAM rows [48, 64)");
}

TEST(Hazards, missing_store_to_compute_token_is_reported) {
  // Tile 2's relu overwrites output buffer 0 while tile 0's store may still read it.
  std::string m = hazard_of(Missing::kStoreCompute);
  EXPECT_CONTAINS(m, "instruction #7 (vector.relu");
  EXPECT_CONTAINS(m, "instruction #2 (store sram[32]");
  EXPECT_CONTAINS(m, "SRAM rows [32, 48)");
}

TEST(Hazards, missing_compute_to_load_token_is_reported) {
  // Tile 2's load overwrites input buffer 0 while tile 0's relu may still read it.
  std::string m = hazard_of(Missing::kComputeLoad);
  EXPECT_CONTAINS(m, "instruction #6 (load sram[0]");
  EXPECT_CONTAINS(m, "instruction #1 (vector.relu");
  EXPECT_CONTAINS(m, "SRAM rows [0, 16)");
}

TEST(Hazards, without_the_check_data_moves_in_timing_order_so_a_missing_token_gives_wrong_data) {
  // The relu of tile 0 starts as soon as it is dispatched and reads its input buffer then; the
  // load writes it only when its transfer ends, so tile 0 comes out as relu(0) = 0.
  std::vector<int8_t> x = input(), y = run(relu_pipeline(Missing::kLoadCompute), false);
  for (int i = 0; i < kRows * 16; ++i) ASSERT_EQ(y[i], 0) << i;
  for (size_t i = kRows * 16; i < x.size(); ++i) ASSERT_EQ(y[i], std::max<int8_t>(x[i], 0)) << i;
}

TEST(Hazards, ddr_ranges_are_checked_too) {
  // A store writes DDR bytes that a load reads back, with no compute sync between them.
  Assembler a(default_target(), "ddr_race");
  uint32_t S = a.buffer("scratch", {256}, DType::kInt8, BufferRole::kScratch);
  a.store(Mem::kSram, 0, 1, S, 16, 16, 1);
  a.load(Mem::kSram, 100, 1, S + 32, 16, 2, 1);
  Kernel k = a.finish();
  std::vector<uint8_t> ddr(k.ddr_bytes());
  std::string m;
  try {
    simulate_functional(k, default_target(), ddr);
  } catch (const SimulationError& e) {
    m = e.what();
  }
  EXPECT_CONTAINS(m, "DDR bytes [32, 64) (buffer 'scratch' bytes [32, 64))");
  EXPECT_CONTAINS(m, "instruction #0 (store");
  EXPECT_CONTAINS(m, "instruction #1 (load");
}

TEST(Hazards, accesses_that_only_interleave_do_not_conflict) {
  // A load writes every other SRAM row while a GEMM reads the rows in between: no shared row.
  Assembler a(default_target(), "interleaved");
  uint32_t X = a.buffer("x", {512}, DType::kInt8, BufferRole::kInput);
  a.load(Mem::kSram, 0, 2, X, 16, 8, 1);           // rows 0, 2, ..., 14
  a.gemm(true, 8, 1, at(0, 1), at(1, 2), at(32));  // inp rows 1, 3, ..., 15; wgt 32..47
  Kernel k = a.finish();
  std::vector<uint8_t> ddr(k.ddr_bytes());
  EXPECT_NO_THROW(simulate_functional(k, default_target(), ddr));
}

TEST(Hazards, timing_mode_does_not_check) {
  EXPECT_NO_THROW(simulate_timing(relu_pipeline(Missing::kLoadCompute), default_target()));
}

}  // namespace
}  // namespace tessera::npu
