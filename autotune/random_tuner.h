// The random tuner: configs drawn uniformly (without replacement) among the valid ones.
#pragma once

#include "autotune/proposal_set.h"
#include "autotune/tuner.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

class RandomTuner : public Tuner {
 public:
  RandomTuner(const TuningTask& task, uint64_t seed)
      : proposed_(task.space), rng_(seed), seed_(seed) {}
  const char* name() const override { return "random"; }
  uint64_t seed() const override { return seed_; }
  std::vector<Config> propose(size_t n) override;
  void observe(const std::vector<Trial>&) override {}

 private:
  ProposalSet proposed_;
  Rng rng_;
  uint64_t seed_;
};

}  // namespace tessera::autotune
