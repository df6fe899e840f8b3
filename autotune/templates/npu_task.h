// A tuning task of the NPU operator library: (template, arguments, target).
//
//   NpuTask t = make_npu_task("conv2d", {{"C", 64}, {"H", 56}, ..., {"shift", 22}}, target);
//   t.tuning.space.size();                        // the config space
//   Config c = t.tuning.space.at(12345);          // or from_json / from_text
//   NpuOp op = build_npu_op(t, c);                // the operator with that config's schedule
//   NpuOp d = build_npu_op(t, default_config(t)); // the shape-aware default
//
// The task key (what a tuning log records and replay looks up) is small, stable JSON:
// {"args": {...canonical arguments...}, "template": "conv2d"}. The target is not in the key:
// one task is tuned for one target (the log records it). A task made with a non-default split
// policy (config_space.h: `factors`, divisors only) has it in its key as well,
// {"args": .., "split_policy": "factors", "template": ..}, so its records never mix with those of
// the full space; npu_task_from_key reads it back.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autotune/templates/npu_template.h"
#include "autotune/tuning_task.h"

namespace tessera {

struct NpuTask {
  const NpuTemplate* tmpl = nullptr;
  nlohmann::json args;  // canonical
  npu::Target target;
  autotune::TuningTask tuning;  // key, space (with the footprint check); knob + template features
  autotune::SplitPolicy split_policy = autotune::SplitPolicy::kAll;
  WorkBounder work_bound;  // empty when the template has none (NpuTemplate::work_bound)
};

// ConfigError for an unknown template; ArgumentError for bad arguments.
NpuTask make_npu_task(const std::string& tmpl, const nlohmann::json& args,
                      const npu::Target& target,
                      autotune::SplitPolicy split_policy = autotune::SplitPolicy::kAll);
// From a task key ({"template": .., "args": ..}): what a farm worker and transfer_groups use.
// ConfigError naming what is missing for a key that is not one.
NpuTask npu_task_from_key(const nlohmann::json& key, const npu::Target& target);

// The template's shape-aware default. Under the `factors` policy: the full space's default with
// each split factor rounded down to the largest divisor candidate (smaller tiles need no more
// on-chip memory, so a default that fits still fits).
autotune::Config default_config(const NpuTask& task);
NpuOp build_npu_op(const NpuTask& task, const autotune::Config& config);
OnchipFootprint footprint(const NpuTask& task, const autotune::Config& config);

// The configs of the space that pass its validity check, counted by visiting every index (for
// reports; linear in the space's size).
uint64_t count_valid_configs(const autotune::ConfigSpace& space);

// A sound lower bound on the timing simulator's cycles for the config's kernel, from the task and
// config alone (cycles_bound.h), or nullopt when the template has none. ConfigError for a config
// outside the space.
std::optional<CyclesBound> cycles_lower_bound(const NpuTask& task, const autotune::Config& config);
// Every valid config of the space (index order) with its bound: (index, cycles). ConfigError
// when the template has no bound.
std::vector<std::pair<uint64_t, uint64_t>> valid_config_bounds(const NpuTask& task);

}  // namespace tessera
