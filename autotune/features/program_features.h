// The cost-model features of a built config: its loop IR's (loop_features.h) followed by its
// kernel's (kernel_features.h). docs/tuner_features.md lists and explains every feature, and how
// a tuner combines them with the knob features (knob_features.h).
//
// Computing them needs the lowered function and the kernel, i.e. most of a measurement: a
// measurement computes them from what it built; a config that did not build has
// missing_program_features() (NaN: XGBoost's "missing", so its row still trains the model).
#pragma once

#include <string>
#include <vector>

#include "compiler/lowered_func.h"
#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::autotune {

std::vector<float> program_features(const LoweredFunc& f, const npu::Kernel& kernel,
                                    const npu::Target& target);

// loop_feature_names() then kernel_feature_names().
const std::vector<std::string>& program_feature_names();

// One NaN per program feature.
std::vector<float> missing_program_features();

}  // namespace tessera::autotune
