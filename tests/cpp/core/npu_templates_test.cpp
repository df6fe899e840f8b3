// The tunable NPU templates: the table, task arguments, config spaces (sizes, round trips,
// valid counts) and defaults; the cheap validity check against the allocator on ResNet-18-sized
// layers, where many configs overflow. (Bit-exact runs against numpy: tests/python/
// test_npu_templates.py.)
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "autotune/errors.h"
#include "autotune/templates/npu_add.h"
#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_dense.h"
#include "autotune/templates/npu_depthwise_conv2d.h"
#include "autotune/templates/npu_max_pool2d.h"
#include "autotune/templates/npu_task.h"
#include "codegen/npu/allocate_onchip.h"
#include "compiler/lower.h"
#include "runtime/base/error.h"

namespace tessera {
namespace {

using autotune::Config;
using nlohmann::json;

json resnet18_workloads() {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/benchmarks/workloads/resnet18.json");
  return json::parse(in)["workloads"];
}

// The task of a ResNet-18 workload, as benchmarks/npu_resnet18/run.py makes it.
NpuTask resnet18_task(const json& wl, const npu::Target& t) {
  json q = {{"multiplier", 1 << 14}, {"shift", 22}};
  if (wl["op"] == "dense") {
    json a = {{"M", wl["M"]}, {"K", wl["K"]}, {"N", wl["N"]}};
    a.update(q);
    return make_npu_task("dense", a, t);
  }
  json a;
  for (const char* k : {"C", "H", "W", "K", "R", "S", "stride", "pad"}) a[k] = wl[k];
  a.update(q);
  return make_npu_task(wl["C"].get<int64_t>() < t.block() ? "conv2d_im2col" : "conv2d", a, t);
}

TEST(NpuTemplates, the_table_lists_each_template_once_and_lookup_errors_name_them) {
  std::set<std::string> names;
  for (const NpuTemplate* t : npu_templates()) EXPECT_TRUE(names.insert(t->name).second);
  EXPECT_EQ(names.size(), 6u);
  EXPECT_EQ(&npu_template("conv2d"), &kConv2dTemplate);
  try {
    npu_template("conv3d");
    FAIL();
  } catch (const autotune::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no NPU template named 'conv3d'; the templates: conv2d, "
                                         "conv2d_im2col, depthwise_conv2d, dense, max_pool2d, add"),
              std::string::npos)
        << e.what();
  }
}

TEST(NpuTemplates, bad_arguments_are_argument_errors_naming_the_template_and_field) {
  npu::Target t = npu::default_target();
  auto message = [&](const char* tmpl, const json& args) {
    try {
      make_npu_task(tmpl, args, t);
    } catch (const ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json dense = {{"M", 4}, {"K", 32}, {"N", 16}, {"multiplier", 1}, {"shift", 0}};
  json missing = dense;
  missing.erase("N");
  EXPECT_EQ(message("dense", missing), "dense: argument 'N' is missing");
  json extra = dense;
  extra["tile"] = 3;
  EXPECT_EQ(message("dense", extra),
            "dense: unknown argument 'tile'; the arguments are K, M, N, multiplier, relu, shift, "
            "zero_point");
  json typed = dense;
  typed["K"] = "32";
  EXPECT_EQ(message("dense", typed), "dense: argument 'K' = \"32\" is not an integer");
  json shift = dense;
  shift["shift"] = 70;
  EXPECT_EQ(message("dense", shift), "dense: shift = 70 must be in [0, 62]");
  json window = {{"C", 8}, {"H", 4},      {"W", 4},   {"K", 8},          {"R", 7},
                 {"S", 7}, {"stride", 1}, {"pad", 1}, {"multiplier", 1}, {"shift", 0}};
  EXPECT_EQ(message("conv2d", window),
            "conv2d: R = 7 (window height) is larger than the padded input: H + 2 * pad = 6; the "
            "window must fit, R <= H + 2 * pad");
  json pool = {{"C", 8}, {"H", 8}, {"W", 8}, {"R", 2}, {"S", 2}, {"stride", 2}, {"pad", 2}};
  EXPECT_EQ(message("max_pool2d", pool), "max_pool2d: pad = 2 must be smaller than the window 2x2");
}

// Every C++ function of the operator library that takes a shape checks it before computing an
// output size: a stride of 0 reached the division and killed the process with SIGFPE (issue 7).
TEST(NpuTemplates, every_entry_point_refuses_a_zero_stride_a_negative_pad_and_a_large_window) {
  const npu::Target t = npu::default_target();
  const Requant q{1, 0, 0, false};
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string stride0 =
      ": stride = 0 (the window's step in rows and columns) must be in [1, 16777216]";
  const std::string pad_neg =
      ": pad = -1 (zero rows and columns added on each side) must be in [0, 16777216]";
  const std::string too_wide =
      ": S = 9 (window width) is larger than the padded input: W + 2 * pad = 8; the window must "
      "fit, S <= W + 2 * pad";
  for (const Conv2dShape& bad :
       {Conv2dShape{16, 6, 6, 16, 3, 3, 0, 1}, Conv2dShape{16, 6, 6, 16, 3, 3, 1, -1},
        Conv2dShape{16, 6, 6, 16, 3, 9, 1, 1}}) {
    const std::string why = bad.stride == 0 ? stride0 : bad.pad < 0 ? pad_neg : too_wide;
    Conv2dShape dw = bad;  // depthwise: one output channel per input channel
    const std::vector<std::pair<std::string, std::function<void()>>> calls = {
        {"npu_conv2d", [&] { npu_conv2d(t, bad, q); }},
        {"npu_conv2d", [&] { npu_conv2d(t, bad, q, NpuConv2dParams()); }},
        {"default_conv2d_params", [&] { default_conv2d_params(t, bad); }},
        {"conv2d_space", [&] { conv2d_space(t, bad); }},
        {"conv2d_footprint", [&] { conv2d_footprint(t, bad, NpuConv2dParams()); }},
        {"npu_depthwise_conv2d",
         [&] { npu_depthwise_conv2d(t, dw, q, DepthwiseMapping::kVectorMac); }},
        {"default_depthwise_conv2d_params",
         [&] { default_depthwise_conv2d_params(t, dw, DepthwiseMapping::kVectorMac); }},
        {"depthwise_conv2d_space",
         [&] { depthwise_conv2d_space(t, dw, DepthwiseMapping::kVectorMac); }},
        {"depthwise_conv2d_footprint",
         [&] {
           depthwise_conv2d_footprint(t, dw, DepthwiseMapping::kVectorMac,
                                      NpuDepthwiseConv2dParams());
         }},
    };
    for (const auto& [name, call] : calls) EXPECT_EQ(message(call), name + why) << name;
    Pool2dShape pool{16, 6, 6, bad.R, bad.S, bad.stride, bad.pad};
    const std::vector<std::pair<std::string, std::function<void()>>> pools = {
        {"npu_max_pool2d", [&] { npu_max_pool2d(t, pool); }},
        {"default_max_pool2d_params", [&] { default_max_pool2d_params(t, pool); }},
        {"max_pool2d_space", [&] { max_pool2d_space(t, pool); }},
        {"max_pool2d_footprint", [&] { max_pool2d_footprint(t, pool, NpuMaxPool2dParams()); }},
    };
    for (const auto& [name, call] : pools) EXPECT_EQ(message(call), name + why) << name;
  }
  EXPECT_EQ(message([&] { dense_space(t, 4, 0, 16); }),
            "dense_space: K = 0 (reduction length) must be in [1, 16777216]");
  EXPECT_EQ(message([&] { dense_footprint(t, 4, 16, -2, NpuDenseParams()); }),
            "dense_footprint: N = -2 (output features) must be in [1, 16777216]");
  EXPECT_EQ(message([&] { default_add_params(t, 16, 0, 4, false); }),
            "default_add_params: H = 0 (height) must be in [1, 16777216]");
  EXPECT_EQ(message([&] { add_footprint(t, 16, 4, int64_t(1) << 40, NpuAddParams()); }),
            "add_footprint: W = 1099511627776 (width) must be in [1, 16777216]");
}

TEST(NpuTemplates, the_key_is_canonical_json_with_defaults_filled) {
  NpuTask a = make_npu_task("add", {{"W", 7}, {"C", 20}, {"H", 5}}, npu::default_target());
  EXPECT_EQ(a.tuning.key_text(), R"({"args":{"C":20,"H":5,"W":7,"relu":false},"template":"add"})");
  NpuTask b = npu_task_from_key(a.tuning.key, npu::default_target());
  EXPECT_EQ(b.tuning.key_text(), a.tuning.key_text());
  EXPECT_EQ(b.tuning.space.size(), a.tuning.space.size());
}

TEST(NpuTemplates, knob_names_and_kinds_do_not_depend_on_the_shape) {
  // The cost model's features must have one length per template (transfer across tasks).
  npu::Target t = npu::default_target();
  json wls = resnet18_workloads();
  std::map<std::string, std::vector<float>::size_type> lengths;
  for (const json& wl : wls) {
    NpuTask task = resnet18_task(wl, t);
    size_t n = task.tuning.features(default_config(task)).size();
    auto [it, inserted] = lengths.emplace(task.tmpl->name, n);
    EXPECT_EQ(it->second, n) << wl["id"];
  }
}

TEST(NpuTemplates, configs_round_trip_through_index_and_json_for_every_resnet18_layer) {
  npu::Target t = npu::default_target();
  std::mt19937_64 rng(3);
  for (const json& wl : resnet18_workloads()) {
    NpuTask task = resnet18_task(wl, t);
    const auto& space = task.tuning.space;
    for (int i = 0; i < 200; ++i) {
      uint64_t index = rng() % space.size();
      Config c = space.at(index);
      std::string text = space.to_text(c);
      Config back = space.from_text(text);
      ASSERT_EQ(back, c) << text;
      ASSERT_EQ(space.index_of(back), index) << text;
      ASSERT_EQ(space.to_text(back), text);
    }
  }
}

TEST(NpuTemplates, every_3x3_resnet18_layer_has_at_least_10000_valid_configs) {
  // Distinct indices in a seeded random order until 10,000 pass the validity check.
  for (const char* target : {"npu-v1.json", "npu-8x8.json"}) {
    npu::Target t =
        npu::load_target(std::string(TESSERA_SOURCE_DIR) + "/runtime/npu/targets/" + target);
    for (const json& wl : resnet18_workloads()) {
      if (wl["op"] != "conv2d" || wl["R"] != 3) continue;
      NpuTask task = resnet18_task(wl, t);
      const auto& space = task.tuning.space;
      std::mt19937_64 rng(11);
      std::set<uint64_t> seen, valid;
      while (valid.size() < 10000 && seen.size() < 200000) {
        uint64_t index = rng() % space.size();
        if (!seen.insert(index).second) continue;
        if (space.is_valid(space.at(index))) valid.insert(index);
      }
      EXPECT_GE(valid.size(), 10000u) << wl["id"] << " on " << t.name << ": " << space.size()
                                      << " configs, " << seen.size() << " tried";
    }
  }
}

// The verdict of the schedule and the allocator: build the operator (a ScheduleError for a knob
// combination the template cannot build), lower, then allocate_onchip (what codegen does first).
std::optional<OnchipPlan> allocate(const NpuTask& task, const Config& c) {
  NpuOp op;
  try {
    op = build_npu_op(task, c);
  } catch (const ScheduleError&) {
    return std::nullopt;
  }
  LoweredFunc f = lower(*op.schedule, op.args, "k", task.target);
  try {
    return allocate_onchip(f.body, task.target);
  } catch (const LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
    return std::nullopt;
  }
}

TEST(NpuTemplates, the_cheap_check_agrees_with_the_allocator_on_large_layers) {
  // Layers where a good share of every space overflows; 200 seeded configs each. The check must
  // give the verdict of the schedule and the allocator on >= 99 % of them; disagreements are
  // listed.
  npu::Target t = npu::default_target();
  json q = {{"multiplier", 1 << 14}, {"shift", 22}};
  auto with_q = [&](json a) {
    a.update(q);
    return a;
  };
  std::vector<std::pair<const char*, json>> cases = {
      {"conv2d", with_q({{"C", 64},
                         {"H", 56},
                         {"W", 56},
                         {"K", 64},
                         {"R", 3},
                         {"S", 3},
                         {"stride", 1},
                         {"pad", 1}})},
      {"conv2d", with_q({{"C", 512},
                         {"H", 7},
                         {"W", 7},
                         {"K", 512},
                         {"R", 3},
                         {"S", 3},
                         {"stride", 1},
                         {"pad", 1}})},
      {"conv2d", with_q({{"C", 64},
                         {"H", 56},
                         {"W", 56},
                         {"K", 128},
                         {"R", 1},
                         {"S", 1},
                         {"stride", 2},
                         {"pad", 0}})},
      {"conv2d_im2col", with_q({{"C", 3},
                                {"H", 224},
                                {"W", 224},
                                {"K", 64},
                                {"R", 7},
                                {"S", 7},
                                {"stride", 2},
                                {"pad", 3}})},
      {"dense", with_q({{"M", 1}, {"K", 512}, {"N", 1000}})},
      {"depthwise_conv2d",
       with_q({{"C", 64}, {"H", 112}, {"W", 112}, {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 1}})},
      {"max_pool2d",
       {{"C", 64}, {"H", 112}, {"W", 112}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 1}}},
      {"add", {{"C", 64}, {"H", 112}, {"W", 112}}},
  };
  for (const auto& [tmpl, args] : cases) {
    NpuTask task = make_npu_task(tmpl, args, t);
    std::mt19937_64 rng(7);
    int agree = 0, fits = 0, n = 200;
    for (int i = 0; i < n; ++i) {
      Config c = task.tuning.space.at(rng() % task.tuning.space.size());
      OnchipFootprint fp = footprint(task, c);
      std::optional<OnchipPlan> plan = allocate(task, c);
      bool same = task.tuning.space.is_valid(c) == plan.has_value();
      agree += same;
      if (!same) {
        ADD_FAILURE() << "disagreement on " << task.tuning.key_text() << " "
                      << task.tuning.space.to_text(c) << ": footprint " << fp.sram_rows
                      << " SRAM rows, " << fp.acc_rows << " accumulator rows";
      }
      if (plan) {
        ++fits;
        // Where it fits, the rows are the allocator's exactly.
        EXPECT_EQ(plan->sram_peak_rows, fp.sram_rows) << task.tuning.space.to_text(c);
        EXPECT_EQ(plan->acc_peak_rows, fp.acc_rows) << task.tuning.space.to_text(c);
      }
    }
    EXPECT_GE(agree, n * 99 / 100) << task.tuning.key_text();
    // Both verdicts occur, so the agreement means something.
    EXPECT_GT(fits, 0) << task.tuning.key_text();
    EXPECT_LT(fits, n) << task.tuning.key_text();
  }
}

TEST(NpuTemplates, defaults_are_valid_points_of_their_spaces_on_every_target) {
  std::vector<std::pair<const char*, json>> extra = {
      // ResNet-18's stem max pool, VGG-16's pool1, a residual add at 112 x 112, MobileNet-like
      // depthwise layers: layers that fit, so their defaults must.
      {"max_pool2d",
       {{"C", 64}, {"H", 112}, {"W", 112}, {"R", 3}, {"S", 3}, {"stride", 2}, {"pad", 1}}},
      {"max_pool2d", {{"C", 64}, {"H", 224}, {"W", 224}, {"R", 2}, {"S", 2}, {"stride", 2}}},
      {"add", {{"C", 64}, {"H", 112}, {"W", 112}}},
      {"depthwise_conv2d",
       {{"C", 32},
        {"H", 112},
        {"W", 112},
        {"R", 3},
        {"S", 3},
        {"stride", 1},
        {"pad", 1},
        {"multiplier", 1},
        {"shift", 0}}},
      {"depthwise_conv2d",
       {{"C", 512},
        {"H", 14},
        {"W", 14},
        {"R", 3},
        {"S", 3},
        {"stride", 2},
        {"pad", 1},
        {"multiplier", 1},
        {"shift", 0}}},
  };
  for (const char* target : {"npu-v1.json", "npu-8x8.json", "npu-32x32.json"}) {
    npu::Target t =
        npu::load_target(std::string(TESSERA_SOURCE_DIR) + "/runtime/npu/targets/" + target);
    std::vector<NpuTask> tasks;
    for (const json& wl : resnet18_workloads()) tasks.push_back(resnet18_task(wl, t));
    for (const auto& [tmpl, args] : extra) tasks.push_back(make_npu_task(tmpl, args, t));
    for (const NpuTask& task : tasks) {
      Config d = default_config(task);
      EXPECT_TRUE(task.tuning.space.is_valid(d)) << task.tuning.key_text() << " on " << t.name;
      EXPECT_TRUE(allocate(task, d).has_value()) << task.tuning.key_text() << " on " << t.name;
    }
  }
}

}  // namespace
}  // namespace tessera
