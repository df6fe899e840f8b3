#include "autotune/training_group.h"

#include <algorithm>

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

TrainingGroup make_training_group(const TuningTask& task, const std::vector<Trial>& trials) {
  std::vector<float> labels = ranking_labels(trials);
  TrainingGroup g;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (labels[i] < 0) continue;
    g.features.push_back(task.features(trials[i].config));
    g.labels.push_back(labels[i]);
  }
  return g;
}

}  // namespace tessera::autotune
