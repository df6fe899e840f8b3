#include "autotune/knob_features.h"

#include <cmath>

namespace tessera::autotune {

std::vector<float> knob_features(const ConfigSpace& space, const Config& config) {
  std::vector<float> f;
  const auto& knobs = space.knobs();
  for (size_t i = 0; i < knobs.size(); ++i) {
    const Knob& k = knobs[i];
    uint32_t v = config.values[i];
    switch (k.kind()) {
      case KnobKind::kSplit: {
        int64_t factor = k.factor(v);
        int64_t outer = (k.extent() + factor - 1) / factor;
        f.push_back(static_cast<float>(std::log2(static_cast<double>(factor))));
        f.push_back(static_cast<float>(std::log2(static_cast<double>(outer))));
        f.push_back(k.extent() % factor ? 1.0f : 0.0f);
        break;
      }
      case KnobKind::kChoice:
        if (k.ordered()) {
          f.push_back(static_cast<float>(v));
        } else {
          for (uint32_t a = 0; a < k.size(); ++a) f.push_back(a == v ? 1.0f : 0.0f);
        }
        break;
      case KnobKind::kPermutation: {
        std::vector<std::string> order = k.order(v);
        for (const auto& e : k.elements())
          for (size_t p = 0; p < order.size(); ++p)
            if (order[p] == e) f.push_back(static_cast<float>(p));
        break;
      }
      case KnobKind::kFlag:
        f.push_back(k.flag_value(v) ? 1.0f : 0.0f);
        break;
    }
  }
  return f;
}

std::vector<std::string> knob_feature_names(const ConfigSpace& space) {
  std::vector<std::string> names;
  for (const auto& k : space.knobs()) {
    switch (k.kind()) {
      case KnobKind::kSplit:
        names.push_back(k.name() + ".log2");
        names.push_back(k.name() + ".outer.log2");
        names.push_back(k.name() + ".tail");
        break;
      case KnobKind::kChoice:
        if (k.ordered()) {
          names.push_back(k.name() + ".index");
        } else {
          for (uint32_t a = 0; a < k.size(); ++a)
            names.push_back(k.name() + "=" + k.alternative(a));
        }
        break;
      case KnobKind::kPermutation:
        for (const auto& e : k.elements()) names.push_back(k.name() + ".pos." + e);
        break;
      case KnobKind::kFlag:
        names.push_back(k.name());
        break;
    }
  }
  return names;
}

}  // namespace tessera::autotune
