// The cost model: gradient-boosted trees (XGBoost, through its C API) with a ranking objective
// (rank:pairwise), one query group per task, so that it learns which of two configs of a task
// is faster rather than absolute cycles, and transfer across tasks ranks only within each task.
//
// Training is reproducible: a fixed thread count (XGBoost's results differ between nthread=1 and
// 2, so it is a parameter recorded by the caller, 1 by default) and a fixed seed. The model is
// retrained from scratch on every fit() (after each batch, on everything measured so far).
// Predictions are scores: higher is better; only their order means something.
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

  // Scores of `rows` configs whose features are stored row-major in `data` (rows x
  // feature_count()). The model must be trained.
  std::vector<float> predict(const std::vector<float>& data, size_t rows) const;
  std::vector<float> predict(const std::vector<std::vector<float>>& rows) const;

 private:
  CostModelOptions options_;
  void* booster_ = nullptr;  // BoosterHandle
  size_t features_ = 0;
};

}  // namespace tessera::autotune
