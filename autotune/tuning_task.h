// A tuning task as the generic machinery sees it: the task's identity as small, stable JSON (the
// template and its arguments; what the tuning log records and replay looks up), its config space,
// and how to turn a config into cost-model features. The target is passed separately: one task
// is tuned for one target at a time, and the log records the target once per record.
//
// The templates (autotune/templates) make TuningTasks; the measurement function that builds and
// times a config is given to the executor (executor.h), not stored here, so that another
// executor (a Ray cluster) can run the same plain function of (task, config, target).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autotune/config_space.h"

namespace tessera::autotune {

// Dense features of a config; the same length for every config of a space (and, for transfer,
// for every task of a template).
using Featurizer = std::function<std::vector<float>(const ConfigSpace&, const Config&)>;

// An a-priori estimate of a config's cost, computed without measuring it: lower is better, and
// only its order within the task means something (an NPU template's analytic model of the
// simulator's cycles, raised to the template's sound lower bound where it has one). The xgb tuner
// ranks its proposals by it until its cost model has measurements to learn from.
using CostEstimate = std::function<double(const ConfigSpace&, const Config&)>;

struct TuningTask {
  nlohmann::json key;  // e.g. {"template":"conv2d","args":{"C":64,...}}; compared by dump()
  ConfigSpace space;
  Featurizer featurize;  // empty: knob_features
  CostEstimate estimate;  // empty: none (the xgb tuner then starts from random configs)

  std::string key_text() const { return key.dump(); }
  std::vector<float> features(const Config& config) const;
};

}  // namespace tessera::autotune
