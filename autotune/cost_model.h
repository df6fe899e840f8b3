// The cost model: gradient-boosted trees (XGBoost, through its C API) with a ranking objective
// (rank:pairwise), one query group per task, so that it learns which of two configs of a task
// is faster rather than absolute cycles, and transfer across tasks ranks only within each task.
//
// Training is reproducible: a fixed thread count (XGBoost's results differ between nthread=1 and
// 2, so it is a parameter recorded by the caller, 1 by default) and a fixed seed. The model is
// retrained from scratch on every fit() (after each batch, on everything measured so far).
// Predictions are scores: higher is better; only their order means something.
//
// A prior (past AutoTVM's model): when every group has prior scores (TrainingGroup::priors, from
// the tasks' a-priori estimates), each row's score starts from prior_weight x its prior score
// (XGBoost's base margin) and the trees learn corrections to it, so that a model trained on few
// records, or on other tasks' records (transfer), ranks at least about as the estimate does where
// the records say nothing. predict() then needs the rows' prior scores too.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/training_group.h"

namespace tessera::autotune {

struct CostModelOptions {
  int nthread = 1;  // fixed: part of what makes a search reproducible
  uint64_t seed = 0;
  int rounds = 60;  // boosting rounds per fit
  // 3, not XGBoost's 6: on ResNet-18's conv2d layers (48 random configs each) shallow trees rank
  // a held-out layer's configs better from the other layers (pairwise accuracy, median over 10
  // held out: 0.892 -> 0.914) and within a layer (0.872 -> 0.885), docs/tuner_features.md.
  int max_depth = 3;
  double eta = 0.3;
  double min_child_weight = 0.0;
  double gamma = 0.0001;
  double lambda = 1.0;
  // The prior's weight in the score (0: no prior), and the learning rate that replaces eta when
  // the prior is used (the trees correct the estimate in smaller steps). On ResNet-18's 12 layers
  // held out in turn (48 random configs of each other layer to train on, 96 random configs of the
  // held-out one to rank): pairwise rank accuracy median 0.910 [lowest 0.817] without the prior;
  // with it at eta 0.3: weight 3 0.920 [0.902], 10 0.932 [0.900], 20 0.936 [0.900]; at eta 0.1:
  // weight 5 0.937 [0.911], 10 0.935 [0.908], 20 0.939 [0.914] (docs/tuner_features.md).
  double prior_weight = 10.0;
  double prior_eta = 0.1;
};

class CostModel {
 public:
  explicit CostModel(CostModelOptions options = {});
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // Retrains on these groups (empty groups are skipped). Every row of every group must have the
  // same length; UserError otherwise. With no row at all the model becomes untrained.
  void fit(const std::vector<TrainingGroup>& groups);
  bool trained() const { return booster_ != nullptr; }
  size_t feature_count() const { return features_; }
  // Whether the last fit used the groups' prior scores (every group had them, prior_weight > 0).
  bool uses_prior() const { return uses_prior_; }

  // Scores of `rows` configs whose features are stored row-major in `data` (rows x
  // feature_count()), and their prior scores (one per row) when uses_prior(), else empty
  // (UserError otherwise). The model must be trained.
  std::vector<float> predict(const std::vector<float>& data, size_t rows,
                             const std::vector<float>& priors = {}) const;
  std::vector<float> predict(const std::vector<std::vector<float>>& rows,
                             const std::vector<float>& priors = {}) const;

 private:
  CostModelOptions options_;
  void* booster_ = nullptr;  // BoosterHandle
  size_t features_ = 0;
  bool uses_prior_ = false;
};

}  // namespace tessera::autotune
