// A tuning job: every task of a workloads file (workloads.h) tuned together, into one tuning log.
// The core a farm worker or the `tessera tune` command runs; no Python needed.
//
// For each task one search (tune.h) of `trials` trials: trial 0 is the
// template's default config (DefaultFirstTuner), so the tuned result is never worse than the
// default and the log shows what tuning gained; then the chosen tuner (xgb, random, grid, ga)
// seeded with `seed`, in batches of `batch_size`, stopping early after `early_stopping` trials
// without improvement (0: never). Measurement: measure_npu on one local pool of `workers`
// threads with a per-measurement limit, or another executor (a farm's).
//
// Rounds: the searches advance together. Each round takes the next batch of every search not
// yet over (TuneSearch::propose) and measures all of them with ONE executor call
// (Executor::measure_many), so that the workers measure the configs of every task of the round
// without waiting at the end of one task's batch for its slowest measurement. Then, in
// workloads-file order, each search records its batch (resolved in trial order); the round's
// records are appended to the log with one write and one fsync, tasks in file order and each
// task's batch in trial order; then each tuner observes its batch, progress is reported and
// early stopping is checked, per task (a task that stops early leaves the rounds; the others go
// on). Each search proposes exactly what it would alone (its tuner sees only its own batches),
// so every task's trials and results are those of tuning it alone with tune(); the log's order
// depends on the workloads and the arguments only, never on the executor or its workers.
//
// With a log, each task's search resumes from it: the log on disk is always a prefix of the
// uninterrupted job's record sequence (appends are sequential; a line cut short by a kill is
// removed on opening), a rerun proposes the same rounds, takes each trial the log has and
// measures and appends the missing ones in the same order, so a job killed at any moment (in
// the middle of a round's measurements or of its write) and run again with the same arguments
// ends with the same log as an uninterrupted one (timestamps aside). With a transfer log, the xgb model of each task is warm-started from the
// records of the other tasks of the same template in it (transfer_groups.h: features carry
// across shapes, not across templates); the task's own records are not transfer.
//
// One log holds one target (read_tuning_log.h): a job whose tasks are for several targets and
// that writes a log is a UserError naming two tasks that differ.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotune/executor.h"
#include "autotune/job/workloads.h"
#include "autotune/make_tuner.h"
#include "autotune/tune.h"

namespace tessera::autotune {

struct TuneJobProgress {
  size_t task = 0;   // index in the workloads file
  size_t tasks = 0;  // how many
  std::string id;
  double bound_cycles = 0;  // the task's true-work bound (task_bound.h)
  TuneProgress tune;        // of this task's search
  bool finished = false;    // the task's search is over (budget, early stopping, no config left)
};

struct TuneJobOptions {
  TunerKind tuner = TunerKind::kXgb;
  TunerOptions tuner_options;  // transfer groups are set per task from transfer_log
  uint64_t seed = 0;
  int64_t trials = 64;  // per task, the default's trial 0 included
  int64_t batch_size = 8;
  int64_t early_stopping = 0;
  std::string log_path;      // empty: no log, no resume
  std::string transfer_log;  // empty: no transfer
  int workers = 1;
  double timeout_seconds = 0;  // per measurement; 0: none
  // Another executor (a farm: python/tessera/autotune/farm.py) instead of the local pool of
  // `workers` threads; `workers` and `timeout_seconds` then belong to that executor.
  std::shared_ptr<Executor> executor;
  std::function<void(const std::string&)> warn;          // default: stderr
  // Called with the task's id as each internal error happens; default: stderr (tune.h).
  std::function<void(const std::string& id, const Trial&)> on_internal_error;
  // For every task in file order before the first round (trials 0), then after each batch of a
  // task (in a round, tasks in file order), and once with `finished` when a task's search ends
  // because its tuner has no config left.
  std::function<void(const TuneJobProgress&)> progress;
};

struct TuneJobTask {
  std::string id;
  std::string key;  // the task key's canonical text
  double bound_cycles = 0;
  // Trial 0: the default config's result (its cycles, or why it failed).
  MeasureResult default_result;
  TuneReport report;
  int64_t transfer_groups = 0;  // tasks of the transfer log that warm-started the model
};

std::vector<TuneJobTask> tune_job(const Workloads& workloads, const TuneJobOptions& options);

}  // namespace tessera::autotune
