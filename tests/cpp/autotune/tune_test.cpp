// The tuning driver on the synthetic task: reproducible logs, resume after a kill at any byte,
// early stopping, duplicates, timeouts and internal errors recorded while the job goes on.
#include "autotune/tune.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "autotune/errors.h"
#include "autotune/local_executor.h"
#include "autotune/make_tuner.h"
#include "autotune/read_tuning_log.h"
#include "log_test_util.h"
#include "synthetic_task.h"

namespace tessera::autotune {
namespace {

using testing::lines_without_timestamps;
using testing::read_file;
using testing::temp_path;
using testing::write_file;

struct Job {
  TunerKind tuner = TunerKind::kXgb;
  uint64_t seed = 1;
  int64_t trials = 96;
  int64_t batch = 16;
  int workers = 1;
  double timeout = 0;
  MeasureFn measure = testing::measure_synthetic;
  TuneOptions options;  // trials, batch_size and log_path are set from the fields above
};

TuneReport run(const Job& job, const std::string& log) {
  TuningTask task = testing::synthetic_task();
  auto tuner = make_tuner(job.tuner, task, job.seed);
  LocalExecutorOptions eo;
  eo.workers = job.workers;
  eo.timeout_seconds = job.timeout;
  LocalExecutor executor(job.measure, eo);
  TuneOptions o = job.options;
  o.trials = job.trials;
  o.batch_size = job.batch;
  o.log_path = log;
  return tune(task, npu::default_target(), *tuner, executor, o);
}

// The synthetic measurement, taking a few milliseconds that vary by config, so that two workers
// complete out of order.
MeasureResult jittery(const MeasureInput& in, const MeasureContext& ctx) {
  std::this_thread::sleep_for(
      std::chrono::microseconds(100 * (in.task.space.index_of(in.config) % 7)));
  return testing::measure_synthetic(in, ctx);
}

TEST(Tune, the_log_has_every_trial_once_in_order_with_its_result) {
  std::string log = temp_path("log.jsonl");
  TuneReport r = run(Job{}, log);
  TuningLog read = read_tuning_log(log);
  ASSERT_EQ(read.records.size(), 96u);
  TuningTask task = testing::synthetic_task();
  for (size_t i = 0; i < read.records.size(); ++i) {
    const LogRecord& rec = read.records[i];
    EXPECT_EQ(rec.trial, static_cast<int64_t>(i));
    EXPECT_EQ(rec.tuner, "xgb");
    EXPECT_EQ(rec.seed, 1u);
    EXPECT_EQ(rec.task, task.key);
    Config c = task.space.from_json(rec.config);
    EXPECT_TRUE(task.space.is_valid(c));
    // The result is the analytic cost of the config (computed here without the driver).
    auto cycles = testing::synthetic_cycles(task.space, c);
    if (cycles)
      EXPECT_EQ(rec.result.cycles, *cycles);
    else
      EXPECT_FALSE(rec.result.ok());
    EXPECT_EQ(rec.result, r.trials[i].result);
  }
  EXPECT_EQ(r.measured, 96);
  EXPECT_EQ(r.resumed, 0);
}

TEST(Tune, the_same_seed_gives_the_same_log_and_another_seed_another) {
  std::string a = temp_path("a.jsonl"), b = temp_path("b.jsonl"), c = temp_path("c.jsonl");
  run(Job{}, a);
  run(Job{}, b);
  Job other;
  other.seed = 2;
  run(other, c);
  EXPECT_EQ(lines_without_timestamps(a), lines_without_timestamps(b));
  EXPECT_NE(lines_without_timestamps(a), lines_without_timestamps(c));
}

TEST(Tune, one_and_two_workers_give_identical_logs) {
  for (TunerKind kind : {TunerKind::kXgb, TunerKind::kGenetic}) {
    std::string one = temp_path("one.jsonl"), two = temp_path("two.jsonl");
    Job job;
    job.tuner = kind;
    job.measure = jittery;
    job.trials = 64;
    run(job, one);
    job.workers = 2;
    run(job, two);
    EXPECT_EQ(lines_without_timestamps(one), lines_without_timestamps(two))
        << tuner_kind_name(kind);
  }
}

TEST(Tune, a_job_cut_at_any_byte_resumes_to_the_uninterrupted_log) {
  std::string full = temp_path("full.jsonl");
  Job job;
  job.trials = 80;
  run(job, full);
  const std::string bytes = read_file(full);
  const auto expected = lines_without_timestamps(full);
  Rng rng(2024);
  for (int kill = 0; kill < 5; ++kill) {
    // A kill -9 leaves the log cut at an arbitrary byte: inside a line, at a line boundary, or
    // before anything was written.
    const size_t cut = kill == 0 ? 0 : rng.below(bytes.size());
    std::string log = temp_path("cut.jsonl");
    write_file(log, bytes.substr(0, cut));
    std::vector<std::string> warnings;
    Job again = job;
    again.options.warn = [&](const std::string& w) { warnings.push_back(w); };
    TuneReport r = run(again, log);
    EXPECT_EQ(lines_without_timestamps(log), expected) << "cut at byte " << cut;
    const int64_t complete = std::count(bytes.begin(), bytes.begin() + cut, '\n');
    EXPECT_EQ(r.resumed, complete);
    EXPECT_EQ(r.measured, 80 - complete);
    const bool mid_line = cut > 0 && bytes[cut - 1] != '\n';
    ASSERT_EQ(warnings.size(), mid_line ? 1u : 0u) << "cut at byte " << cut;
    if (mid_line) {
      EXPECT_NE(warnings[0].find("tuning log " + log + ": its last line was cut short"),
                std::string::npos)
          << warnings[0];
    }
  }
}

TEST(Tune, a_finished_search_rerun_measures_nothing_and_a_larger_budget_continues_it) {
  std::string log = temp_path("grow.jsonl"), direct = temp_path("direct.jsonl");
  Job job;
  job.trials = 48;
  run(job, log);
  TuneReport again = run(job, log);
  EXPECT_EQ(again.measured, 0);
  EXPECT_EQ(again.resumed, 48);
  job.trials = 96;
  TuneReport more = run(job, log);
  EXPECT_EQ(more.resumed, 48);
  EXPECT_EQ(more.measured, 48);
  run(job, direct);
  EXPECT_EQ(lines_without_timestamps(log), lines_without_timestamps(direct));
}

TEST(Tune, resuming_with_other_arguments_is_refused_naming_the_line) {
  std::string log = temp_path("args.jsonl");
  run(Job{}, log);
  Job other;
  other.batch = 8;  // the xgb search proposes another second batch
  try {
    run(other, log);
    FAIL() << "no error";
  } catch (const TuningLogError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("tuning log " + log + " line 9: trial 8 of task"), std::string::npos) << m;
    EXPECT_NE(m.find("the log was written by a search with other arguments"), std::string::npos);
  }
}

TEST(Tune, a_log_of_another_target_is_refused) {
  std::string log = temp_path("target.jsonl");
  run(Job{}, log);
  TuningTask task = testing::synthetic_task();
  auto tuner = make_tuner(TunerKind::kRandom, task, 1);
  LocalExecutor executor(testing::measure_synthetic);
  npu::Target big = npu::default_target();
  big.name = "npu-big";
  big.sram_bytes = 1 << 20;
  TuneOptions o;
  o.log_path = log;
  try {
    tune(task, big, *tuner, executor, o);
    FAIL();
  } catch (const TuningLogError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("a record for target npu-v1 (hash a8a47a83b809a113); this job's target is "
                     "npu-big (hash " +
                     TargetId::of(big).hash + ")"),
              std::string::npos)
        << m;
  }
}

TEST(Tune, searches_of_other_tuners_and_seeds_share_a_log_without_mixing) {
  std::string log = temp_path("shared.jsonl"), alone = temp_path("alone.jsonl");
  Job ga;
  ga.tuner = TunerKind::kGenetic;
  ga.trials = 32;
  run(ga, log);
  Job xgb;
  xgb.trials = 48;
  TuneReport r = run(xgb, log);
  EXPECT_EQ(r.resumed, 0);
  run(xgb, alone);
  auto shared = lines_without_timestamps(log);
  ASSERT_EQ(shared.size(), 80u);
  EXPECT_EQ(std::vector<std::string>(shared.begin() + 32, shared.end()),
            lines_without_timestamps(alone));
}

TEST(Tune, early_stopping_stops_at_the_first_batch_without_improvement_for_that_many_trials) {
  Job job;
  job.tuner = TunerKind::kGrid;  // the grid improves rarely: early stopping has to act
  job.trials = 2000;
  job.batch = 10;
  job.options.early_stopping = 40;
  TuneReport r = run(job, "");
  ASSERT_TRUE(r.early_stopped);
  // Recomputed from the trials: the last strict improvement, and the first batch end at least
  // 40 trials after it.
  int64_t best = 0, improved_at = 0, stop = -1;
  for (const Trial& t : r.trials) {
    if (t.result.ok() && (best == 0 || t.result.cycles < best)) {
      best = t.result.cycles;
      improved_at = t.index + 1;
    }
    int64_t done = t.index + 1;
    if (done % 10 == 0 && done - improved_at >= 40) {
      stop = done;
      break;
    }
  }
  EXPECT_EQ(static_cast<int64_t>(r.trials.size()), stop);
  EXPECT_LT(stop, 2000);
}

TEST(Tune, a_space_with_fewer_valid_configs_than_trials_ends_exhausted) {
  TuningTask task;
  task.key = {{"template", "tiny"}};
  task.space.add(Knob::split("t", 16, divisors(16)));  // 1 2 4 8 16
  task.space.set_validity_check(
      [](const ConfigSpace& s, const Config& c) { return s.split(c, "t") != 4; });
  auto tuner = make_tuner(TunerKind::kXgb, task, 3);
  LocalExecutor executor([](const MeasureInput& in, const MeasureContext&) {
    return MeasureResult::success(100 + in.task.space.split(in.config, "t"));
  });
  TuneOptions o;
  o.trials = 50;
  o.batch_size = 3;
  TuneReport r = tune(task, npu::default_target(), *tuner, executor, o);
  EXPECT_TRUE(r.exhausted);
  EXPECT_EQ(r.trials.size(), 4u);
  EXPECT_EQ(r.best->result.cycles, 101);
}

TEST(Tune, identical_kernels_are_recorded_as_duplicates_and_not_measured_again) {
  // Pretend db_weight does not change the kernel: the grid's neighbours 2k, 2k+1 are identical.
  std::atomic<int> simulated{0};
  MeasureFn fn = [&](const MeasureInput& in, const MeasureContext& ctx) {
    nlohmann::json j = in.task.space.to_json(in.config);
    j.erase("db_weight");
    if (auto known = ctx.known_result(j.dump())) return *known;
    ++simulated;
    MeasureResult r = testing::measure_synthetic(in, ctx);
    r.fingerprint = j.dump();
    return r;
  };
  std::string one = temp_path("batch1.jsonl"), many = temp_path("batch16.jsonl");
  Job job;
  job.tuner = TunerKind::kGrid;
  job.trials = 32;
  job.batch = 1;
  job.measure = fn;
  TuneReport r = run(job, one);
  EXPECT_EQ(simulated.load(), 16);  // every second config reused the first one's result
  for (int64_t k = 0; k < 16; ++k) {
    const Trial& first = r.trials[2 * k];
    const Trial& dup = r.trials[2 * k + 1];
    EXPECT_EQ(first.result.duplicate_of, std::nullopt);
    if (!first.result.ok() && first.result.status != MeasureStatus::kSimulationError) continue;
    EXPECT_EQ(dup.result.duplicate_of, 2 * k);
    EXPECT_EQ(dup.result.cycles, first.result.cycles);
  }
  // In batches of 16 on two workers the pairs are measured together, both of them; the log is
  // the same all the same.
  simulated = 0;
  job.batch = 16;
  job.workers = 2;
  run(job, many);
  EXPECT_EQ(simulated.load(), 32);
  EXPECT_EQ(lines_without_timestamps(one), lines_without_timestamps(many));
}

TEST(Tune, a_measurement_that_hangs_is_recorded_as_a_timeout_and_the_job_goes_on) {
  TuningTask task = testing::synthetic_task();
  std::string log = temp_path("timeout.jsonl");
  Job job;
  job.tuner = TunerKind::kGrid;
  job.trials = 12;
  job.batch = 4;
  job.timeout = 0.05;
  job.measure = [](const MeasureInput& in, const MeasureContext& ctx) {
    if (in.task.space.index_of(in.config) == 5)
      for (;;) {
        ctx.throw_if_cancelled();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    return testing::measure_synthetic(in, ctx);
  };
  TuneReport r = run(job, log);
  ASSERT_EQ(r.trials.size(), 12u);
  EXPECT_EQ(r.trials[5].result.status, MeasureStatus::kTimeout);
  EXPECT_EQ(r.by_status[static_cast<size_t>(MeasureStatus::kTimeout)], 1);
  TuningLog read = read_tuning_log(log);
  ASSERT_EQ(read.records.size(), 12u);
  EXPECT_EQ(read.records[5].result.status, MeasureStatus::kTimeout);
  EXPECT_EQ(read.records[5].result.message, "measurement exceeded its time limit of 0.05 s");
  for (int i : {6, 7, 11}) EXPECT_NE(read.records[i].result.status, MeasureStatus::kTimeout);
}

TEST(Tune, an_internal_error_is_recorded_surfaced_and_the_job_goes_on) {
  std::string log = temp_path("bug.jsonl");
  std::vector<Trial> surfaced;
  Job job;
  job.tuner = TunerKind::kGrid;
  job.trials = 8;
  job.batch = 4;
  job.measure = [](const MeasureInput& in, const MeasureContext& ctx) {
    TESSERA_ICHECK(in.task.space.index_of(in.config) != 2, "synthetic bug");
    return testing::measure_synthetic(in, ctx);
  };
  job.options.on_internal_error = [&](const Trial& t) { surfaced.push_back(t); };
  TuneReport r = run(job, log);
  ASSERT_EQ(surfaced.size(), 1u);
  EXPECT_EQ(surfaced[0].index, 2);
  EXPECT_NE(surfaced[0].result.message.find("check 'in.task.space.index_of(in.config) != 2' "
                                            "failed. synthetic bug"),
            std::string::npos)
      << surfaced[0].result.message;
  ASSERT_EQ(r.internal_errors.size(), 1u);
  TuningLog read = read_tuning_log(log);
  ASSERT_EQ(read.records.size(), 8u);
  EXPECT_EQ(read.records[2].result.status, MeasureStatus::kInternalError);
  EXPECT_EQ(read.records[2].result.message, surfaced[0].result.message);
  EXPECT_TRUE(read.records[3].result.ok() ||
              read.records[3].result.status != MeasureStatus::kInternalError);
  // A resumed job does not report it again, but still counts it.
  surfaced.clear();
  TuneReport again = run(job, log);
  EXPECT_TRUE(surfaced.empty());
  EXPECT_EQ(again.internal_errors.size(), 1u);
}

TEST(Tune, the_default_report_of_an_internal_error_is_loud_on_stderr) {
  Job job;
  job.tuner = TunerKind::kGrid;
  job.trials = 1;
  job.batch = 1;
  job.measure = [](const MeasureInput&, const MeasureContext&) -> MeasureResult {
    throw InternalError("the simulator's event queue is empty");
  };
  ::testing::internal::CaptureStderr();
  run(job, "");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tessera: INTERNAL ERROR (a bug in tessera) measuring trial 0 of task "
                     "{\"args\":{\"C\":64,\"H\":56,\"K\":128,\"R\":3,\"W\":56},\"template\":"
                     "\"synthetic_conv2d\"} (tuner grid, seed 1), config {"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(": the simulator's event queue is empty"), std::string::npos) << err;
}

TEST(Tune, a_corrupt_line_is_skipped_and_its_trial_measured_again) {
  std::string log = temp_path("corrupt.jsonl"), full = temp_path("full.jsonl");
  Job job;
  job.tuner = TunerKind::kRandom;
  job.trials = 20;
  job.batch = 5;
  run(job, full);
  std::string bytes = read_file(full);
  // Overwrite the 4th line (trial 3) with garbage of its length.
  size_t start = 0;
  for (int i = 0; i < 3; ++i) start = bytes.find('\n', start) + 1;
  size_t end = bytes.find('\n', start);
  bytes.replace(start, end - start, std::string(end - start, '#'));
  write_file(log, bytes);
  std::vector<std::string> warnings;
  job.options.warn = [&](const std::string& w) { warnings.push_back(w); };
  TuneReport r = run(job, log);
  EXPECT_EQ(r.measured, 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], log + ":4: not valid JSON; line skipped");
  // Every trial exactly once among the readable records.
  TuningLog read = read_tuning_log(log);
  std::multiset<int64_t> trials;
  for (const auto& rec : read.records) trials.insert(rec.trial);
  for (int64_t t = 0; t < 20; ++t) EXPECT_EQ(trials.count(t), 1u) << t;
  EXPECT_EQ(read.records.back().trial, 3);
}

}  // namespace
}  // namespace tessera::autotune

namespace tessera::autotune {
namespace {

// Two searches stepped together, their batches measured in one call per round, write each
// search's records as tune() alone does (the records of one search, in order, are the same).
TEST(TuneSearch, searches_stepped_together_record_what_each_records_alone) {
  TuningTask task = testing::synthetic_task();
  npu::Target target = npu::default_target();
  std::vector<std::string> alone;
  for (uint64_t seed : {3u, 4u}) {
    std::string log = temp_path("alone" + std::to_string(seed) + ".jsonl");
    Job job;
    job.seed = seed;
    job.trials = 40;
    job.batch = 16;
    run(job, log);
    for (const std::string& line : lines_without_timestamps(log)) alone.push_back(line);
  }

  auto a = make_tuner(TunerKind::kXgb, task, 3), b = make_tuner(TunerKind::kXgb, task, 4);
  TuneOptions o;
  o.trials = 40;
  o.batch_size = 16;
  std::vector<std::unique_ptr<TuneSearch>> searches;
  searches.push_back(std::make_unique<TuneSearch>(task, target, *a, o, nullptr));
  searches.push_back(std::make_unique<TuneSearch>(task, target, *b, o, nullptr));
  LocalExecutorOptions eo;
  eo.workers = 2;
  LocalExecutor ex(testing::measure_synthetic, eo);
  std::vector<std::vector<LogRecord>> per_search(2);
  int rounds = 0;
  for (;;) {
    std::vector<size_t> active;
    std::vector<MeasureBatch> batches;
    for (size_t i = 0; i < searches.size(); ++i)
      if (const MeasureBatch* batch = searches[i]->propose()) {
        active.push_back(i);
        batches.push_back(*batch);
      }
    if (active.empty()) break;
    ++rounds;
    auto results = ex.measure_many(batches);
    for (size_t k = 0; k < active.size(); ++k) {
      auto records = searches[active[k]]->record(std::move(results[k]));
      per_search[active[k]].insert(per_search[active[k]].end(), records.begin(), records.end());
    }
    for (size_t i : active) searches[i]->observe();
  }
  EXPECT_EQ(rounds, 3);  // 16 + 16 + 8 trials
  std::vector<std::string> together;
  for (const auto& records : per_search)
    for (LogRecord r : records) {
      r.timestamp.clear();
      nlohmann::json j = record_to_json(r);
      j.erase("timestamp");
      together.push_back(j.dump());
    }
  EXPECT_EQ(together, alone);
  EXPECT_TRUE(searches[0]->finished() && searches[1]->finished());
  EXPECT_EQ(searches[0]->report().trials.size(), 40u);
  EXPECT_THROW(searches[0]->record({}), InternalError);  // no batch proposed
}

}  // namespace
}  // namespace tessera::autotune
