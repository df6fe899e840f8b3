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


// The logged trials of one search, by trial index.
std::map<int64_t, LogRecord> logged_trials(const TuningLog& log, const std::string& key,
                                           const Tuner& tuner,
                                           const std::function<void(const std::string&)>& warn) {
  std::map<int64_t, LogRecord> logged;
  bool other_compiler = false;
  for (const LogRecord& r : log.records) {
    if (r.task.dump() != key || r.tuner != tuner.name() || r.seed != tuner.seed()) continue;
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

void check_tune_options(const TuneOptions& o) {
  if (o.trials < 0) throw UserError(str("tune: trials ", o.trials, " < 0"));
  if (o.batch_size < 1)
    throw UserError(str("tune: batch size must be at least 1, not ", o.batch_size));
  if (o.early_stopping < 0)
    throw UserError(str("tune: early stopping ", o.early_stopping, " < 0 (0 turns it off)"));
}

TuneSearch::TuneSearch(const TuningTask& task, const npu::Target& target, Tuner& tuner,
                       TuneOptions options, const TuningLog* log)
    : task_(task),
      target_(target),
      tuner_(tuner),
      options_(std::move(options)),
      key_(task.key_text()),
      target_id_(TargetId::of(target)),
      known_(std::make_shared<FingerprintCache>()) {
  check_tune_options(options_);
  if (!options_.warn) options_.warn = warn_on_stderr;
  if (!options_.on_internal_error)
    options_.on_internal_error = [this](const Trial& t) {
      std::cerr << "tessera: INTERNAL ERROR (a bug in tessera) measuring " << describe_trial(t)
                << ", config " << task_.space.to_text(t.config) << ": " << t.result.message
                << std::endl;
    };
  if (log) logged_ = logged_trials(*log, key_, tuner_, options_.warn);
  finished_ = options_.trials == 0;
}

std::string TuneSearch::describe_trial(const Trial& t) const {
  return str("trial ", t.index, " of task ", key_, " (tuner ", tuner_.name(), ", seed ",
             tuner_.seed(), ")");
}

const MeasureBatch* TuneSearch::propose() {
  TESSERA_ICHECK(step_ == Step::kPropose, "TuneSearch::propose() before the last batch of task ",
                 key_, " was recorded and observed");
  if (finished_) return nullptr;
  const auto want = static_cast<size_t>(std::min(options_.batch_size, options_.trials - done_));
  std::vector<Config> configs = tuner_.propose(want);
  TESSERA_ICHECK(configs.size() <= want, "tuner ", tuner_.name(), " proposed ", configs.size(),
                 " configs for a batch of ", want);
  if (configs.empty()) {
    report_.exhausted = true;
    finished_ = true;
    return nullptr;
  }
  batch_.assign(configs.size(), Trial{});
  measured_slots_.clear();
  to_measure_.emplace(MeasureBatch{task_, target_, {}, {}, known_});
  for (size_t i = 0; i < configs.size(); ++i) {
    Trial& t = batch_[i];
    t.index = done_ + static_cast<int64_t>(i);
    t.config = std::move(configs[i]);
    TESSERA_ICHECK(task_.space.is_valid(t.config), "tuner ", tuner_.name(), " proposed config ",
                   task_.space.to_text(t.config), ", which the validity check rejects");
    auto it = logged_.find(t.index);
    if (it == logged_.end()) {
      to_measure_->configs.push_back(t.config);
      to_measure_->trials.push_back(t.index);
      measured_slots_.push_back(i);
      continue;
    }
    const std::string proposed = task_.space.to_text(t.config);
    if (it->second.config.dump() != proposed)
      throw TuningLogError(
          str("tuning log ", options_.log_path, " line ", it->second.line, ": ",
              describe_trial(t), " is config ", it->second.config.dump(),
              " but the resumed search proposes ", proposed,
              ": the log was written by a search with "
              "other arguments (batch size, tuner options, config space); resume with the same "
              "arguments or use another log"));
    t.result = it->second.result;
    ++report_.resumed;
  }
  step_ = Step::kRecord;
  return &*to_measure_;
}

std::vector<LogRecord> TuneSearch::record(std::vector<MeasureResult> results) {
  TESSERA_ICHECK(step_ == Step::kRecord, "TuneSearch::record() of task ", key_,
                 " without a proposed batch");
  TESSERA_ICHECK(results.size() == measured_slots_.size(), "executor returned ", results.size(),
                 " results for ", measured_slots_.size(), " configs");
  for (size_t k = 0; k < results.size(); ++k)
    batch_[measured_slots_[k]].result = std::move(results[k]);
  report_.measured += static_cast<int64_t>(results.size());

  // Everything below runs in trial order.
  std::vector<LogRecord> fresh;
  const std::string now = utc_timestamp();
  for (Trial& t : batch_) {
    const bool was_logged = logged_.count(t.index) > 0;
    MeasureResult resolved = known_->resolve(t.index, t.result);
    if (!was_logged) {
      t.result = std::move(resolved);
      LogRecord r;
      r.compiler = compiler_version();
      r.target = target_id_;
      r.task = task_.key;
      r.tuner = tuner_.name();
      r.seed = tuner_.seed();
      r.trial = t.index;
      r.config = task_.space.to_json(t.config);
      r.result = t.result;
      r.timestamp = now;
      fresh.push_back(std::move(r));
      if (t.result.status == MeasureStatus::kInternalError) options_.on_internal_error(t);
    }
    if (t.result.status == MeasureStatus::kInternalError) report_.internal_errors.push_back(t);
    ++report_.by_status[static_cast<size_t>(t.result.status)];
    if (t.result.ok() && (!report_.best || better(task_, t, *report_.best))) {
      if (!report_.best || t.result.cycles < report_.best->result.cycles)
        improved_at_ = t.index + 1;
      report_.best = t;
    }
  }
  step_ = Step::kObserve;
  return fresh;
}

void TuneSearch::observe() {
  TESSERA_ICHECK(step_ == Step::kObserve, "TuneSearch::observe() of task ", key_,
                 " without a recorded batch");
  tuner_.observe(batch_);
  done_ += static_cast<int64_t>(batch_.size());
  report_.trials.insert(report_.trials.end(), batch_.begin(), batch_.end());
  batch_.clear();
  to_measure_.reset();
  step_ = Step::kPropose;
  if (done_ >= options_.trials) finished_ = true;
  if (options_.early_stopping > 0 && done_ - improved_at_ >= options_.early_stopping) {
    report_.early_stopped = true;
    finished_ = true;
  }
  if (options_.progress) {
    TuneProgress p;
    p.trials = done_;
    p.total = options_.trials;
    p.best_cycles = report_.best ? report_.best->result.cycles : 0;
    p.errors = done_ - report_.by_status[static_cast<size_t>(MeasureStatus::kOk)];
    options_.progress(p);
  }
}

TuneReport tune(const TuningTask& task, const npu::Target& target, Tuner& tuner, Executor& executor,
                const TuneOptions& options) {
  const auto warn = options.warn ? options.warn : warn_on_stderr;
  std::optional<TuningLogWriter> writer;
  std::optional<TuningLog> log;
  if (!options.log_path.empty()) {
    check_tune_options(options);  // bad options must not create a log file
    // Lock the log first, so that no other job appends between reading and writing.
    writer.emplace(options.log_path);
    if (writer->cut_bytes() > 0)
      warn(str("tuning log ", options.log_path, ": its last line was cut short (a job killed ",
               "while writing?); its ", writer->cut_bytes(), " bytes were removed and that trial ",
               "will be measured again"));
    log = read_tuning_log(options.log_path, TargetId::of(target));
    for (const auto& w : log->warnings) warn(w);
  }
  TuneSearch search(task, target, tuner, options, log ? &*log : nullptr);
  while (const MeasureBatch* batch = search.propose()) {
    std::vector<MeasureResult> results;
    if (!batch->configs.empty()) results = executor.measure(*batch);
    std::vector<LogRecord> fresh = search.record(std::move(results));
    if (writer) writer->append(fresh);
    search.observe();
  }
  return search.take_report();
}

}  // namespace tessera::autotune
