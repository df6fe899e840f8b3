// A tuning job: every task of a workloads file (workloads.h) tuned in turn, into one tuning log.
// The core a farm worker or the `tessera tune` command runs; no Python needed.
//
// For each task, in file order, one search (tune.h) of `trials` trials: trial 0 is the
// template's default config (DefaultFirstTuner), so the tuned result is never worse than the
// default and the log shows what tuning gained; then the chosen tuner (xgb, random, grid, ga)
// seeded with `seed`, in batches of `batch_size`, stopping early after `early_stopping` trials
// without improvement (0: never). Measurement: measure_npu on one local pool of `workers`
// threads with a per-measurement limit. With a log, each task's search resumes from it (a job
// killed at any moment and run again with the same arguments ends with the same log as an
// uninterrupted one). With a transfer log, the xgb model of each task is warm-started from the
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
  std::function<void(const TuneJobProgress&)> progress;  // before each task and after each batch
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
