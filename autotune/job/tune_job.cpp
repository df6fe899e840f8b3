#include "autotune/job/tune_job.h"

#include <iostream>
#include <optional>

#include "autotune/default_first_tuner.h"
#include "autotune/job/task_bound.h"
#include "autotune/local_executor.h"
#include "autotune/read_tuning_log.h"
#include "autotune/templates/measure_npu.h"
#include "autotune/transfer_groups.h"

namespace tessera::autotune {

namespace {

void check_one_target(const Workloads& w) {
  const TargetId first = TargetId::of(w.tasks.front().task.target);
  for (const Workload& t : w.tasks)
    if (TargetId::of(t.task.target) != first)
      throw UserError(str("tuning job on ", w.path, ": task '", w.tasks.front().id, "' is for ",
                          first.text(), " but task '", t.id, "' for ",
                          TargetId::of(t.task.target).text(),
                          "; a tuning log holds one target: tune each target's tasks into its "
                          "own log"));
}

}  // namespace

std::vector<TuneJobTask> tune_job(const Workloads& workloads, const TuneJobOptions& options) {
  if (workloads.tasks.empty()) throw UserError(str("tuning job on ", workloads.path, ": no task"));
  if (options.trials < 1)
    throw UserError(str("tuning job: trials per task must be at least 1 (the default config's "
                        "trial), not ", options.trials));
  if (options.workers < 1)
    throw UserError(str("tuning job: workers must be at least 1, not ", options.workers));
  if (!options.log_path.empty()) check_one_target(workloads);
  const auto warn = options.warn ? options.warn : [](const std::string& m) {
    std::cerr << "tessera: warning: " << m << std::endl;
  };

  std::optional<TuningLog> transfer;
  if (!options.transfer_log.empty()) {
    transfer = read_tuning_log(options.transfer_log,
                               TargetId::of(workloads.tasks.front().task.target));
    for (const std::string& w : transfer->warnings) warn(w);
  }

  LocalExecutorOptions eo;
  eo.workers = options.workers;
  eo.timeout_seconds = options.timeout_seconds;
  std::shared_ptr<Executor> local;
  if (!options.executor) local = std::make_shared<LocalExecutor>(measure_npu, eo);
  Executor& executor = options.executor ? *options.executor : *local;

  std::vector<TuneJobTask> out;
  for (size_t i = 0; i < workloads.tasks.size(); ++i) {
    const Workload& w = workloads.tasks[i];
    const NpuTask& task = w.task;
    TuneJobTask result;
    result.id = w.id;
    result.key = task.tuning.key_text();
    result.bound_cycles = task_bound_cycles(task);

    TunerOptions to = options.tuner_options;
    if (transfer && options.tuner == TunerKind::kXgb) {
      const npu::Target& target = task.target;
      TransferGroups g = transfer_groups(
          transfer->records,
          [&target, &task](const nlohmann::json& key) -> std::optional<TuningTask> {
            // Features carry across the shapes of one template, not across templates.
            if (!key.is_object() || key.value("template", "") != task.tmpl->name)
              return std::nullopt;
            try {
              return npu_task_from_key(key, target).tuning;
            } catch (const UserError&) {
              return std::nullopt;  // a task of no NPU template (a Python one): not transfer
            }
          },
          result.key, options.transfer_log);
      for (const std::string& m : g.warnings) warn(m);
      result.transfer_groups = static_cast<int64_t>(g.groups.size());
      to.xgb.transfer = std::move(g.groups);
    }
    std::unique_ptr<Tuner> inner = make_tuner(options.tuner, task.tuning, options.seed, to);
    const Config first = default_config(task);
    std::unique_ptr<Tuner> tuner;
    if (task.tuning.space.is_valid(first)) {
      tuner = std::make_unique<DefaultFirstTuner>(task.tuning, std::move(inner), first);
    } else {
      warn(str("task '", w.id, "': its default config ", task.tuning.space.to_text(first),
               " does not pass the space's validity check; the search starts without it"));
      tuner = std::move(inner);
    }

    TuneJobProgress p;
    p.task = i;
    p.tasks = workloads.tasks.size();
    p.id = w.id;
    p.bound_cycles = result.bound_cycles;
    p.tune.total = options.trials;
    if (options.progress) options.progress(p);

    TuneOptions o;
    o.trials = options.trials;
    o.batch_size = options.batch_size;
    o.early_stopping = options.early_stopping;
    o.log_path = options.log_path;
    o.warn = warn;
    if (options.on_internal_error)
      o.on_internal_error = [&options, &w](const Trial& t) { options.on_internal_error(w.id, t); };
    if (options.progress)
      o.progress = [&options, p](const TuneProgress& tp) mutable {
        p.tune = tp;
        options.progress(p);
      };
    result.report = tune(task.tuning, task.target, *tuner, executor, o);
    if (!result.report.trials.empty() && result.report.trials.front().config == first)
      result.default_result = result.report.trials.front().result;
    else
      result.default_result = MeasureResult::failure(MeasureStatus::kInvalidConfig,
                                                     "the default config was not measured");
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace tessera::autotune
