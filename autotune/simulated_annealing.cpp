#include "autotune/simulated_annealing.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "autotune/neighbourhood.h"

namespace tessera::autotune {

std::vector<ScoredConfig> simulated_annealing(const ConfigSpace& space, const BatchScorer& score,
                                              std::vector<Config>& chains,
                                              const ProposalSet& exclude, size_t keep, Rng& rng,
                                              const AnnealingOptions& options) {
  if (chains.empty() || keep == 0) return {};
  constexpr int kMoveTries = 4;
  std::map<uint64_t, float> seen;  // candidates by index
  auto note = [&](const Config& c, float s) {
    uint64_t i = space.index_of(c);
    if (!exclude.contains_index(i)) seen.emplace(i, s);
  };
  std::vector<float> current = score(chains);
  for (size_t c = 0; c < chains.size(); ++c) note(chains[c], current[c]);

  std::vector<Config> next(chains.size());
  for (size_t step = 0; step < options.steps; ++step) {
    const double t = options.temperature * (1.0 - static_cast<double>(step) / options.steps);
    for (size_t c = 0; c < chains.size(); ++c) {
      next[c] = chains[c];
      for (int tries = 0; tries < kMoveTries; ++tries) {
        Config m = random_neighbour(space, chains[c], rng);
        if (space.is_valid(m)) {
          next[c] = std::move(m);
          break;
        }
      }
    }
    std::vector<float> scores = score(next);
    for (size_t c = 0; c < chains.size(); ++c) {
      note(next[c], scores[c]);
      const double delta = static_cast<double>(scores[c]) - current[c];
      // Draw for every chain, accepted or not, so that the stream does not depend on the scores.
      const double u = rng.unit();
      if (delta >= 0 || (t > 0 && u < std::exp(delta / t))) {
        chains[c] = next[c];
        current[c] = scores[c];
      }
    }
  }

  std::vector<std::pair<float, uint64_t>> ranked;
  for (const auto& [index, s] : seen) ranked.emplace_back(s, index);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<ScoredConfig> out;
  for (size_t i = 0; i < ranked.size() && out.size() < keep; ++i)
    out.push_back(ScoredConfig{space.at(ranked[i].second), ranked[i].second, ranked[i].first});
  return out;
}

}  // namespace tessera::autotune
