// The cost model's training data: one query group per task, so that the ranking objective
// compares configs only within a task (transfer from other tasks adds their groups).
//
// Labels: higher is better. A config that ran gets best_cycles / cycles (1 for the group's best,
// in (0, 1] otherwise); one that could not run (invalid config, compile or simulation error,
// timeout) gets 0, below every config that ran. Internal errors say nothing about the config and
// are left out.
#pragma once

#include <vector>

#include "autotune/trial.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

struct TrainingGroup {
  std::vector<std::vector<float>> features;  // one row per config, all the same length
  std::vector<float> labels;
  // The rows' prior scores (prior_scores: from the task's a-priori estimate), or empty when the
  // task has none. The cost model starts from them and learns corrections (cost_model.h).
  std::vector<float> priors;
};

TrainingGroup make_training_group(const TuningTask& task, const std::vector<Trial>& trials);

// A config's prior score from the task's a-priori estimate (TuningTask::estimate): -ln(estimate),
// higher is better, a 10 % dearer estimate about 0.1 lower, whatever the task's scale. An
// estimate <= 0 (none an NPU template gives) scores 0.
float prior_score(double estimate);
// The scores of `configs`, or empty when the task has no estimate.
std::vector<float> prior_scores(const TuningTask& task, const std::vector<Config>& configs);

// The labels alone (one per trial; internal errors get -1 and are what make_training_group skips).
std::vector<float> ranking_labels(const std::vector<Trial>& trials);

}  // namespace tessera::autotune
