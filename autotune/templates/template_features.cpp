#include "autotune/templates/template_features.h"

#include <algorithm>
#include <cmath>

#include "runtime/base/error.h"

namespace tessera {

const std::vector<std::string>& template_feature_names() {
  static const std::vector<std::string> names = {
      "model.cycles",      "model.compute",     "model.gemm",          "model.vector",
      "model.load",        "model.store",       "model.port",          "model.fill",
      "model.gemm_fixed",  "model.dma_fixed",   "model.balance",       "model.overlapped",
      "model.sram",        "model.acc",
  };
  return names;
}

size_t template_feature_index(const std::string& name) {
  const auto& names = template_feature_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  throw InternalError(str("no template feature named '", name, "'"));
}

std::vector<float> template_features(const CostModel& m, bool overlapped, double bound,
                                     const OnchipFootprint& fp, const npu::Target& t) {
  auto over = [bound](double cycles) { return static_cast<float>(cycles / bound); };
  const double compute = m.compute(), traffic = std::max(m.load(), m.port());
  const double gemm_fixed = m.gemm_count() * double(t.gemm_fixed_cycles);
  std::vector<float> f = {
      over(m.cycles(overlapped)),
      over(compute),
      over(m.gemm_cycles()),
      over(m.vector_cycles()),
      over(m.load()),
      over(m.store()),
      over(m.port()),
      over(m.fill()),
      static_cast<float>(m.gemm_cycles() > 0 ? gemm_fixed / m.gemm_cycles() : 0.0),
      over(m.dma_count() * double(t.dma_fixed_cycles)),
      static_cast<float>(compute > 0 && traffic > 0 ? std::log2(compute / traffic) : 0.0),
      overlapped ? 1.0f : 0.0f,
      static_cast<float>(double(fp.sram_rows) / double(t.sram_rows())),
      static_cast<float>(double(fp.acc_rows) / double(t.acc_rows())),
  };
  return f;
}

}  // namespace tessera
