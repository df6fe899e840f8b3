// The local executor: a pool of worker threads measuring a batch.
//
// Results are returned in the batch's order whatever the completion order. Each measurement has
// a time limit (timeout_seconds; 0 = none). When it overruns, its cancellation flag is raised
// (MeasureContext::cancelled) and whatever it then returns is recorded as a timeout. A
// measurement that never polls the flag is abandoned `abandon_grace_seconds` after its
// cancellation: it is recorded as a timeout, its thread is detached and replaced by a fresh
// worker, and the batch goes on. The abandoned thread owns copies of its inputs, so it can run
// to its end safely; its result is discarded. (A thread cannot be killed safely: a measurement
// that must be stopped by force needs a process executor, such as the Ray one.)
//
// measure_many() queues the configs of all its batches on the pool at once, in the batches'
// order, so a worker that finishes goes on with the next config whichever batch it is of.
//
// measure() and measure_many() are not re-entrant: one call at a time (the driver measures in
// sequence).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "autotune/executor.h"

namespace tessera::autotune {

struct LocalExecutorOptions {
  int workers = 1;
  double timeout_seconds = 0;          // per measurement; 0 = no limit
  double abandon_grace_seconds = 1.0;  // after cancellation, before a measurement is abandoned
};

class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(MeasureFn fn, LocalExecutorOptions options = {});
  ~LocalExecutor() override;
  LocalExecutor(const LocalExecutor&) = delete;
  LocalExecutor& operator=(const LocalExecutor&) = delete;

  std::vector<MeasureResult> measure(const MeasureBatch& batch) override;
  std::vector<std::vector<MeasureResult>> measure_many(
      const std::vector<MeasureBatch>& batches) override;

  const LocalExecutorOptions& options() const { return options_; }
  // How many measurements were abandoned (each left a detached thread behind).
  int64_t abandoned_count() const { return abandoned_.load(); }

  struct State;
  struct Job;

 private:
  struct Worker {
    uint64_t id;
    std::thread thread;
  };
  void spawn_worker();
  void abandon(Job& job);

  LocalExecutorOptions options_;
  std::shared_ptr<State> state_;
  std::vector<Worker> workers_;
  uint64_t next_worker_id_ = 0;
  std::atomic<int64_t> abandoned_{0};
  std::mutex measure_mutex_;
};

}  // namespace tessera::autotune
