#include "autotune/config_space.h"

#include <gtest/gtest.h>

#include "autotune/errors.h"
#include "autotune/neighbourhood.h"
#include "synthetic_task.h"

namespace tessera::autotune {
namespace {

ConfigSpace small_space() {
  ConfigSpace s;
  s.add(Knob::split("tile", 12, divisors(12)));           // 1 2 3 4 6 12
  s.add(Knob::permutation("order", {"i", "j", "k"}));     // 6 orders
  s.add(Knob::choice("fold", {"none", "rows", "cols"}));  // 3
  s.add(Knob::flag("db"));                                // 2
  return s;
}

TEST(Knob, divisors_are_every_factor_ascending) {
  EXPECT_EQ(divisors(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(divisors(56), (std::vector<int64_t>{1, 2, 4, 7, 8, 14, 28, 56}));
  EXPECT_EQ(divisors(49), (std::vector<int64_t>{1, 7, 49}));
}

TEST(Knob, split_factor_that_does_not_divide_is_rejected_without_tails) {
  try {
    Knob::split("tile_m", 100, {1, 3, 100});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("split knob 'tile_m': factor 3 does not divide extent 100"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Knob::split("tile_m", 100, {1, 3, 100}, /*allow_tails=*/true).size(), 3u);
}

TEST(Knob, split_factors_out_of_range_or_unsorted_are_rejected) {
  EXPECT_THROW(Knob::split("t", 8, {0, 8}), ConfigError);
  EXPECT_THROW(Knob::split("t", 8, {16}, true), ConfigError);
  EXPECT_THROW(Knob::split("t", 8, {4, 2}), ConfigError);
  EXPECT_THROW(Knob::split("t", 8, {}), ConfigError);
}

TEST(Knob, permutation_lists_every_order_lexicographically) {
  Knob k = Knob::permutation("order", {"i", "j", "k"});
  ASSERT_EQ(k.size(), 6u);
  EXPECT_EQ(k.order(0), (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(k.order(1), (std::vector<std::string>{"i", "k", "j"}));
  EXPECT_EQ(k.order(5), (std::vector<std::string>{"k", "j", "i"}));
}

TEST(Knob, permutation_neighbours_are_one_swap_away) {
  Knob k = Knob::permutation("order", {"i", "j", "k"});
  // From ijk: swap(0,1) jik = 2, swap(0,2) kji = 5, swap(1,2) ikj = 1.
  EXPECT_EQ(k.neighbours(0), (std::vector<uint32_t>{1, 2, 5}));
}

TEST(Knob, explicit_orders_must_be_permutations) {
  EXPECT_THROW(Knob::permutation("o", {"i", "j"}, {{"i", "i"}}), ConfigError);
  EXPECT_THROW(Knob::permutation("o", {"i", "j"}, {{"i"}}), ConfigError);
  EXPECT_THROW(Knob::permutation("o", {"i", "j"}, {{"i", "j"}, {"i", "j"}}), ConfigError);
  Knob k = Knob::permutation("o", {"i", "j", "k"}, {{"k", "j", "i"}, {"i", "j", "k"}});
  EXPECT_EQ(k.order(0), (std::vector<std::string>{"k", "j", "i"}));
  // No explicit order is one swap from another... kji -> ijk is swap(0,2): they are neighbours.
  EXPECT_EQ(k.neighbours(0), (std::vector<uint32_t>{1}));
}

TEST(Knob, ordered_knobs_move_to_adjacent_values_and_unordered_to_any) {
  Knob split = Knob::split("t", 12, divisors(12));
  EXPECT_EQ(split.neighbours(0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(split.neighbours(3), (std::vector<uint32_t>{2, 4}));
  Knob scale = Knob::choice("unroll", {"1", "2", "4"}, true);
  EXPECT_EQ(scale.neighbours(2), (std::vector<uint32_t>{1}));
  Knob named = Knob::choice("fold", {"none", "rows", "cols"});
  EXPECT_EQ(named.neighbours(1), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(Knob::flag("db").neighbours(0), (std::vector<uint32_t>{1}));
}

TEST(ConfigSpace, size_is_the_product_of_the_domains) {
  EXPECT_EQ(small_space().size(), 6u * 6 * 3 * 2);
  EXPECT_EQ(ConfigSpace().size(), 1u);
}

TEST(ConfigSpace, index_is_mixed_radix_with_the_last_knob_fastest) {
  ConfigSpace s = small_space();
  Config c{{2, 4, 1, 1}};  // tile 3, order kij, fold rows, db true
  // ((2 * 6 + 4) * 3 + 1) * 2 + 1, written out by hand.
  EXPECT_EQ(s.index_of(c), 99u);
  EXPECT_EQ(s.at(99), c);
  EXPECT_EQ(s.at(0), (Config{{0, 0, 0, 0}}));
  EXPECT_EQ(s.at(s.size() - 1), (Config{{5, 5, 2, 1}}));
}

TEST(ConfigSpace, every_index_round_trips_through_config_and_json) {
  ConfigSpace s = small_space();
  for (uint64_t i = 0; i < s.size(); ++i) {
    Config c = s.at(i);
    ASSERT_EQ(s.index_of(c), i);
    ASSERT_EQ(s.from_text(s.to_text(c)), c);
  }
}

TEST(ConfigSpace, canonical_json_has_sorted_keys_and_typed_values) {
  ConfigSpace s = small_space();
  EXPECT_EQ(s.to_text(Config{{2, 4, 1, 1}}),
            R"({"db":true,"fold":"rows","order":["k","i","j"],"tile":3})");
  // Key order and spacing of the input do not matter; the text out is the same.
  Config c = s.from_text(R"({ "tile": 3, "order": ["k","i","j"], "fold": "rows", "db": true })");
  EXPECT_EQ(s.index_of(c), 99u);
}

void expect_config_error(const ConfigSpace& s, const std::string& text, const std::string& words) {
  try {
    s.from_text(text);
    FAIL() << "no error for " << text;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ConfigSpace, bad_json_configs_are_errors_naming_the_knob) {
  ConfigSpace s = small_space();
  expect_config_error(s, R"({"db":true,"fold":"rows","order":["k","i","j"],"tile":5})",
                      "knob 'tile' (split): 5 is not a candidate factor; legal values: 1, 2, 3, 4, "
                      "6, 12");
  expect_config_error(s, R"({"db":true,"fold":"diag","order":["k","i","j"],"tile":3})",
                      "knob 'fold' (choice): \"diag\" is not one of the alternatives");
  expect_config_error(s, R"({"db":1,"fold":"rows","order":["k","i","j"],"tile":3})",
                      "knob 'db' (flag): 1 is not a bool");
  expect_config_error(s, R"({"db":true,"fold":"rows","order":["k","i","i"],"tile":3})",
                      "knob 'order' (permutation)");
  expect_config_error(s, R"({"db":true,"fold":"rows","tile":3})", "no value for knob 'order'");
  expect_config_error(s, R"({"db":true,"fold":"rows","order":["k","i","j"],"tile":3,"x":1})",
                      "unknown knob 'x'; the space's knobs: tile, order, fold, db");
  expect_config_error(s, "[1,2]", "is not a JSON object");
  expect_config_error(s, "{\"tile\":", "is not valid JSON");
}

TEST(ConfigSpace, duplicate_knob_names_and_size_overflow_are_rejected) {
  ConfigSpace s;
  s.add(Knob::flag("db"));
  EXPECT_THROW(s.add(Knob::flag("db")), ConfigError);
  ConfigSpace big;
  std::vector<std::string> alts;
  for (int i = 0; i < 65536; ++i) alts.push_back("a" + std::to_string(i));
  for (int i = 0; i < 3; ++i) big.add(Knob::choice("c" + std::to_string(i), alts));  // 2^48
  try {
    big.add(Knob::choice("c3", alts));  // 2^64 does not fit
    FAIL() << "no overflow error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("adding knob 'c3'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overflows 2^64"), std::string::npos) << e.what();
  }
  big.add(Knob::choice("c3", {"x", "y"}));
  EXPECT_EQ(big.size(), uint64_t{1} << 49);
  EXPECT_EQ(big.index_of(big.at(big.size() - 1)), big.size() - 1);
}

TEST(ConfigSpace, index_outside_the_space_is_rejected) {
  ConfigSpace s = small_space();
  EXPECT_THROW(s.at(s.size()), ConfigError);
  EXPECT_THROW(s.index_of(Config{{0, 0, 3, 0}}), ConfigError);
  EXPECT_THROW(s.index_of(Config{{0, 0}}), ConfigError);
}

TEST(ConfigSpace, typed_accessors_read_values_and_reject_wrong_kinds) {
  ConfigSpace s = small_space();
  Config c{{2, 4, 1, 1}};
  EXPECT_EQ(s.split(c, "tile"), 3);
  EXPECT_EQ(s.permutation(c, "order"), (std::vector<std::string>{"k", "i", "j"}));
  EXPECT_EQ(s.choice(c, "fold"), "rows");
  EXPECT_TRUE(s.flag(c, "db"));
  try {
    s.flag(c, "tile");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'tile' is a split knob, not a flag knob"),
              std::string::npos);
  }
  EXPECT_THROW(s.split(c, "tile_x"), ConfigError);
}

TEST(ConfigSpace, validity_check_is_applied_by_is_valid) {
  ConfigSpace s = small_space();
  s.set_validity_check([](const ConfigSpace& sp, const Config& c) {
    return sp.split(c, "tile") * (sp.flag(c, "db") ? 2 : 1) <= 6;
  });
  EXPECT_TRUE(
      s.is_valid(s.from_text(R"({"db":true,"fold":"none","order":["i","j","k"],"tile":3})")));
  EXPECT_FALSE(
      s.is_valid(s.from_text(R"({"db":true,"fold":"none","order":["i","j","k"],"tile":4})")));
  EXPECT_TRUE(
      s.is_valid(s.from_text(R"({"db":false,"fold":"none","order":["i","j","k"],"tile":6})")));
  EXPECT_FALSE(s.is_valid(Config{{9, 0, 0, 0}}));
}

TEST(ConfigSpace, factors_split_policy_keeps_only_divisors_and_the_validity_check) {
  ConfigSpace s;
  s.add(Knob::split("tile", 12, {1, 2, 3, 4, 5, 6, 7, 8, 12}, /*allow_tails=*/true));
  s.add(Knob::choice("fold", {"none", "rows", "cols"}));
  s.add(Knob::flag("db"));
  s.set_validity_check([](const ConfigSpace& sp, const Config& c) {
    return sp.split(c, "tile") * (sp.flag(c, "db") ? 2 : 1) <= 6;
  });
  EXPECT_EQ(s.with_split_policy(SplitPolicy::kAll).size(), s.size());
  ConfigSpace f = s.with_split_policy(SplitPolicy::kFactors);
  ASSERT_EQ(f.knobs().size(), 3u);
  const Knob& tile = f.knob("tile");
  std::vector<int64_t> kept;
  for (uint32_t v = 0; v < tile.size(); ++v) kept.push_back(tile.factor(v));
  EXPECT_EQ(kept, (std::vector<int64_t>{1, 2, 3, 4, 6, 12}));  // 5, 7 and 8 leave tails
  EXPECT_FALSE(tile.allow_tails());
  EXPECT_EQ(f.size(), 6u * 3u * 2u);
  EXPECT_EQ(f.knob("fold").describe(), s.knob("fold").describe());
  // The check runs on the new space's values: tile 4 double-buffered is 8 > 6.
  EXPECT_TRUE(f.is_valid(f.from_text(R"({"db":true,"fold":"rows","tile":3})")));
  EXPECT_FALSE(f.is_valid(f.from_text(R"({"db":true,"fold":"rows","tile":4})")));
  // A tail factor is not a point of the factors space; the error says what is legal.
  try {
    f.from_text(R"({"db":false,"fold":"rows","tile":5})");
    FAIL() << "tile 5 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'tile'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_split_policy("factors"), SplitPolicy::kFactors);
  EXPECT_STREQ(split_policy_name(SplitPolicy::kAll), "all");
  try {
    parse_split_policy("power2");
    FAIL() << "power2 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'power2'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("factors"), std::string::npos);
  }
}

TEST(Neighbourhood, every_neighbour_differs_in_exactly_one_knob_by_one_move) {
  ConfigSpace s = small_space();
  Config c{{0, 0, 1, 0}};
  std::vector<Config> n = neighbours(s, c);
  // tile: 1 (adjacent up), order: 3 (one swap), fold: 2 (any other), db: 1.
  ASSERT_EQ(n.size(), 7u);
  EXPECT_EQ(n[0], (Config{{1, 0, 1, 0}}));
  EXPECT_EQ(n[6], (Config{{0, 0, 1, 1}}));
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    Config m = random_neighbour(s, c, rng);
    EXPECT_NE(std::find(n.begin(), n.end(), m), n.end());
  }
}

TEST(ConfigSpace, synthetic_task_space_is_realistic_in_size_and_validity) {
  TuningTask task = testing::synthetic_task();
  EXPECT_EQ(task.space.size(), 8u * 10 * 8 * 7 * 24 * 3 * 4 * 2 * 2);
  // The on-chip footprint, recomputed here for two configs by hand.
  // 56x56 tile of 64 channels: (58*58*64)*2 = 430,592 bytes double-buffered: over 256 KiB.
  Config big = task.space.from_text(
      R"({"db_input":true,"db_weight":false,"fold":"none","order":["h","w","k","c"],)"
      R"("tile_c":64,"tile_h":56,"tile_k":1,"tile_w":56,"unroll":"1"})");
  EXPECT_FALSE(task.space.is_valid(big));
  Config small = task.space.from_text(
      R"({"db_input":true,"db_weight":true,"fold":"none","order":["h","w","k","c"],)"
      R"("tile_c":16,"tile_h":8,"tile_k":16,"tile_w":8,"unroll":"1"})");
  EXPECT_TRUE(task.space.is_valid(small));
}

}  // namespace
}  // namespace tessera::autotune
