// The tuning driver: tunes one task for a number of trials with a tuner, an executor and a log.
//
// Loop: the tuner proposes a batch; each config gets the next trial index; the executor measures
// it; results are resolved against earlier identical kernels (fingerprint_cache.h), appended to
// the log (one write + fsync per batch) and observed by the tuner, all in trial order, so the
// log does not depend on the executor or its number of workers. Internal errors are recorded like
// any result and reported loudly (on_internal_error; by default on stderr) as they happen.
//
// Stopping: after `trials` trials in all, when the space has no config left, or (early_stopping
// > 0) when the best has not improved for that many trials (checked after each batch).
//
// Resume: a search is (task, tuner name, seed). The log's records of this search are its trials
// so far; since the tuner is deterministic, the driver re-drives the same search, feeding the
// logged result of each trial instead of measuring it, and measures only trials missing from the
// log. A job killed at any moment and restarted with the same arguments therefore continues the
// same search, with no trial lost or duplicated, and its final log equals an uninterrupted run's
// (timestamps aside). A logged trial whose config is not the one the search proposes (another
// batch size or tuner option, a changed space) is a TuningLogError naming the file and line.
//
// Stepping: TuneSearch is that loop taken apart, one batch at a time (propose, record, observe),
// so that a caller can measure the batches of several searches together (a tuning job's rounds,
// autotune/job/tune_job.h). tune() is a TuneSearch driven alone; every guarantee above holds for
// a TuneSearch whose records are appended as record() returns them, in the order of its batches.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotune/executor.h"
#include "autotune/log_record.h"
#include "autotune/read_tuning_log.h"
#include "autotune/tuner.h"

namespace tessera::autotune {

struct TuneProgress {
  int64_t trials = 0;       // done so far (resumed included)
  int64_t total = 0;        // the budget
  int64_t best_cycles = 0;  // 0 while no config has run
  int64_t errors = 0;       // trials that did not run
};

struct TuneOptions {
  int64_t trials = 256;  // total trials of the search, resumed ones included
  int64_t batch_size = 32;
  int64_t early_stopping = 0;  // trials without improvement before stopping; 0 = never
  std::string log_path;        // empty: no log, no resume
  // Defaults: warnings and internal errors on stderr.
  std::function<void(const std::string&)> warn;
  std::function<void(const Trial&)> on_internal_error;
  std::function<void(const TuneProgress&)> progress;  // after each batch
};

struct TuneReport {
  std::vector<Trial> trials;  // every trial of the search, in order (resumed ones included)
  int64_t resumed = 0;        // trials taken from the log
  int64_t measured = 0;       // trials measured by this run
  std::optional<Trial> best;  // fewest cycles; ties: canonical config text
  bool early_stopped = false;
  bool exhausted = false;              // the tuner had no config left
  std::array<int64_t, 6> by_status{};  // trial count per MeasureStatus
  std::vector<Trial> internal_errors;
};

TuneReport tune(const TuningTask& task, const npu::Target& target, Tuner& tuner, Executor& executor,
                const TuneOptions& options);

// UserError when the options cannot run (negative trials or early stopping, batch size < 1):
// what tune() and TuneSearch check first, before any log is opened.
void check_tune_options(const TuneOptions& options);

// One search, stepped by its caller:
//   while (const MeasureBatch* b = s.propose()) {
//     results = b->configs.empty() ? {} : executor.measure(*b);
//     writer.append(s.record(results));   // in trial order
//     s.observe();                         // the tuner learns; progress; stopping
//   }
// `log`: the records of the tuning log (read after locking it, so that nothing is appended in
// between), of which this search takes its own to resume; null without a log. options.log_path
// names the log in messages; options.warn gets this search's warnings about its records (the
// log's own warnings, log->warnings, are the reader's to report). Not copyable or movable: the
// batch it hands out refers to it.
class TuneSearch {
 public:
  TuneSearch(const TuningTask& task, const npu::Target& target, Tuner& tuner, TuneOptions options,
             const TuningLog* log);
  TuneSearch(const TuneSearch&) = delete;
  TuneSearch& operator=(const TuneSearch&) = delete;

  bool finished() const { return finished_; }
  // The next batch's trials that the log does not have, to measure (possibly none: a batch
  // resumed whole); null when the search is over (budget, early stopping, or the tuner has no
  // config left: report().exhausted). Proposing again before record() is an internal error.
  const MeasureBatch* propose();
  // The results of the batch's configs to measure, in its order: resolves the whole batch in
  // trial order (fingerprint_cache.h) and returns the records to append to the log (the
  // measured trials', in trial order). Internal errors are reported as they are recorded.
  std::vector<LogRecord> record(std::vector<MeasureResult> results);
  // The tuner observes the batch; progress; early stopping. After the records are written.
  void observe();

  const TuneReport& report() const { return report_; }
  TuneReport take_report() { return std::move(report_); }
  const TuneOptions& options() const { return options_; }
  // Replaces options.progress (a caller's callback that reads the search, say finished()).
  void set_progress(std::function<void(const TuneProgress&)> progress) {
    options_.progress = std::move(progress);
  }

 private:
  enum class Step { kPropose, kRecord, kObserve };
  std::string describe_trial(const Trial& t) const;

  const TuningTask& task_;
  const npu::Target& target_;
  Tuner& tuner_;
  TuneOptions options_;
  std::string key_;
  TargetId target_id_;
  std::map<int64_t, LogRecord> logged_;
  std::shared_ptr<FingerprintCache> known_;
  TuneReport report_;
  int64_t done_ = 0;
  int64_t improved_at_ = 0;  // trials done when the best last improved
  bool finished_ = false;
  Step step_ = Step::kPropose;
  std::vector<Trial> batch_;
  std::vector<size_t> measured_slots_;  // batch_ slots of to_measure_'s configs
  std::optional<MeasureBatch> to_measure_;
};

}  // namespace tessera::autotune
