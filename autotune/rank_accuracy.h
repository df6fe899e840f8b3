// Pairwise rank accuracy: over the pairs of items whose labels differ, the fraction the scores
// order the same way (a tied score counts one half). Both higher-is-better. 1 is a perfect
// ranking, 0.5 a random one. Returns 1 when there is no pair to judge (all labels equal).
#pragma once

#include <vector>

namespace tessera::autotune {

double pairwise_rank_accuracy(const std::vector<float>& scores, const std::vector<float>& labels);

}  // namespace tessera::autotune
