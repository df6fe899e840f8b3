#include "autotune/measure_context.h"

#include "autotune/errors.h"

namespace tessera::autotune {

void MeasureContext::throw_if_cancelled() const {
  if (cancelled()) throw MeasurementCancelled("measurement cancelled: over its time limit");
}

std::optional<MeasureResult> MeasureContext::known_result(const std::string& fingerprint) const {
  if (!known_ || fingerprint.empty()) return std::nullopt;
  auto entry = known_->find(fingerprint);
  if (!entry) return std::nullopt;
  return entry->result;
}

}  // namespace tessera::autotune
