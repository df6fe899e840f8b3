// The grid tuner: every valid config in index order (the last knob varying fastest). The seed is
// recorded but changes nothing.
#pragma once

#include "autotune/tuner.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

class GridTuner : public Tuner {
 public:
  GridTuner(const TuningTask& task, uint64_t seed) : space_(task.space), seed_(seed) {}
  const char* name() const override { return "grid"; }
  uint64_t seed() const override { return seed_; }
  std::vector<Config> propose(size_t n) override;
  void observe(const std::vector<Trial>&) override {}

 private:
  const ConfigSpace& space_;
  uint64_t seed_;
  uint64_t next_ = 0;  // the next index to look at
};

}  // namespace tessera::autotune
