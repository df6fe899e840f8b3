#include "autotune/features/program_features.h"

#include <limits>

#include "autotune/features/kernel_features.h"
#include "autotune/features/loop_features.h"

namespace tessera::autotune {

std::vector<float> program_features(const LoweredFunc& f, const npu::Kernel& kernel,
                                    const npu::Target& target) {
  std::vector<float> v = loop_features(f, target);
  std::vector<float> k = kernel_features(kernel, target);
  v.insert(v.end(), k.begin(), k.end());
  return v;
}

const std::vector<std::string>& program_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = loop_feature_names();
    const auto& k = kernel_feature_names();
    n.insert(n.end(), k.begin(), k.end());
    return n;
  }();
  return names;
}

std::vector<float> missing_program_features() {
  return std::vector<float>(program_feature_names().size(),
                            std::numeric_limits<float>::quiet_NaN());
}

}  // namespace tessera::autotune
