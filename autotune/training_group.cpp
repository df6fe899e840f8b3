#include "autotune/training_group.h"

#include <algorithm>
#include <cmath>

namespace tessera::autotune {

std::vector<float> ranking_labels(const std::vector<Trial>& trials) {
  int64_t best = 0;
  for (const Trial& t : trials)
    if (t.result.ok() && (best == 0 || t.result.cycles < best)) best = t.result.cycles;
  std::vector<float> labels;
  for (const Trial& t : trials) {
    if (t.result.status == MeasureStatus::kInternalError)
      labels.push_back(-1.0f);
    else if (t.result.ok())
      labels.push_back(static_cast<float>(static_cast<double>(best) / t.result.cycles));
    else
      labels.push_back(0.0f);
  }
  return labels;
}

float prior_score(double estimate) {
  return estimate > 0 ? static_cast<float>(-std::log(estimate)) : 0.0f;
}

std::vector<float> prior_scores(const TuningTask& task, const std::vector<Config>& configs) {
  std::vector<float> out;
  if (!task.estimate) return out;
  out.reserve(configs.size());
  for (const Config& c : configs) out.push_back(prior_score(task.estimate(task.space, c)));
  return out;
}

TrainingGroup make_training_group(const TuningTask& task, const std::vector<Trial>& trials) {
  std::vector<float> labels = ranking_labels(trials);
  TrainingGroup g;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (labels[i] < 0) continue;
    g.features.push_back(task.features(trials[i].config));
    g.labels.push_back(labels[i]);
    if (task.estimate) g.priors.push_back(prior_score(task.estimate(task.space, trials[i].config)));
  }
  return g;
}

}  // namespace tessera::autotune
