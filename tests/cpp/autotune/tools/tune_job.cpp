// A tuning job of the synthetic task as a process of its own, so that a test can kill it (-9)
// and start it again with the same arguments.
//   autotune_tune_job LOG TUNER SEED TRIALS BATCH WORKERS SLEEP_MS
// SLEEP_MS: each measurement also sleeps that long (so that a kill lands mid-job).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "autotune/local_executor.h"
#include "autotune/make_tuner.h"
#include "autotune/tune.h"
#include "synthetic_task.h"

using namespace tessera::autotune;

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s LOG TUNER SEED TRIALS BATCH WORKERS SLEEP_MS\n", argv[0]);
    return 2;
  }
  const std::string log = argv[1];
  const TunerKind kind = parse_tuner_kind(argv[2]);
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  const int64_t trials = std::atoll(argv[4]);
  const int64_t batch = std::atoll(argv[5]);
  const int workers = std::atoi(argv[6]);
  const int sleep_ms = std::atoi(argv[7]);

  TuningTask task = testing::synthetic_task();
  auto tuner = make_tuner(kind, task, seed);
  LocalExecutorOptions eo;
  eo.workers = workers;
  LocalExecutor executor(
      [sleep_ms](const MeasureInput& in, const MeasureContext& ctx) {
        std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
        return testing::measure_synthetic(in, ctx);
      },
      eo);
  TuneOptions options;
  options.trials = trials;
  options.batch_size = batch;
  options.log_path = log;
  TuneReport report = tune(task, tessera::npu::default_target(), *tuner, executor, options);
  std::printf("trials %zu resumed %lld measured %lld best %lld\n", report.trials.size(),
              static_cast<long long>(report.resumed), static_cast<long long>(report.measured),
              static_cast<long long>(report.best ? report.best->result.cycles : 0));
  return 0;
}
