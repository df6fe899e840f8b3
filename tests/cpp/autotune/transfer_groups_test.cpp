#include "autotune/transfer_groups.h"

#include <gtest/gtest.h>

#include "autotune/knob_features.h"
#include "autotune/local_executor.h"
#include "autotune/make_tuner.h"
#include "autotune/read_tuning_log.h"
#include "autotune/tune.h"
#include "log_test_util.h"
#include "synthetic_task.h"

namespace tessera::autotune {
namespace {

using testing::SyntheticConv;
using testing::SyntheticShape;

SyntheticShape shape_of(const nlohmann::json& key) {
  const auto& a = key.at("args");
  return SyntheticShape{a.at("C").get<int64_t>(), a.at("H").get<int64_t>(),
                        a.at("W").get<int64_t>(), a.at("K").get<int64_t>()};
}

TuneReport tune_into(const std::string& log, const SyntheticConv& conv, int64_t trials) {
  auto tuner = make_tuner(TunerKind::kRandom, conv.task(), 5);
  LocalExecutor executor(conv.measure_fn());
  TuneOptions o;
  o.trials = trials;
  o.log_path = log;
  return tune(conv.task(), npu::default_target(), *tuner, executor, o);
}

TEST(TransferGroups, one_group_per_other_task_of_a_log_featurized_by_its_own_space) {
  const std::string log = testing::temp_path("earlier.jsonl");
  SyntheticConv small(SyntheticShape{32, 28, 28, 64}), wide(SyntheticShape{128, 28, 28, 256});
  SyntheticConv target;
  TuneReport small_run = tune_into(log, small, 40);
  tune_into(log, wide, 24);
  tune_into(log, target, 16);
  // A record of an older space: tile_h 3 is not a divisor of 28.
  TuningLog read = read_tuning_log(log);
  LogRecord stale = read.records.front();
  stale.config["tile_h"] = 3;
  stale.line = 99;
  read.records.push_back(stale);

  TaskOf task_of = [](const nlohmann::json& key) -> std::optional<TuningTask> {
    return SyntheticConv(shape_of(key)).task();
  };
  TransferGroups t = transfer_groups(read.records, task_of, target.task().key_text(), log);
  ASSERT_EQ(t.groups.size(), 2u);  // the target's own records are left out
  // Ordered by key text: C=128 sorts before C=32.
  EXPECT_EQ(t.tasks[0], wide.task().key_text());
  EXPECT_EQ(t.tasks[1], small.task().key_text());
  EXPECT_EQ(t.groups[0].features.size(), 24u);
  ASSERT_EQ(t.groups[1].features.size(), 40u);
  // Rows are the knob features of each logged config in its own space, labels its ranking.
  TrainingGroup expected = make_training_group(small.task(), small_run.trials);
  EXPECT_EQ(t.groups[1].features, expected.features);
  EXPECT_EQ(t.groups[1].labels, expected.labels);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find(log + ":99: not a config of its task's space"), std::string::npos)
      << t.warnings[0];
  EXPECT_NE(t.warnings[0].find("knob 'tile_h'"), std::string::npos) << t.warnings[0];

  // A task the table does not know is left out.
  TaskOf only_small = [&](const nlohmann::json& key) -> std::optional<TuningTask> {
    if (key.dump() != small.task().key_text()) return std::nullopt;
    return small.task();
  };
  EXPECT_EQ(transfer_groups(read.records, only_small, target.task().key_text(), log).groups.size(),
            1u);

  // And the groups warm-start the xgb tuner of the target.
  XgbTunerOptions o;
  o.transfer = t.groups;
  XgbTuner tuner(target.task(), 1, o);
  EXPECT_TRUE(tuner.model().trained());
}

}  // namespace
}  // namespace tessera::autotune
