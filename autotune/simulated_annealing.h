// Parallel simulated annealing over a config space on a model's scores (higher is better): many
// chains move in lockstep, so that each step scores all their moves in one batch (one model
// call). A move is a random neighbour (neighbourhood.h) that the validity check accepts (a few
// tries, else the chain stays); it is accepted if it scores higher, or with probability
// exp(delta / T), T falling linearly from `temperature` to 0 over the steps.
//
// Returns the best `keep` configs seen on the way (starts included) that the validity check
// accepts and `exclude` does not hold, best first (ties: lower index). `chains` holds the start
// states (valid configs) and receives the end states, to start the next search from.
#pragma once

#include <functional>
#include <vector>

#include "autotune/proposal_set.h"
#include "autotune/rng.h"

namespace tessera::autotune {

struct AnnealingOptions {
  size_t chains = 128;
  size_t steps = 64;
  double temperature = 1.0;
};

struct ScoredConfig {
  Config config;
  uint64_t index = 0;
  float score = 0;
};

using BatchScorer = std::function<std::vector<float>(const std::vector<Config>&)>;

std::vector<ScoredConfig> simulated_annealing(const ConfigSpace& space, const BatchScorer& score,
                                              std::vector<Config>& chains,
                                              const ProposalSet& exclude, size_t keep, Rng& rng,
                                              const AnnealingOptions& options);

}  // namespace tessera::autotune
