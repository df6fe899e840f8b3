#include "autotune/neighbourhood.h"

namespace tessera::autotune {

std::vector<Config> neighbours(const ConfigSpace& space, const Config& config) {
  std::vector<Config> out;
  const auto& knobs = space.knobs();
  for (size_t i = 0; i < knobs.size(); ++i)
    for (uint32_t v : knobs[i].neighbours(config.values[i])) {
      Config c = config;
      c.values[i] = v;
      out.push_back(std::move(c));
    }
  return out;
}

Config random_neighbour(const ConfigSpace& space, const Config& config, Rng& rng) {
  const auto& knobs = space.knobs();
  std::vector<size_t> movable;
  for (size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].size() > 1) movable.push_back(i);
  if (movable.empty()) return config;
  size_t i = movable[rng.below(movable.size())];
  std::vector<uint32_t> near = knobs[i].neighbours(config.values[i]);
  Config c = config;
  c.values[i] = near[rng.below(near.size())];
  return c;
}

}  // namespace tessera::autotune
