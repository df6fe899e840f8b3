// The simulator's bounds: a program's work is judged before it runs (SimOptions::max_work), and a
// run stops when SimOptions::should_stop asks it to. Both with errors naming the instruction.
#include <gtest/gtest.h>

#include <chrono>

#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

const Target t = default_target();

// `count` GEMMs of ext0 x ext1 steps each, then finish.
Kernel gemms(uint16_t ext0, uint16_t ext1, int count) {
  Assembler a(t, "gemms");
  a.buffer("x", {16}, DType::kInt8, BufferRole::kInput);
  for (int i = 0; i < count; ++i) a.gemm(false, ext0, ext1, at(0), at(0), at(0));
  return a.finish();
}

std::string simulation_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SimulationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SimulationError";
  return "";
}

TEST(SimLimits, a_65535_by_65535_gemm_is_refused_before_running_in_both_modes) {
  Kernel k = gemms(65535, 65535, 1);  // 1.1e12 MACs: over an hour of functional simulation
  auto t0 = std::chrono::steady_clock::now();
  std::string timing = simulation_error_of([&] { simulate_timing(k, t); });
  std::vector<uint8_t> ddr(k.ddr_bytes());
  std::string functional = simulation_error_of([&] { simulate_functional(k, t, ddr); });
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(timing, functional);
  EXPECT_NE(timing.find("instruction #0 (gemm ext=65535x65535"), std::string::npos) << timing;
  EXPECT_NE(timing.find("passes the simulation limit of 68719476736 element operations"),
            std::string::npos)
      << timing;
  EXPECT_NE(timing.find("the whole program needs 1099478073602"), std::string::npos) << timing;
}

TEST(SimLimits, the_limit_names_the_instruction_where_the_total_passes_it) {
  Kernel k = gemms(100, 10, 5);  // 1000 steps x 256 MACs + 1 per instruction
  SimOptions o;
  o.max_work = 3 * 256001 - 1;
  std::string m = simulation_error_of([&] { simulate_timing(k, t, o); });
  EXPECT_NE(m.find("instruction #2 (gemm"), std::string::npos) << m;
  o.max_work = 5 * 256001 + 1;  // + finish
  EXPECT_EQ(simulate_timing(k, t, o).macs, 5u * 256000u);
}

TEST(SimLimits, should_stop_stops_the_run_naming_the_next_instruction) {
  Kernel k = gemms(16, 1, 10);
  int asked = 0;
  SimOptions o;
  o.should_stop = [&] { return ++asked == 4; };
  std::vector<uint8_t> ddr(k.ddr_bytes());
  std::string m = simulation_error_of([&] { simulate_functional(k, t, ddr, o); });
  EXPECT_EQ(asked, 4);
  EXPECT_NE(m.find("kernel 'gemms': stopped before instruction #3 (gemm"), std::string::npos) << m;
  EXPECT_NE(m.find("the caller asked to stop"), std::string::npos) << m;
  o.should_stop = [] { return false; };
  EXPECT_EQ(simulate_timing(k, t, o).count(Opcode::kGemm), 10u);
}

}  // namespace
}  // namespace tessera::npu
