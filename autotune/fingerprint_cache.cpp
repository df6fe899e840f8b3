#include "autotune/fingerprint_cache.h"

namespace tessera::autotune {

namespace {

bool cacheable(const MeasureResult& r) {
  return !r.fingerprint.empty() && !r.duplicate_of &&
         (r.status == MeasureStatus::kOk || r.status == MeasureStatus::kSimulationError);
}

}  // namespace

std::optional<FingerprintCache::Entry> FingerprintCache::find(
    const std::string& fingerprint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(fingerprint);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

MeasureResult FingerprintCache::resolve(int64_t trial, MeasureResult result) {
  if (result.fingerprint.empty() || result.status == MeasureStatus::kInternalError) return result;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(result.fingerprint);
  if (it != entries_.end() && it->second.trial != trial) {
    MeasureResult dup = it->second.result;
    dup.duplicate_of = it->second.trial;
    return dup;
  }
  if (it == entries_.end() && cacheable(result))
    entries_.emplace(result.fingerprint, Entry{trial, result});
  return result;
}

size_t FingerprintCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace tessera::autotune
