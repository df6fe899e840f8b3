// Properties every tuner has: seeded determinism, no config proposed twice, the validity check
// respected, the whole valid space and nothing more when it is small.
#include <gtest/gtest.h>

#include <set>

#include "autotune/grid_tuner.h"
#include "autotune/make_tuner.h"
#include "runtime/base/error.h"
#include "synthetic_task.h"

namespace tessera::autotune {
namespace {

// A small space (2 * 4 * 6 * 2 = 96 configs) with a validity check rejecting a third of it and
// a cost with a single optimum.
TuningTask small_task() {
  TuningTask t;
  t.key = {{"template", "small"}};
  t.space.add(Knob::flag("db"));
  t.space.add(Knob::split("tile", 8, {1, 2, 4, 8}));
  t.space.add(Knob::permutation("order", {"i", "j", "k"}));
  t.space.add(Knob::choice("fold", {"none", "rows"}));
  t.space.set_validity_check([](const ConfigSpace& s, const Config& c) {
    return !(s.flag(c, "db") && s.split(c, "tile") == 8) && s.permutation(c, "order")[0] != "k";
  });
  return t;
}

MeasureResult small_cost(const TuningTask& t, const Config& c) {
  const ConfigSpace& s = t.space;
  int64_t cycles = 1000 / s.split(c, "tile") + (s.flag(c, "db") ? 0 : 300) +
                   (s.permutation(c, "order")[2] == "i" ? 0 : 50) + (s.choice(c, "fold") == "rows");
  return MeasureResult::success(cycles);
}

// Runs a tuner to exhaustion (or `limit` configs) in batches of `batch`, feeding it the cost.
std::vector<Config> drive(Tuner& tuner, const TuningTask& task, size_t batch, size_t limit,
                          const std::function<MeasureResult(const Config&)>& cost) {
  std::vector<Config> all;
  while (all.size() < limit) {
    std::vector<Config> b = tuner.propose(std::min(batch, limit - all.size()));
    if (b.empty()) break;
    std::vector<Trial> trials;
    for (const Config& c : b) {
      Trial t;
      t.index = static_cast<int64_t>(all.size());
      t.config = c;
      t.result = cost(c);
      trials.push_back(t);
      all.push_back(c);
    }
    tuner.observe(trials);
  }
  return all;
}

class EveryTuner : public ::testing::TestWithParam<TunerKind> {};

TEST_P(EveryTuner, proposes_every_valid_config_of_a_small_space_exactly_once) {
  TuningTask task = small_task();
  auto tuner = make_tuner(GetParam(), task, 5);
  auto cost = [&](const Config& c) { return small_cost(task, c); };
  std::vector<Config> all = drive(*tuner, task, 7, 1000, cost);
  std::set<uint64_t> seen;
  for (const Config& c : all) {
    EXPECT_TRUE(task.space.is_valid(c)) << task.space.to_text(c);
    EXPECT_TRUE(seen.insert(task.space.index_of(c)).second) << task.space.to_text(c);
  }
  // Counted independently: db (2) x tile (4) x order (6) x fold (2), minus db with tile 8 (12)
  // and orders starting with k (2 of 6): (96 - 12) * 4/6 = 56.
  EXPECT_EQ(all.size(), 56u);
  EXPECT_TRUE(tuner->propose(3).empty());
}

TEST_P(EveryTuner, the_same_seed_and_results_give_the_same_proposals) {
  TuningTask task = testing::synthetic_task();
  auto cost = [&](const Config& c) {
    auto cycles = testing::synthetic_cycles(task.space, c);
    return cycles ? MeasureResult::success(*cycles)
                  : MeasureResult::failure(MeasureStatus::kCompileError, "overflow");
  };
  auto a = make_tuner(GetParam(), task, 42);
  auto b = make_tuner(GetParam(), task, 42);
  std::vector<Config> pa = drive(*a, task, 16, 96, cost);
  std::vector<Config> pb = drive(*b, task, 16, 96, cost);
  ASSERT_EQ(pa.size(), 96u);
  EXPECT_EQ(pa, pb);
  if (GetParam() != TunerKind::kGrid) {
    auto c = make_tuner(GetParam(), task, 43);
    EXPECT_NE(drive(*c, task, 16, 96, cost), pa);
  }
}

INSTANTIATE_TEST_SUITE_P(Tuners, EveryTuner,
                         ::testing::Values(TunerKind::kXgb, TunerKind::kRandom, TunerKind::kGrid,
                                           TunerKind::kGenetic),
                         [](const auto& info) { return std::string(tuner_kind_name(info.param)); });

TEST(GridTuner, walks_the_space_in_index_order_skipping_invalid_configs) {
  TuningTask task = small_task();
  GridTuner grid(task, 0);
  std::vector<Config> first = grid.propose(3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(task.space.to_text(first[0]),
            R"({"db":false,"fold":"none","order":["i","j","k"],"tile":1})");
  EXPECT_EQ(task.space.to_text(first[2]),
            R"({"db":false,"fold":"none","order":["i","k","j"],"tile":1})");
  // The whole walk against the digits of each index decoded by hand: db (48s), tile (12s),
  // order (2s; kij and kji are orders 4 and 5), fold (1s).
  std::vector<uint64_t> expected;
  for (uint64_t i = 0; i < 96; ++i) {
    uint64_t db = i / 48, tile = i / 12 % 4, order = i / 2 % 6;
    if (!(db == 1 && tile == 3) && order < 4) expected.push_back(i);
  }
  std::vector<uint64_t> walked;
  for (const Config& c : first) walked.push_back(task.space.index_of(c));
  for (std::vector<Config> b; !(b = grid.propose(5)).empty();)
    for (const Config& c : b) walked.push_back(task.space.index_of(c));
  EXPECT_EQ(walked, expected);
}

TEST(MakeTuner, names_round_trip_and_unknown_names_are_rejected) {
  for (TunerKind k : {TunerKind::kXgb, TunerKind::kRandom, TunerKind::kGrid, TunerKind::kGenetic})
    EXPECT_EQ(parse_tuner_kind(tuner_kind_name(k)), k);
  try {
    parse_tuner_kind("annealing");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown tuner 'annealing'; tuners: xgb, random, grid, ga");
  }
}

}  // namespace
}  // namespace tessera::autotune
