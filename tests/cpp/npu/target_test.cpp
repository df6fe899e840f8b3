#include "runtime/npu/target.h"

#include <gtest/gtest.h>

#include "runtime/base/error.h"

namespace tessera::npu {
namespace {

TEST(Target, builtin_default_matches_the_committed_json_file) {
  Target file = load_target(std::string(TESSERA_SOURCE_DIR) + "/runtime/npu/targets/npu-v1.json");
  EXPECT_EQ(target_to_json(file), target_to_json(default_target()));
  EXPECT_EQ(target_hash(file), target_hash(default_target()));
}

TEST(Target, default_is_the_npu_v1_table_of_the_design) {
  Target t = default_target();
  EXPECT_EQ(t.name, "npu-v1");
  EXPECT_EQ(t.macs_per_cycle(), 256);
  EXPECT_EQ(t.sram_bytes, 256 * 1024);
  EXPECT_EQ(t.acc_bytes, 64 * 1024);
  EXPECT_EQ(t.vector_lanes, 16);
  EXPECT_EQ(t.ddr_bytes_per_cycle, 16);
  EXPECT_EQ(t.dma_fixed_cycles, 100);
  EXPECT_EQ(t.dma_row_cycles, 1);
  EXPECT_EQ(t.gemm_fixed_cycles, 20);
  EXPECT_EQ(t.vector_fixed_cycles, 10);
  EXPECT_EQ(t.clock_hz, 1000000000);
  EXPECT_EQ(t.sram_rows(), 16384);
  EXPECT_EQ(t.acc_rows(), 1024);
}

TEST(Target, json_round_trip_preserves_every_field_and_the_hash) {
  Target t = default_target();
  t.name = "npu-big";
  t.sram_bytes = 1 << 20;
  t.token_queue_depth = 7;
  Target back = parse_target(target_to_json(t), "round trip");
  EXPECT_EQ(target_to_json(back), target_to_json(t));
  EXPECT_EQ(target_hash(back), target_hash(t));
}

TEST(Target, hash_is_stable_and_changes_with_any_field) {
  Target t = default_target();
  // Pinned: a kernel file written today must load with tomorrow's build. (Changed when the
  // fidelity costs fetch_burst_insns, acc_raw_latency_cycles and pad_unit_cycles were added, and
  // when compute_units was: npu-v1's MAC array and vector unit overlap since.)
  EXPECT_EQ(target_hash(t), 0xa8a47a83b809a113ull);
  Target u = t;
  u.dma_row_cycles = 2;
  EXPECT_NE(target_hash(u), target_hash(t));
}

TEST(Target, mismatched_mac_array_sides_are_rejected) {
  Target t = default_target();
  t.mac_out = 8;
  EXPECT_THROW(validate_target(t, "x"), TargetError);
}

TEST(Target, sram_not_a_whole_number_of_rows_is_rejected) {
  Target t = default_target();
  t.sram_bytes = 1000;
  try {
    validate_target(t, "x");
    FAIL();
  } catch (const TargetError& e) {
    EXPECT_NE(std::string(e.what()).find("'sram_bytes'"), std::string::npos) << e.what();
  }
}

TEST(Target, malformed_json_is_a_target_error) {
  EXPECT_THROW(parse_target("{\"name\": ", "broken.json"), TargetError);
  EXPECT_THROW(parse_target("[1, 2]", "array.json"), TargetError);
  EXPECT_THROW(load_target("/nonexistent/target.json"), TargetError);
}

}  // namespace
}  // namespace tessera::npu
