// Search moves in a config space: change one knob to one of its neighbour values (Knob::
// neighbours: adjacent values for ordered and numeric knobs, one swap for loop orders, any other
// alternative for unordered choices, a flip for flags). The validity check is not applied here;
// the search decides what to do with a move it rejects.
#pragma once

#include <vector>

#include "autotune/config_space.h"
#include "autotune/rng.h"

namespace tessera::autotune {

// Every config one move away, knob by knob in space order, values ascending.
std::vector<Config> neighbours(const ConfigSpace& space, const Config& config);

// One move drawn uniformly: a knob among those with more than one value, then one of its
// neighbour values. A space whose knobs all have one value returns the config itself.
Config random_neighbour(const ConfigSpace& space, const Config& config, Rng& rng);

}  // namespace tessera::autotune
