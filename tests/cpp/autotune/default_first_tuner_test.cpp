// DefaultFirstTuner: trial 0 is the given config, then the wrapped tuner's proposals, with that
// config never measured twice and the wrapped tuner fed every result of its own proposals.
#include "autotune/default_first_tuner.h"

#include <gtest/gtest.h>

#include <set>

#include "autotune/make_tuner.h"

namespace tessera::autotune {
namespace {

TuningTask task_of_40() {
  TuningTask t;
  t.key = {{"template", "forty"}};
  t.space.add(Knob::split("tile", 16, {1, 2, 4, 8, 16}));
  t.space.add(Knob::choice("mode", {"a", "b", "c", "d"}));
  t.space.add(Knob::flag("db"));
  return t;
}

int64_t cost(const ConfigSpace& s, const Config& c) {
  return 100 + 16 / s.split(c, "tile") * 7 + (s.flag(c, "db") ? 0 : 13) +
         static_cast<int64_t>(c.values[1]);
}

// A wrapped tuner that records what it is given: proposes configs in index order from `start`.
class Recorder : public Tuner {
 public:
  Recorder(const TuningTask& t, uint64_t start) : task_(t), next_(start) {}
  const char* name() const override { return "recorder"; }
  uint64_t seed() const override { return 9; }
  std::vector<Config> propose(size_t n) override {
    std::vector<Config> out;
    while (out.size() < n && next_ < task_.space.size()) out.push_back(task_.space.at(next_++));
    proposed.push_back(out);
    return out;
  }
  void observe(const std::vector<Trial>& trials) override { observed.push_back(trials); }
  std::vector<std::vector<Config>> proposed;
  std::vector<std::vector<Trial>> observed;

 private:
  const TuningTask& task_;
  uint64_t next_;
};

// Drives a tuner to exhaustion with the cost above; returns every trial in order.
std::vector<Trial> drive(Tuner& tuner, const TuningTask& task, size_t batch) {
  std::vector<Trial> all;
  while (true) {
    std::vector<Config> b = tuner.propose(batch);
    if (b.empty()) break;
    std::vector<Trial> trials;
    for (Config& c : b) {
      Trial t;
      t.index = static_cast<int64_t>(all.size() + trials.size());
      t.result = MeasureResult::success(cost(task.space, c));
      t.config = std::move(c);
      trials.push_back(t);
    }
    tuner.observe(trials);
    all.insert(all.end(), trials.begin(), trials.end());
  }
  return all;
}

TEST(DefaultFirstTuner, measures_the_first_config_as_trial_0_and_every_config_once) {
  TuningTask task = task_of_40();
  for (size_t batch : {1, 3, 8}) {
    const Config first = task.space.at(17);
    DefaultFirstTuner tuner(task, make_tuner(TunerKind::kGrid, task, 0), first);
    EXPECT_STREQ(tuner.name(), "grid");
    std::vector<Trial> trials = drive(tuner, task, batch);
    ASSERT_EQ(trials.size(), task.space.size()) << "batch " << batch;
    EXPECT_EQ(trials[0].config, first);
    std::set<uint64_t> seen;
    for (const Trial& t : trials) EXPECT_TRUE(seen.insert(task.space.index_of(t.config)).second);
  }
}

TEST(DefaultFirstTuner, gives_the_wrapped_tuner_trial_0_and_the_result_of_its_own_repeat) {
  TuningTask task = task_of_40();
  const Config first = task.space.at(5);
  auto owned = std::make_unique<Recorder>(task, 3);  // proposes 3, 4, 5 (= first), 6, ...
  Recorder& rec = *owned;
  DefaultFirstTuner tuner(task, std::move(owned), first);
  std::vector<Trial> trials = drive(tuner, task, 4);
  // Trial 0 is `first`; the recorder's proposal of it (index 5) was not measured again.
  ASSERT_EQ(trials.size(), task.space.size() - 3);
  EXPECT_EQ(trials[0].config, first);
  for (size_t i = 1; i < trials.size(); ++i) EXPECT_FALSE(trials[i].config == first);
  // Its first observe: its own three proposals (3, 4; no 5th config in that batch of 4 - 1),
  // then trial 0.
  ASSERT_EQ(rec.proposed[0].size(), 3u);
  ASSERT_EQ(rec.observed[0].size(), 4u);
  EXPECT_EQ(rec.observed[0][3].config, first);
  // The batch holding its repeat of `first`: the result given back in its place, in order.
  ASSERT_EQ(rec.proposed[1].size(), 4u);  // 6, 7, 8, 9 ... so the repeat was in batch 0
  for (size_t b = 0; b < rec.proposed.size(); ++b) {
    size_t own = 0;
    for (const Trial& t : rec.observed[b])
      if (own < rec.proposed[b].size() && t.config == rec.proposed[b][own]) ++own;
    EXPECT_EQ(own, rec.proposed[b].size()) << "batch " << b;
  }
  EXPECT_EQ(rec.observed[0][2].config, first);  // index 5 = its third proposal
  EXPECT_EQ(rec.observed[0][2].result, trials[0].result);
}

}  // namespace
}  // namespace tessera::autotune
