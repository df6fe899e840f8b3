#include "autotune/tune.h"

#include <algorithm>
#include <iostream>
#include <map>

#include "autotune/compiler_version.h"
#include "autotune/errors.h"
#include "autotune/read_tuning_log.h"
#include "autotune/tuning_log_writer.h"

namespace tessera::autotune {

namespace {

void warn_on_stderr(const std::string& message) {
  std::cerr << "tessera: warning: " << message << std::endl;
}

struct Search {
  const TuningTask& task;
  const Tuner& tuner;
  const TuneOptions& options;
  std::string key;

  std::string describe_trial(const Trial& t) const {
    return str("trial ", t.index, " of task ", key, " (tuner ", tuner.name(), ", seed ",
               tuner.seed(), ")");
  }
};

// The logged trials of this search, by trial index.
std::map<int64_t, LogRecord> logged_trials(const Search& s, const TargetId& target,
                                           const std::function<void(const std::string&)>& warn) {
  std::map<int64_t, LogRecord> logged;
  TuningLog log = read_tuning_log(s.options.log_path, target);
  for (const auto& w : log.warnings) warn(w);
  bool other_compiler = false;
  for (const LogRecord& r : log.records) {
    if (r.task.dump() != s.key || r.tuner != s.tuner.name() || r.seed != s.tuner.seed()) continue;
    auto [it, fresh] = logged.emplace(r.trial, r);
    if (!fresh)
      warn(str(log.path, ":", r.line, ": trial ", r.trial,
               " of this search is logged again (first ", "at line ", it->second.line,
               "); the first is used"));
    other_compiler = other_compiler || r.compiler != compiler_version();
  }
  if (other_compiler)
    warn(str("tuning log ", log.path, " has trials of this search written by another compiler ",
             "version (this is ", compiler_version(), "); their results are reused as they are"));
  return logged;
}

bool better(const TuningTask& task, const Trial& a, const Trial& b) {
  if (a.result.cycles != b.result.cycles) return a.result.cycles < b.result.cycles;
  return task.space.to_text(a.config) < task.space.to_text(b.config);
}

}  // namespace

TuneReport tune(const TuningTask& task, const npu::Target& target, Tuner& tuner, Executor& executor,
                const TuneOptions& options) {
  if (options.trials < 0) throw UserError(str("tune: trials ", options.trials, " < 0"));
  if (options.batch_size < 1)
    throw UserError(str("tune: batch size must be at least 1, not ", options.batch_size));
  if (options.early_stopping < 0)
    throw UserError(str("tune: early stopping ", options.early_stopping, " < 0 (0 turns it off)"));
  const auto warn = options.warn ? options.warn : warn_on_stderr;
  const Search search{task, tuner, options, task.key_text()};
  const auto loud =
      options.on_internal_error ? options.on_internal_error : [&search](const Trial& t) {
        std::cerr << "tessera: INTERNAL ERROR (a bug in tessera) measuring "
                  << search.describe_trial(t) << ", config " << search.task.space.to_text(t.config)
                  << ": " << t.result.message << std::endl;
      };
  const TargetId target_id = TargetId::of(target);

  std::map<int64_t, LogRecord> logged;
  std::optional<TuningLogWriter> writer;
  if (!options.log_path.empty()) {
    // Lock the log first, so that no other job appends between reading and writing.
    writer.emplace(options.log_path);
    if (writer->cut_bytes() > 0)
      warn(str("tuning log ", options.log_path, ": its last line was cut short (a job killed ",
               "while writing?); its ", writer->cut_bytes(), " bytes were removed and that trial ",
               "will be measured again"));
    logged = logged_trials(search, target_id, warn);
  }

  auto known = std::make_shared<FingerprintCache>();
  TuneReport report;
  int64_t done = 0;
  int64_t improved_at = 0;  // trials done when the best last improved
  while (done < options.trials) {
    const auto want = static_cast<size_t>(std::min(options.batch_size, options.trials - done));
    std::vector<Config> configs = tuner.propose(want);
    TESSERA_ICHECK(configs.size() <= want, "tuner ", tuner.name(), " proposed ", configs.size(),
                   " configs for a batch of ", want);
    if (configs.empty()) {
      report.exhausted = true;
      break;
    }
    std::vector<Trial> batch(configs.size());
    MeasureBatch to_measure{task, target, {}, {}, known};
    std::vector<size_t> measured_slots;
    for (size_t i = 0; i < configs.size(); ++i) {
      Trial& t = batch[i];
      t.index = done + static_cast<int64_t>(i);
      t.config = std::move(configs[i]);
      TESSERA_ICHECK(task.space.is_valid(t.config), "tuner ", tuner.name(), " proposed config ",
                     task.space.to_text(t.config), ", which the validity check rejects");
      auto it = logged.find(t.index);
      if (it == logged.end()) {
        to_measure.configs.push_back(t.config);
        to_measure.trials.push_back(t.index);
        measured_slots.push_back(i);
        continue;
      }
      const std::string proposed = task.space.to_text(t.config);
      if (it->second.config.dump() != proposed)
        throw TuningLogError(
            str("tuning log ", options.log_path, " line ", it->second.line, ": ",
                search.describe_trial(t), " is config ", it->second.config.dump(),
                " but the resumed search proposes ", proposed,
                ": the log was written by a search with "
                "other arguments (batch size, tuner options, config space); resume with the same "
                "arguments or use another log"));
      t.result = it->second.result;
      ++report.resumed;
    }
    if (!to_measure.configs.empty()) {
      std::vector<MeasureResult> results = executor.measure(to_measure);
      TESSERA_ICHECK(results.size() == measured_slots.size(), "executor returned ", results.size(),
                     " results for ", measured_slots.size(), " configs");
      for (size_t k = 0; k < results.size(); ++k) batch[measured_slots[k]].result = results[k];
      report.measured += static_cast<int64_t>(results.size());
    }

    // Everything below runs in trial order.
    std::vector<LogRecord> fresh;
    const std::string now = utc_timestamp();
    for (Trial& t : batch) {
      const bool was_logged = logged.count(t.index) > 0;
      MeasureResult resolved = known->resolve(t.index, t.result);
      if (!was_logged) {
        t.result = std::move(resolved);
        LogRecord r;
        r.compiler = compiler_version();
        r.target = target_id;
        r.task = task.key;
        r.tuner = tuner.name();
        r.seed = tuner.seed();
        r.trial = t.index;
        r.config = task.space.to_json(t.config);
        r.result = t.result;
        r.timestamp = now;
        fresh.push_back(std::move(r));
        if (t.result.status == MeasureStatus::kInternalError) loud(t);
      }
      if (t.result.status == MeasureStatus::kInternalError) report.internal_errors.push_back(t);
      ++report.by_status[static_cast<size_t>(t.result.status)];
      if (t.result.ok() && (!report.best || better(task, t, *report.best))) {
        if (!report.best || t.result.cycles < report.best->result.cycles) improved_at = t.index + 1;
        report.best = t;
      }
    }
    if (writer) writer->append(fresh);
    tuner.observe(batch);
    done += static_cast<int64_t>(batch.size());
    report.trials.insert(report.trials.end(), batch.begin(), batch.end());
    if (options.progress) {
      TuneProgress p;
      p.trials = done;
      p.total = options.trials;
      p.best_cycles = report.best ? report.best->result.cycles : 0;
      p.errors = done - report.by_status[static_cast<size_t>(MeasureStatus::kOk)];
      options.progress(p);
    }
    if (options.early_stopping > 0 && done - improved_at >= options.early_stopping) {
      report.early_stopped = true;
      break;
    }
  }
  return report;
}

}  // namespace tessera::autotune
