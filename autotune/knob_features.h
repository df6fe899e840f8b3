// The default cost-model features of a config: its knob values, made comparable across shapes
// of one template so that a model trained on other tasks ranks this one (transfer).
//   split        log2(factor), log2(outer trip count = ceil(extent / factor)), 1 if the factor
//                leaves a tail (does not divide the extent) else 0
//   choice       ordered: the value's position; unordered: one-hot over the alternatives
//   permutation  per loop (in the knob's element order) its position in the order, 0 = outermost
//   flag         0 or 1
// The length depends only on the space's knobs, never on the values.
#pragma once

#include <string>
#include <vector>

#include "autotune/config_space.h"

namespace tessera::autotune {

std::vector<float> knob_features(const ConfigSpace& space, const Config& config);

// One name per feature, in the same order ("tile_h.log2", "order.pos.k", "fold=rows", ...).
std::vector<std::string> knob_feature_names(const ConfigSpace& space);

}  // namespace tessera::autotune
