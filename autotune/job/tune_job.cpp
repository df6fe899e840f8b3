#include "autotune/job/tune_job.h"

#include <iostream>
#include <optional>

#include "autotune/default_first_tuner.h"
#include "autotune/job/task_bound.h"
#include "autotune/local_executor.h"
#include "autotune/read_tuning_log.h"
#include "autotune/templates/measure_npu.h"
#include "autotune/transfer_groups.h"
#include "autotune/tuning_log_writer.h"

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

  // What the searches read and write stays fixed for the whole job: one lock on the log, one
  // read of it.
  TuneOptions common;
  common.trials = options.trials;
  common.batch_size = options.batch_size;
  common.early_stopping = options.early_stopping;
  common.log_path = options.log_path;
  common.warn = warn;
  check_tune_options(common);
  std::optional<TuningLogWriter> writer;
  std::optional<TuningLog> log;
  if (!options.log_path.empty()) {
    writer.emplace(options.log_path);
    if (writer->cut_bytes() > 0)
      warn(str("tuning log ", options.log_path, ": its last line was cut short (a job killed ",
               "while writing?); its ", writer->cut_bytes(), " bytes were removed and that trial ",
               "will be measured again"));
    log = read_tuning_log(options.log_path, TargetId::of(workloads.tasks.front().task.target));
    for (const std::string& m : log->warnings) warn(m);
  }

  struct Job {
    TuneJobTask result;
    Config first;
    std::unique_ptr<Tuner> tuner;
    std::unique_ptr<TuneSearch> search;
    TuneJobProgress progress;
  };
  std::vector<Job> jobs(workloads.tasks.size());
  for (size_t i = 0; i < workloads.tasks.size(); ++i) {
    const Workload& w = workloads.tasks[i];
    const NpuTask& task = w.task;
    Job& job = jobs[i];
    TuneJobTask& result = job.result;
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
    job.first = default_config(task);
    if (task.tuning.space.is_valid(job.first)) {
      job.tuner = std::make_unique<DefaultFirstTuner>(task.tuning, std::move(inner), job.first);
    } else {
      warn(str("task '", w.id, "': its default config ", task.tuning.space.to_text(job.first),
               " does not pass the space's validity check; the search starts without it"));
      job.tuner = std::move(inner);
    }

    TuneJobProgress& p = job.progress;
    p.task = i;
    p.tasks = workloads.tasks.size();
    p.id = w.id;
    p.bound_cycles = result.bound_cycles;
    p.tune.total = options.trials;
    if (options.progress) options.progress(p);

    TuneOptions o = common;
    if (options.on_internal_error)
      o.on_internal_error = [&options, &w](const Trial& t) { options.on_internal_error(w.id, t); };
    job.search = std::make_unique<TuneSearch>(task.tuning, task.target, *job.tuner, o,
                                              log ? &*log : nullptr);
    if (options.progress) {
      const TuneSearch* search = job.search.get();
      TuneJobProgress* jp = &job.progress;
      job.search->set_progress([&options, search, jp](const TuneProgress& tp) {
        jp->tune = tp;
        jp->finished = search->finished();
        options.progress(*jp);
      });
    }
  }

  // The rounds.
  for (;;) {
    std::vector<size_t> active;     // tasks with a batch this round, in file order
    std::vector<MeasureBatch> batches;
    std::vector<size_t> measured;   // for each of `batches`, its task
    for (size_t i = 0; i < jobs.size(); ++i) {
      Job& job = jobs[i];
      if (job.search->finished()) continue;
      const MeasureBatch* b = job.search->propose();
      if (!b) {  // the tuner has no config left
        if (options.progress) {
          job.progress.finished = true;
          options.progress(job.progress);
        }
        continue;
      }
      active.push_back(i);
      if (!b->configs.empty()) {
        batches.push_back(*b);
        measured.push_back(i);
      }
    }
    if (active.empty()) break;
    std::vector<std::vector<MeasureResult>> results;
    if (!batches.empty()) results = executor.measure_many(batches);
    TESSERA_ICHECK(results.size() == batches.size(), "executor returned results for ",
                   results.size(), " batches of ", batches.size());
    std::vector<LogRecord> fresh;
    size_t next = 0;
    for (size_t i : active) {
      std::vector<MeasureResult> mine;
      if (next < measured.size() && measured[next] == i) mine = std::move(results[next++]);
      std::vector<LogRecord> records = jobs[i].search->record(std::move(mine));
      fresh.insert(fresh.end(), std::make_move_iterator(records.begin()),
                   std::make_move_iterator(records.end()));
    }
    if (writer && !fresh.empty()) writer->append(fresh);
    for (size_t i : active) jobs[i].search->observe();
  }

  std::vector<TuneJobTask> out;
  for (Job& job : jobs) {
    TuneJobTask result = std::move(job.result);
    result.report = job.search->take_report();
    if (!result.report.trials.empty() && result.report.trials.front().config == job.first)
      result.default_result = result.report.trials.front().result;
    else
      result.default_result = MeasureResult::failure(MeasureStatus::kInvalidConfig,
                                                     "the default config was not measured");
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace tessera::autotune
