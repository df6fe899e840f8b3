#include "autotune/local_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "autotune/errors.h"
#include "autotune/run_measurement.h"
#include "synthetic_task.h"

namespace tessera::autotune {
namespace {

using std::chrono::milliseconds;

// A one-knob task: config value v measures as 1000 + v cycles.
TuningTask counting_task(uint32_t n) {
  TuningTask t;
  t.key = {{"template", "counting"}};
  std::vector<std::string> alts;
  for (uint32_t i = 0; i < n; ++i) alts.push_back("v" + std::to_string(i));
  t.space.add(Knob::choice("v", alts));
  return t;
}

std::vector<Config> all_configs(const TuningTask& t) {
  std::vector<Config> out;
  for (uint64_t i = 0; i < t.space.size(); ++i) out.push_back(t.space.at(i));
  return out;
}

std::vector<MeasureResult> run(LocalExecutor& ex, const TuningTask& task,
                               const std::vector<Config>& configs,
                               std::shared_ptr<const FingerprintCache> known = nullptr) {
  npu::Target target = npu::default_target();
  MeasureBatch batch{task, target, configs, {}, std::move(known)};
  for (size_t i = 0; i < configs.size(); ++i) batch.trials.push_back(static_cast<int64_t>(i));
  return ex.measure(batch);
}

TEST(LocalExecutor, results_come_back_in_batch_order_whatever_the_completion_order) {
  TuningTask task = counting_task(8);
  std::vector<uint32_t> completion;
  std::mutex m;
  LocalExecutorOptions o;
  o.workers = 2;
  LocalExecutor ex(
      [&](const MeasureInput& in, const MeasureContext&) {
        // Earlier configs take longer, so they finish after later ones.
        uint32_t v = in.config.values[0];
        std::this_thread::sleep_for(milliseconds(2 * (8 - v)));
        std::lock_guard<std::mutex> lock(m);
        completion.push_back(v);
        return MeasureResult::success(1000 + v);
      },
      o);
  std::vector<MeasureResult> r = run(ex, task, all_configs(task));
  ASSERT_EQ(r.size(), 8u);
  for (uint32_t v = 0; v < 8; ++v) EXPECT_EQ(r[v].cycles, 1000 + v);
  EXPECT_NE(completion, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(LocalExecutor, two_workers_measure_concurrently) {
  TuningTask task = counting_task(2);
  std::atomic<int> running{0}, peak{0};
  LocalExecutorOptions o;
  o.workers = 2;
  LocalExecutor ex(
      [&](const MeasureInput& in, const MeasureContext&) {
        int now = ++running;
        int p = peak.load();
        while (now > p && !peak.compare_exchange_weak(p, now)) {
        }
        std::this_thread::sleep_for(milliseconds(30));
        --running;
        return MeasureResult::success(1);
      },
      o);
  run(ex, task, all_configs(task));
  EXPECT_EQ(peak.load(), 2);
}

TEST(LocalExecutor, thrown_errors_are_classified_into_results) {
  TuningTask task = counting_task(7);
  LocalExecutor ex([](const MeasureInput& in, const MeasureContext&) -> MeasureResult {
    switch (in.config.values[0]) {
      case 0:
        throw ScheduleError("split: factor 3 does not divide 10");
      case 1:
        throw LowerError("SRAM overflow: 300000 bytes > 262144");
      case 2:
        throw SimulationError("instruction #4: SRAM read out of range");
      case 3:
        throw InternalError("check 'x' failed");
      case 4:
        throw std::out_of_range("vector::at");
      case 5: {
        MeasureResult broken;  // ok with no cycles: breaks the invariant
        broken.status = MeasureStatus::kOk;
        return broken;
      }
      default:
        return MeasureResult::success(77, "k6");
    }
  });
  std::vector<MeasureResult> r = run(ex, task, all_configs(task));
  using S = MeasureStatus;
  EXPECT_EQ(r[0].status, S::kInvalidConfig);
  EXPECT_EQ(r[0].message, "split: factor 3 does not divide 10");
  EXPECT_EQ(r[1].status, S::kCompileError);
  EXPECT_EQ(r[1].message, "SRAM overflow: 300000 bytes > 262144");
  EXPECT_EQ(r[2].status, S::kSimulationError);
  EXPECT_EQ(r[3].status, S::kInternalError);
  EXPECT_EQ(r[3].message, "check 'x' failed");
  EXPECT_EQ(r[4].status, S::kInternalError);
  EXPECT_EQ(r[4].message, "unexpected exception: vector::at");
  EXPECT_EQ(r[5].status, S::kInternalError);
  EXPECT_NE(r[5].message.find("ok with 0 cycles"), std::string::npos) << r[5].message;
  EXPECT_EQ(r[6].status, S::kOk);
  EXPECT_EQ(r[6].cycles, 77);
  EXPECT_EQ(r[6].fingerprint, "k6");
}

TEST(LocalExecutor, a_measurement_that_polls_is_cancelled_at_its_limit_and_recorded_as_timeout) {
  TuningTask task = counting_task(4);
  LocalExecutorOptions o;
  o.workers = 1;
  o.timeout_seconds = 0.05;
  LocalExecutor ex(
      [](const MeasureInput& in, const MeasureContext& ctx) {
        if (in.config.values[0] == 1)
          for (;;) {  // a measurement that would run forever but polls its flag
            ctx.throw_if_cancelled();
            std::this_thread::sleep_for(milliseconds(1));
          }
        return MeasureResult::success(10 + in.config.values[0]);
      },
      o);
  auto start = std::chrono::steady_clock::now();
  std::vector<MeasureResult> r = run(ex, task, all_configs(task));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r[0].cycles, 10);
  EXPECT_EQ(r[1].status, MeasureStatus::kTimeout);
  EXPECT_EQ(r[1].message, "measurement exceeded its time limit of 0.05 s");
  EXPECT_EQ(r[2].cycles, 12);  // the batch went on after the timeout
  EXPECT_EQ(r[3].cycles, 13);
  EXPECT_LT(secs, 0.5);
  EXPECT_EQ(ex.abandoned_count(), 0);
}

TEST(LocalExecutor, a_result_returned_after_the_limit_is_a_timeout) {
  TuningTask task = counting_task(1);
  LocalExecutorOptions o;
  o.timeout_seconds = 0.02;
  LocalExecutor ex(
      [](const MeasureInput&, const MeasureContext&) {
        std::this_thread::sleep_for(milliseconds(60));  // never polls, finishes within the grace
        return MeasureResult::success(5);
      },
      o);
  EXPECT_EQ(run(ex, task, all_configs(task))[0].status, MeasureStatus::kTimeout);
}

// The abandoned measurement is the batch's last one running: nothing else will wake the batch.
TEST(LocalExecutor, a_batch_whose_last_measurement_is_abandoned_returns) {
  TuningTask task = counting_task(3);
  auto release = std::make_shared<std::atomic<bool>>(false);
  LocalExecutorOptions o;
  o.workers = 1;
  o.timeout_seconds = 0.03;
  o.abandon_grace_seconds = 0.03;
  {
    LocalExecutor ex(
        [release](const MeasureInput&, const MeasureContext&) {
          while (!release->load()) std::this_thread::sleep_for(milliseconds(1));  // hung
          return MeasureResult::success(100);
        },
        o);
    std::vector<MeasureResult> r = run(ex, task, {task.space.at(0)});
    EXPECT_EQ(r[0].status, MeasureStatus::kTimeout);
    EXPECT_EQ(ex.abandoned_count(), 1);
  }
  release->store(true);
  std::this_thread::sleep_for(milliseconds(20));
}

TEST(LocalExecutor, a_measurement_that_never_polls_is_abandoned_and_the_pool_goes_on) {
  TuningTask task = counting_task(3);
  auto release = std::make_shared<std::atomic<bool>>(false);
  LocalExecutorOptions o;
  o.workers = 1;
  o.timeout_seconds = 0.03;
  o.abandon_grace_seconds = 0.03;
  {
    LocalExecutor ex(
        [release](const MeasureInput& in, const MeasureContext&) {
          if (in.config.values[0] == 0)
            while (!release->load()) std::this_thread::sleep_for(milliseconds(1));  // hung
          return MeasureResult::success(100 + in.config.values[0]);
        },
        o);
    std::vector<MeasureResult> r = run(ex, task, all_configs(task));
    EXPECT_EQ(r[0].status, MeasureStatus::kTimeout);
    EXPECT_NE(r[0].message.find("did not stop within 0.03 s of its cancellation; it was abandoned"),
              std::string::npos)
        << r[0].message;
    // The single worker was stuck: a replacement measured the rest of the batch.
    EXPECT_EQ(r[1].cycles, 101);
    EXPECT_EQ(r[2].cycles, 102);
    EXPECT_EQ(ex.abandoned_count(), 1);
    // And the next batch too.
    EXPECT_EQ(run(ex, task, {task.space.at(2)})[0].cycles, 102);
  }
  release->store(true);  // lets the detached thread finish (it owns copies of its inputs)
  std::this_thread::sleep_for(milliseconds(20));
}

TEST(LocalExecutor, a_measurement_sees_results_of_identical_kernels_measured_before) {
  TuningTask task = counting_task(2);
  auto known = std::make_shared<FingerprintCache>();
  known->resolve(0, MeasureResult::success(555, "kernel-A"));
  std::atomic<int> simulated{0};
  LocalExecutor ex([&](const MeasureInput& in, const MeasureContext& ctx) {
    std::string fp = in.config.values[0] == 0 ? "kernel-A" : "kernel-B";
    if (auto r = ctx.known_result(fp)) return *r;
    ++simulated;
    return MeasureResult::success(999, fp);
  });
  std::vector<MeasureResult> r = run(ex, task, all_configs(task), known);
  EXPECT_EQ(r[0].cycles, 555);
  EXPECT_EQ(r[1].cycles, 999);
  EXPECT_EQ(simulated.load(), 1);
}

TEST(FingerprintCache, a_duplicate_takes_the_first_trials_result_but_internal_errors_stay) {
  FingerprintCache c;
  EXPECT_EQ(c.resolve(3, MeasureResult::success(40, "k")).duplicate_of, std::nullopt);
  MeasureResult dup = c.resolve(7, MeasureResult::success(41, "k"));
  EXPECT_EQ(dup.cycles, 40);
  EXPECT_EQ(dup.duplicate_of, 3);
  MeasureResult bug = c.resolve(8, MeasureResult::failure(MeasureStatus::kInternalError, "x", "k"));
  EXPECT_EQ(bug.status, MeasureStatus::kInternalError);
  // Results that are not a function of the kernel alone are not remembered.
  c.resolve(9, MeasureResult::failure(MeasureStatus::kTimeout, "slow", "t"));
  EXPECT_EQ(c.resolve(10, MeasureResult::success(5, "t")).duplicate_of, std::nullopt);
  // Resolving the first trial again (a resumed search) does not mark it as its own duplicate.
  EXPECT_EQ(c.resolve(3, MeasureResult::success(40, "k")).duplicate_of, std::nullopt);
}

TEST(LocalExecutor, bad_options_are_rejected) {
  LocalExecutorOptions o;
  o.workers = 0;
  auto fn = [](const MeasureInput&, const MeasureContext&) { return MeasureResult::success(1); };
  EXPECT_THROW(LocalExecutor(fn, o), UserError);
  o.workers = 1;
  o.timeout_seconds = -1;
  EXPECT_THROW(LocalExecutor(fn, o), UserError);
}

TEST(RunMeasurement, a_plain_call_without_an_executor_classifies_the_same_way) {
  TuningTask task = testing::synthetic_task();
  npu::Target target = npu::default_target();
  // fold cols with a tile_w of 16 leaves a tail: the synthetic template throws a ScheduleError.
  Config c = task.space.from_text(
      R"({"db_input":false,"db_weight":false,"fold":"cols","order":["h","w","k","c"],)"
      R"("tile_c":16,"tile_h":2,"tile_k":16,"tile_w":16,"unroll":"1"})");
  MeasureResult r =
      run_measurement(testing::measure_synthetic, MeasureInput{task, c, target}, MeasureContext());
  EXPECT_EQ(r.status, MeasureStatus::kInvalidConfig);
  EXPECT_EQ(r.message, "fold cols: tile_w 16 leaves a tail of 8 columns");
}

}  // namespace
}  // namespace tessera::autotune

namespace tessera::autotune {
namespace {

// Counts measure() calls; measure_many is the base class's default.
class CountingExecutor : public Executor {
 public:
  int calls = 0;
  std::vector<MeasureResult> measure(const MeasureBatch& batch) override {
    ++calls;
    std::vector<MeasureResult> out;
    for (const Config& c : batch.configs) out.push_back(MeasureResult::success(2000 + c.values[0]));
    return out;
  }
};

TEST(LocalExecutor, several_batches_in_one_call_come_back_per_batch_as_each_alone) {
  TuningTask small = counting_task(5), large = counting_task(9);
  npu::Target target = npu::default_target();
  std::vector<MeasureBatch> batches;
  batches.push_back(MeasureBatch{large, target, all_configs(large), {}, nullptr});
  batches.push_back(MeasureBatch{small, target, {}, {}, nullptr});  // an empty batch
  batches.push_back(MeasureBatch{small, target, all_configs(small), {}, nullptr});
  LocalExecutorOptions o;
  o.workers = 2;
  std::atomic<int> running{0}, most{0};
  LocalExecutor ex(
      [&](const MeasureInput& in, const MeasureContext&) {
        int now = ++running;
        for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
        }
        // The first batch's configs last longest: a worker that finishes its share goes on
        // with the other batches' configs instead of waiting for the first batch to end.
        std::this_thread::sleep_for(milliseconds(in.task.space.size() == 9 ? 3 : 1));
        --running;
        return MeasureResult::success(1000 * in.task.space.size() + in.config.values[0]);
      },
      o);
  std::vector<std::vector<MeasureResult>> got = ex.measure_many(batches);
  ASSERT_EQ(got.size(), 3u);
  ASSERT_EQ(got[0].size(), 9u);
  EXPECT_TRUE(got[1].empty());
  ASSERT_EQ(got[2].size(), 5u);
  for (uint32_t v = 0; v < 9; ++v) EXPECT_EQ(got[0][v].cycles, 9000 + v);
  for (uint32_t v = 0; v < 5; ++v) EXPECT_EQ(got[2][v].cycles, 5000 + v);
  EXPECT_EQ(most.load(), 2);
  EXPECT_TRUE(ex.measure_many({}).empty());

  // The default of an executor without measure_many: measure() per batch, in order.
  CountingExecutor counting;
  got = counting.measure_many(batches);
  EXPECT_EQ(counting.calls, 3);
  ASSERT_EQ(got.size(), 3u);
  for (uint32_t v = 0; v < 9; ++v) EXPECT_EQ(got[0][v].cycles, 2000 + v);
  EXPECT_TRUE(got[1].empty());
}

}  // namespace
}  // namespace tessera::autotune
