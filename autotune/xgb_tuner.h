// The model-guided tuner (as AutoTVM's XGBTuner): an XGBoost ranking model (cost_model.h),
// retrained on everything measured after each batch, steers a parallel simulated annealing
// (simulated_annealing.h) over the space. The batch is taken from the best configs the search
// found, best first, skipping any within `diversity` knobs of one already taken (a second pass
// fills the batch without that filter if too few are left), and an `epsilon` share of the batch
// is random configs, so that a wrong model cannot starve a region of the space.
//
// Past AutoTVM's XGBTuner (whose first batch is random): before the model has data (no group
// with two different labels) the search runs on the task's a-priori estimate (TuningTask::estimate,
// an NPU template's analytic cycles model), with the same annealing, diversity filter and epsilon
// share; and the model starts from the estimate (cost_model.h, prior) and learns corrections. On
// the NPU templates the estimate's best configs are close to the optimum (benchmarks/tuner), so
// the first batch is good and gives the model data where it matters. A task without an estimate
// gets random configs until the model has data. Transfer: `transfer` groups (other tasks'
// records, one group per task, with features of the same length as this task's) are part of
// every fit, so the model is used from the first batch. Chains start from the best configs
// measured so far, the previous search's end states and random configs; the model's seed is ours.
#pragma once

#include <unordered_map>

#include "autotune/cost_model.h"
#include "autotune/proposal_set.h"
#include "autotune/simulated_annealing.h"
#include "autotune/tuner.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

struct XgbTunerOptions {
  CostModelOptions model;  // its seed is replaced by the tuner's
  AnnealingOptions annealing;
  double epsilon = 0.05;
  size_t diversity = 2;  // minimum number of differing knobs between two model picks
  std::vector<TrainingGroup> transfer;
};

class XgbTuner : public Tuner {
 public:
  XgbTuner(const TuningTask& task, uint64_t seed, XgbTunerOptions options = {});
  const char* name() const override { return "xgb"; }
  uint64_t seed() const override { return seed_; }
  std::vector<Config> propose(size_t n) override;
  void observe(const std::vector<Trial>& trials) override;

  const CostModel& model() const { return model_; }

 private:
  void retrain();
  std::vector<float> score(const std::vector<Config>& configs);
  std::vector<float> prior(const std::vector<Config>& configs) const;
  std::vector<Config> start_states();

  const TuningTask& task_;
  XgbTunerOptions options_;
  uint64_t seed_;
  CostModel model_;
  ProposalSet proposed_;
  Rng rng_;
  std::vector<Trial> measured_;
  std::vector<Config> chains_;
  std::unordered_map<uint64_t, std::vector<float>> features_;  // by index; looked up only
};

}  // namespace tessera::autotune
