// Cost-model features of an NPU template's config that carry across shapes (docs/tuner_features.md,
// "Template features"): the template's own analytic estimate of the config (npu_cost_model.h, the
// model its shape-aware default is chosen by), split into its parts, each part over the layer's
// roofline bound (npu::roofline_bound of its true work), and the config's on-chip footprint over
// the target's capacities. Knob values say how big a tile is only in this shape's units; these
// ratios mean the same on every shape, so a model trained on other layers ranks a new one.
//
// A template's featurizer (NpuTemplate::featurizer) computes them from the config alone, in
// microseconds (no lowering, no codegen): the xgb tuner scores every candidate of its search
// with them. make_npu_task puts them after the knob features (knob_features.h).
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/npu_cost_model.h"
#include "autotune/templates/npu_template.h"

namespace tessera {

// The names of template_features()' values, in order: the same for every template, shape and
// target.
const std::vector<std::string>& template_feature_names();
// The position of `name` among them; InternalError when there is none.
size_t template_feature_index(const std::string& name);

// `m`: the template's estimate of a config (its total is m.cycles(overlapped)); `bound`: the
// layer's roofline bound in cycles (> 0); `fp`: the config's on-chip footprint.
std::vector<float> template_features(const CostModel& m, bool overlapped, double bound,
                                     const OnchipFootprint& fp, const npu::Target& t);

}  // namespace tessera
