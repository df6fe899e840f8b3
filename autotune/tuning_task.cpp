#include "autotune/tuning_task.h"

#include "autotune/knob_features.h"

namespace tessera::autotune {

std::vector<float> TuningTask::features(const Config& config) const {
  return featurize ? featurize(space, config) : knob_features(space, config);
}

}  // namespace tessera::autotune
