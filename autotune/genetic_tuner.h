// The genetic tuner (a baseline, as AutoTVM's GATuner): a population of configs; each
// generation is bred from the best configs measured so far (fitness = ranking label: best
// cycles / cycles, 0 for failures) by fitness-proportional selection of two parents, uniform
// crossover knob by knob and mutation of each knob with probability `mutation` to a random value.
// The first generation is random. A child already proposed or rejected by the validity check is
// bred again (a few times), then replaced by a random config.
#pragma once

#include <deque>

#include "autotune/proposal_set.h"
#include "autotune/tuner.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

struct GeneticOptions {
  size_t population = 64;
  double mutation = 0.1;
};

class GeneticTuner : public Tuner {
 public:
  GeneticTuner(const TuningTask& task, uint64_t seed, GeneticOptions options = {});
  const char* name() const override { return "ga"; }
  uint64_t seed() const override { return seed_; }
  std::vector<Config> propose(size_t n) override;
  void observe(const std::vector<Trial>& trials) override;

 private:
  void breed();
  Config child(const std::vector<const Trial*>& parents, const std::vector<double>& weights);

  const TuningTask& task_;
  GeneticOptions options_;
  ProposalSet proposed_;
  Rng rng_;
  uint64_t seed_;
  std::vector<Trial> measured_;
  std::deque<Config> pending_;  // bred, not proposed yet
};

}  // namespace tessera::autotune
