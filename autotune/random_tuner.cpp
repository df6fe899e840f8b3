#include "autotune/random_tuner.h"

namespace tessera::autotune {

std::vector<Config> RandomTuner::propose(size_t n) {
  std::vector<Config> out;
  while (out.size() < n) {
    auto c = proposed_.draw(rng_);
    if (!c) break;
    proposed_.insert(*c);
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace tessera::autotune
