#include "autotune/templates/npu_task.h"

#include "autotune/errors.h"
#include "autotune/knob_features.h"
#include "autotune/templates/template_features.h"
#include "runtime/base/error.h"

namespace tessera {

NpuTask make_npu_task(const std::string& tmpl, const nlohmann::json& args,
                      const npu::Target& target, autotune::SplitPolicy split_policy) {
  NpuTask t;
  t.tmpl = &npu_template(tmpl);
  t.args = t.tmpl->canonical_args(args);
  t.target = target;
  t.split_policy = split_policy;
  t.tuning.key = {{"template", t.tmpl->name}, {"args", t.args}};
  if (split_policy != autotune::SplitPolicy::kAll)
    t.tuning.key["split_policy"] = autotune::split_policy_name(split_policy);
  t.tuning.space = t.tmpl->space(t.args, target).with_split_policy(split_policy);
  if (t.tmpl->featurizer) {
    autotune::Featurizer tf = t.tmpl->featurizer(t.args, target);
    t.tuning.featurize = [tf](const autotune::ConfigSpace& space, const autotune::Config& c) {
      std::vector<float> f = autotune::knob_features(space, c);
      std::vector<float> g = tf(space, c);
      f.insert(f.end(), g.begin(), g.end());
      return f;
    };
    // The template's analytic estimate of the config's cycles (over the layer's roofline bound,
    // the same for every config of the task, so the order is that of cycles).
    static const size_t kCycles = template_feature_index("model.cycles");
    t.tuning.estimate = [tf](const autotune::ConfigSpace& space, const autotune::Config& c) {
      return static_cast<double>(tf(space, c)[kCycles]);
    };
  }
  if (t.tmpl->work_bound) t.work_bound = t.tmpl->work_bound(t.args, target);
  return t;
}

NpuTask npu_task_from_key(const nlohmann::json& key, const npu::Target& target) {
  if (!key.is_object() || !key.contains("template") || !key["template"].is_string() ||
      !key.contains("args")) {
    throw autotune::ConfigError(
        str("task key ", key.dump(), " is not {\"template\": name, \"args\": {...}}"));
  }
  autotune::SplitPolicy policy = autotune::SplitPolicy::kAll;
  if (key.contains("split_policy")) {
    if (!key["split_policy"].is_string())
      throw autotune::ConfigError(str("task key ", key.dump(),
                                      ": \"split_policy\" must be \"all\" or \"factors\""));
    policy = autotune::parse_split_policy(key["split_policy"].get<std::string>());
  }
  return make_npu_task(key["template"].get<std::string>(), key["args"], target, policy);
}

autotune::Config default_config(const NpuTask& task) {
  if (task.split_policy == autotune::SplitPolicy::kAll)
    return task.tmpl->default_config(task.args, task.tuning.space, task.target);
  const autotune::ConfigSpace full = task.tmpl->space(task.args, task.target);
  nlohmann::json values = full.to_json(task.tmpl->default_config(task.args, full, task.target));
  for (const autotune::Knob& k : task.tuning.space.knobs()) {
    if (k.kind() != autotune::KnobKind::kSplit) continue;
    const int64_t want = values[k.name()].get<int64_t>();
    int64_t got = k.factor(0);
    for (uint32_t v = 0; v < k.size() && k.factor(v) <= want; ++v) got = k.factor(v);
    values[k.name()] = got;
  }
  return task.tuning.space.from_json(values);
}

NpuOp build_npu_op(const NpuTask& task, const autotune::Config& config) {
  if (!task.tuning.space.in_domain(config)) task.tuning.space.index_of(config);  // ConfigError
  return task.tmpl->build(task.args, task.tuning.space, config, task.target);
}

OnchipFootprint footprint(const NpuTask& task, const autotune::Config& config) {
  if (!task.tuning.space.in_domain(config)) task.tuning.space.index_of(config);
  return task.tmpl->footprint(task.args, task.tuning.space, config, task.target);
}

std::optional<CyclesBound> cycles_lower_bound(const NpuTask& task, const autotune::Config& config) {
  if (!task.work_bound) return std::nullopt;
  if (!task.tuning.space.in_domain(config)) task.tuning.space.index_of(config);  // ConfigError
  return cycles_lower_bound(task.target, task.work_bound(task.tuning.space, config));
}

std::vector<std::pair<uint64_t, uint64_t>> valid_config_bounds(const NpuTask& task) {
  if (!task.work_bound)
    throw autotune::ConfigError(str("template '", task.tmpl->name,
                                    "' has no cycles lower bound (NpuTemplate::work_bound)"));
  const autotune::ConfigSpace& space = task.tuning.space;
  autotune::Config c = space.at(0);
  const auto& knobs = space.knobs();
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t i = 0; i < space.size(); ++i) {
    if (space.is_valid(c))
      out.emplace_back(i, cycles_lower_bound(task.target, task.work_bound(space, c)).cycles);
    for (size_t k = knobs.size(); k-- > 0;) {
      if (++c.values[k] < knobs[k].size()) break;
      c.values[k] = 0;
    }
  }
  return out;
}

uint64_t count_valid_configs(const autotune::ConfigSpace& space) {
  // Index order (the last knob fastest) with one config counted up in place.
  autotune::Config c = space.at(0);
  const auto& knobs = space.knobs();
  uint64_t n = 0;
  for (uint64_t i = 0; i < space.size(); ++i) {
    n += space.is_valid(c);
    for (size_t k = knobs.size(); k-- > 0;) {
      if (++c.values[k] < knobs[k].size()) break;
      c.values[k] = 0;
    }
  }
  return n;
}

}  // namespace tessera
