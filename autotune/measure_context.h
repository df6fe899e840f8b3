// What a measurement function is given besides its inputs: a cancellation flag to poll (the
// executor raises it when the measurement overruns its time limit) and the results of kernels
// measured before (so that, once it has built a kernel and knows its fingerprint, it can return
// the earlier result instead of simulating again).
//
// Cancellation is cooperative: a measurement polls cancelled() (or calls throw_if_cancelled())
// between its phases and inside long loops. One that never polls is abandoned by the local
// executor after a grace period (local_executor.h).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "autotune/fingerprint_cache.h"
#include "autotune/measure_result.h"

namespace tessera::autotune {

class MeasureContext {
 public:
  // Never cancelled, knows no earlier results: for a measurement run on its own (a farm worker,
  // a test).
  MeasureContext() = default;
  MeasureContext(std::shared_ptr<const std::atomic<bool>> cancel,
                 std::shared_ptr<const FingerprintCache> known)
      : cancel_(std::move(cancel)), known_(std::move(known)) {}

  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }
  // Throws MeasurementCancelled (recorded as a timeout) when cancelled.
  void throw_if_cancelled() const;
  // The earlier result of an identical kernel, if one was measured.
  std::optional<MeasureResult> known_result(const std::string& fingerprint) const;

 private:
  std::shared_ptr<const std::atomic<bool>> cancel_;
  std::shared_ptr<const FingerprintCache> known_;
};

}  // namespace tessera::autotune
