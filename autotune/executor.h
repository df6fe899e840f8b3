// Executors run measurements; the tuning driver owns the search, the model and the log.
//
// A measurement is a plain function of (task, config, target) -> result: it builds the config's
// kernel and times it on the simulator. The local executor (local_executor.h) runs it on a pool of
// threads; a farm executor (Ray, issue 12) runs the same function in worker processes, from the
// task key, the config's canonical JSON and the target's JSON. Whatever the executor, results
// come back in the batch's order, so the log and the model see them in trial order.
//
// Several batches at once (measure_many): a tuning job's round, the next batch of each of its
// searches (autotune/job/tune_job.h). An executor with workers pools the configs of all of
// them, so that no worker waits at the end of one batch for its slowest measurement while
// others are still to measure; the default measures the batches one after the other.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "autotune/config.h"
#include "autotune/fingerprint_cache.h"
#include "autotune/measure_context.h"
#include "autotune/measure_result.h"
#include "autotune/tuning_task.h"
#include "runtime/npu/target.h"

namespace tessera::autotune {

struct MeasureInput {
  const TuningTask& task;
  const Config& config;
  const npu::Target& target;
};

// Returns a result, or throws a classified tessera error (see run_measurement.h). Must be safe to
// call from several threads at once.
using MeasureFn = std::function<MeasureResult(const MeasureInput&, const MeasureContext&)>;

struct MeasureBatch {
  const TuningTask& task;
  const npu::Target& target;
  std::vector<Config> configs;
  std::vector<int64_t> trials;                    // the trial index of each config (for messages)
  std::shared_ptr<const FingerprintCache> known;  // results of earlier kernels; may be null
};

class Executor {
 public:
  virtual ~Executor() = default;
  // One result per config, in the batch's order. A failing measurement is a result, never an
  // exception; an executor throws only when it cannot run at all.
  virtual std::vector<MeasureResult> measure(const MeasureBatch& batch) = 0;
  // The results of each batch, in the batches' order, each as measure() would return them.
  virtual std::vector<std::vector<MeasureResult>> measure_many(
      const std::vector<MeasureBatch>& batches) {
    std::vector<std::vector<MeasureResult>> out;
    out.reserve(batches.size());
    for (const MeasureBatch& b : batches) out.push_back(measure(b));
    return out;
  }
};

}  // namespace tessera::autotune
