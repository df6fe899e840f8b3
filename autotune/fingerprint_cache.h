// Duplicate detection: kernels identical to one already measured are not measured again.
//
// A measurement reports its kernel's fingerprint (a hash of the kernel bytes with the kernel name
// normalised; computed by the template's measurement after building). The cache maps each
// fingerprint to the first trial that had it and that trial's result. Only results that are a
// function of the kernel alone are kept: ok and simulation_error.
//
// The tuning driver resolves every batch in trial order (resolve()), so whether a duplicate was
// skipped or measured anyway (two identical kernels in one batch, on different workers) never
// changes the log: a duplicate's result is always the first trial's, with duplicate_of set.
// Thread-safe: measurements running on workers look results up while the driver adds them.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "autotune/measure_result.h"

namespace tessera::autotune {

class FingerprintCache {
 public:
  struct Entry {
    int64_t trial;
    MeasureResult result;
  };

  std::optional<Entry> find(const std::string& fingerprint) const;

  // The result `trial` is recorded with: the first trial's result (duplicate_of set) when an
  // earlier trial had the same fingerprint and `result` is not an internal error (that is a bug
  // and stays visible); otherwise `result` itself, remembered if it is cacheable.
  MeasureResult resolve(int64_t trial, MeasureResult result);

  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace tessera::autotune
