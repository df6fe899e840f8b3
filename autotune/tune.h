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
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/executor.h"
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

}  // namespace tessera::autotune
