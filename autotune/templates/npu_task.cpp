#include "autotune/templates/npu_task.h"

#include "autotune/errors.h"
#include "runtime/base/error.h"

namespace tessera {

NpuTask make_npu_task(const std::string& tmpl, const nlohmann::json& args,
                      const npu::Target& target) {
  NpuTask t;
  t.tmpl = &npu_template(tmpl);
  t.args = t.tmpl->canonical_args(args);
  t.target = target;
  t.tuning.key = {{"template", t.tmpl->name}, {"args", t.args}};
  t.tuning.space = t.tmpl->space(t.args, target);
  return t;
}

NpuTask npu_task_from_key(const nlohmann::json& key, const npu::Target& target) {
  if (!key.is_object() || !key.contains("template") || !key["template"].is_string() ||
      !key.contains("args")) {
    throw autotune::ConfigError(
        str("task key ", key.dump(), " is not {\"template\": name, \"args\": {...}}"));
  }
  return make_npu_task(key["template"].get<std::string>(), key["args"], target);
}

autotune::Config default_config(const NpuTask& task) {
  return task.tmpl->default_config(task.args, task.tuning.space, task.target);
}

NpuOp build_npu_op(const NpuTask& task, const autotune::Config& config) {
  if (!task.tuning.space.in_domain(config)) task.tuning.space.index_of(config);  // ConfigError
  return task.tmpl->build(task.args, task.tuning.space, config, task.target);
}

OnchipFootprint footprint(const NpuTask& task, const autotune::Config& config) {
  if (!task.tuning.space.in_domain(config)) task.tuning.space.index_of(config);
  return task.tmpl->footprint(task.args, task.tuning.space, config, task.target);
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
