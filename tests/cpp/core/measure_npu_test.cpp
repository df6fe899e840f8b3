// The NPU templates' measurement function: results and error classes, kernel fingerprints and
// duplicates (with the tuning driver), cancellation, and tail tiles that cost what their size
// says.
#include "autotune/templates/measure_npu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "autotune/errors.h"
#include "autotune/grid_tuner.h"
#include "autotune/local_executor.h"
#include "autotune/templates/npu_dense.h"
#include "autotune/tune.h"
#include "codegen/npu/codegen_npu.h"
#include "compiler/lower.h"

namespace tessera {
namespace {

using autotune::Config;
using autotune::MeasureStatus;
using nlohmann::json;

json conv_args() {
  return {{"C", 32},     {"H", 14},  {"W", 14},
          {"K", 32},     {"R", 3},   {"S", 3},
          {"stride", 1}, {"pad", 1}, {"multiplier", 1 << 14},
          {"shift", 20}};
}

TEST(MeasureNpu, a_default_config_runs_and_reports_its_phases) {
  NpuTask task = make_npu_task("conv2d", conv_args(), npu::default_target());
  NpuMeasurement m = measure_npu_detailed(task.tuning, default_config(task), task.target);
  ASSERT_TRUE(m.result.ok()) << m.result.message;
  EXPECT_EQ(m.result.cycles, static_cast<int64_t>(m.stats.cycles));
  EXPECT_GT(m.insns, 0);
  EXPECT_EQ(m.result.fingerprint.size(), 16u);
  for (double us : {m.construct_us, m.lower_us, m.codegen_us, m.timing_us}) EXPECT_GT(us, 0);
  // The MeasureFn gives the same result.
  autotune::MeasureResult r =
      measure_npu({task.tuning, default_config(task), task.target}, autotune::MeasureContext());
  EXPECT_EQ(r, m.result);
}

TEST(MeasureNpu, a_config_that_overflows_is_a_compile_error_naming_the_buffers) {
  NpuTask task = make_npu_task("conv2d", conv_args(), npu::default_target());
  json big = task.tuning.space.to_json(default_config(task));
  big["tile_oh"] = 14;
  big["tile_ow"] = 14;
  big["tile_kb"] = 2;
  big["tile_cb"] = 2;
  json tiny = json::parse(npu::target_to_json(task.target));
  tiny["name"] = "npu-tiny";
  tiny["sram_bytes"] = 8192;
  npu::Target t = npu::parse_target(tiny.dump(), "tiny");
  NpuTask small = make_npu_task("conv2d", conv_args(), t);
  Config c = small.tuning.space.from_json(big);
  EXPECT_FALSE(small.tuning.space.is_valid(c));
  NpuMeasurement m = measure_npu_detailed(small.tuning, c, t);
  EXPECT_EQ(m.result.status, MeasureStatus::kCompileError);
  EXPECT_NE(m.result.message.find("SRAM overflow"), std::string::npos) << m.result.message;
  EXPECT_NE(m.result.message.find("(sram_bytes of npu-tiny)"), std::string::npos);
  EXPECT_EQ(m.timing_us, 0);
}

TEST(MeasureNpu, a_config_outside_the_space_or_a_foreign_task_is_an_invalid_config) {
  NpuTask task = make_npu_task("conv2d", conv_args(), npu::default_target());
  Config bad = default_config(task);
  bad.values[0] = 999;
  NpuMeasurement m = measure_npu_detailed(task.tuning, bad, task.target);
  EXPECT_EQ(m.result.status, MeasureStatus::kInvalidConfig);
  EXPECT_NE(m.result.message.find("knob 'tile_kb' has value index 999"), std::string::npos)
      << m.result.message;
  autotune::TuningTask foreign = task.tuning;
  foreign.key = {{"name", "conv2d"}};
  m = measure_npu_detailed(foreign, default_config(task), task.target);
  EXPECT_EQ(m.result.status, MeasureStatus::kInvalidConfig);
  EXPECT_NE(m.result.message.find("is not an NPU template task"), std::string::npos);
}

TEST(MeasureNpu, a_cancelled_measurement_stops_between_phases_as_a_timeout) {
  NpuTask task = make_npu_task("conv2d", conv_args(), npu::default_target());
  auto flag = std::make_shared<std::atomic<bool>>(true);
  autotune::MeasureContext ctx(flag, nullptr);
  NpuMeasurement m = measure_npu_detailed(task.tuning, default_config(task), task.target, ctx);
  EXPECT_EQ(m.result.status, MeasureStatus::kTimeout);
  EXPECT_GT(m.construct_us, 0);
  EXPECT_EQ(m.lower_us, 0);  // stopped after the first phase
}

// An add computed as one tile: the tile loops all have one iteration, so the tile-loop order
// (6 orders) does not change the kernel; tile sizes do.
NpuTask one_tile_add() {
  return make_npu_task("add", {{"C", 32}, {"H", 6}, {"W", 5}}, npu::default_target());
}

Config add_config_of(const NpuTask& task, int64_t tile_h, std::vector<std::string> order) {
  return task.tuning.space.from_json({{"tile_cb", 2},
                                      {"tile_h", tile_h},
                                      {"tile_w", 5},
                                      {"order", order},
                                      {"db_input", true},
                                      {"db_output", true}});
}

TEST(MeasureNpu, byte_identical_kernels_have_one_fingerprint_whatever_their_name) {
  NpuTask task = one_tile_add();
  Config a = add_config_of(task, 6, {"cb", "h", "w"});
  Config b = add_config_of(task, 6, {"w", "h", "cb"});
  Config c = add_config_of(task, 3, {"cb", "h", "w"});
  ASSERT_NE(a, b);
  NpuMeasurement ma = measure_npu_detailed(task.tuning, a, task.target);
  NpuMeasurement mb = measure_npu_detailed(task.tuning, b, task.target);
  NpuMeasurement mc = measure_npu_detailed(task.tuning, c, task.target);
  ASSERT_TRUE(ma.result.ok() && mb.result.ok() && mc.result.ok());
  EXPECT_EQ(ma.result.fingerprint, mb.result.fingerprint);
  EXPECT_EQ(ma.result.cycles, mb.result.cycles);
  EXPECT_NE(ma.result.fingerprint, mc.result.fingerprint);
  // The fingerprint ignores the kernel's name, and nothing else.
  NpuOp op = build_npu_op(task, a);
  npu::Kernel k1 = codegen_npu(lower(*op.schedule, op.args, "one", task.target), task.target);
  npu::Kernel k2 = codegen_npu(lower(*op.schedule, op.args, "two", task.target), task.target);
  EXPECT_NE(k1.name, k2.name);
  EXPECT_EQ(kernel_fingerprint(k1), kernel_fingerprint(k2));
  EXPECT_EQ(kernel_fingerprint(k1), ma.result.fingerprint);
  npu::Kernel k3 = k1;
  k3.program.front().dma.rows += 1;
  EXPECT_NE(kernel_fingerprint(k3), kernel_fingerprint(k1));
}

TEST(MeasureNpu, a_kernel_the_context_knows_is_not_simulated_again) {
  NpuTask task = one_tile_add();
  Config a = add_config_of(task, 6, {"cb", "h", "w"});
  Config b = add_config_of(task, 6, {"h", "cb", "w"});
  NpuMeasurement first = measure_npu_detailed(task.tuning, a, task.target);
  auto cache = std::make_shared<autotune::FingerprintCache>();
  cache->resolve(0, first.result);
  autotune::MeasureContext ctx(nullptr, cache);
  NpuMeasurement again = measure_npu_detailed(task.tuning, b, task.target, ctx);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.timing_us, 0);
  EXPECT_EQ(again.result.cycles, first.result.cycles);
  EXPECT_EQ(again.result.fingerprint, first.result.fingerprint);
}

TEST(MeasureNpu, the_tuning_driver_records_duplicates_of_earlier_trials) {
  // A grid search over the whole space of an add with one non-trivial tile loop (W = 2): the
  // order of the other loops (one iteration each) does not change the kernel, so most configs
  // are recorded as duplicates of the first trial that had their kernel.
  NpuTask task = make_npu_task("add", {{"C", 16}, {"H", 1}, {"W", 2}}, npu::default_target());
  ASSERT_EQ(task.tuning.space.size(), 48u);
  autotune::GridTuner tuner(task.tuning, 1);
  autotune::LocalExecutor executor(measure_npu, {2, 0, 1.0});
  autotune::TuneOptions o;
  o.trials = 48;
  o.batch_size = 12;
  o.warn = [](const std::string&) {};
  autotune::TuneReport r = autotune::tune(task.tuning, task.target, tuner, executor, o);
  ASSERT_EQ(r.trials.size(), 48u);
  std::map<std::string, int64_t> first;
  int duplicates = 0;
  for (const autotune::Trial& t : r.trials) {
    ASSERT_TRUE(t.result.ok()) << t.result.message;
    auto [it, inserted] = first.emplace(t.result.fingerprint, t.index);
    if (inserted) {
      EXPECT_FALSE(t.result.duplicate_of.has_value());
    } else {
      ++duplicates;
      EXPECT_EQ(t.result.duplicate_of, it->second);
    }
  }
  EXPECT_LE(first.size(), 8u);  // tile_w x db_input x db_output at most
  EXPECT_EQ(duplicates, 48 - static_cast<int>(first.size()));
}

TEST(MeasureNpu, a_dense_tile_that_does_not_divide_m_costs_what_its_size_says) {
  // M = 1000 rows (conv1 of ResNet-18 in small): every tile_m that leaves a tail is within 1.2x
  // of the best tile that divides M, for the same other knobs.
  npu::Target t = npu::default_target();
  json args = {{"M", 1000}, {"K", 147}, {"N", 64}, {"multiplier", 1 << 14}, {"shift", 22}};
  NpuTask task = make_npu_task("dense", args, t);
  NpuDenseParams p = dense_params(task.tuning.space, default_config(task));
  auto cycles = [&](int64_t tile_m) {
    p.tile_m = tile_m;
    Config c = dense_config(task.tuning.space, p);
    if (!task.tuning.space.is_valid(c)) return std::numeric_limits<int64_t>::max();
    NpuMeasurement m = measure_npu_detailed(task.tuning, c, t);
    EXPECT_TRUE(m.result.ok()) << m.result.message;
    return m.result.cycles;
  };
  int64_t best_divisor = std::numeric_limits<int64_t>::max();
  for (int64_t d : {40, 50, 100, 125, 200, 250}) best_divisor = std::min(best_divisor, cycles(d));
  ASSERT_LT(best_divisor, std::numeric_limits<int64_t>::max());
  for (int64_t tail : {48, 64, 96, 128, 160, 192}) {
    int64_t c = cycles(tail);
    if (c == std::numeric_limits<int64_t>::max()) continue;  // does not fit
    EXPECT_LE(c, best_divisor * 6 / 5) << "tile_m " << tail;
  }
}

}  // namespace
}  // namespace tessera
