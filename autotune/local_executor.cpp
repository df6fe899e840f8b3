#include "autotune/local_executor.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <optional>

#include "autotune/run_measurement.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

using Clock = std::chrono::steady_clock;

// What the measurements of one batch read; shared by its jobs and kept alive by abandoned ones.
struct Inputs {
  TuningTask task;
  npu::Target target;
  std::shared_ptr<const FingerprintCache> known;
};

std::string limit_text(double seconds) { return str("its time limit of ", seconds, " s"); }

}  // namespace

struct LocalExecutor::Job {
  enum class Phase { kQueued, kRunning, kDone, kAbandoned };
  std::shared_ptr<const Inputs> inputs;
  Config config;
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  Phase phase = Phase::kQueued;
  Clock::time_point start;
  uint64_t worker = 0;
  MeasureResult result;
};

struct LocalExecutor::State {
  MeasureFn fn;
  double timeout_seconds = 0;
  std::mutex mutex;
  std::condition_variable work_cv;
  std::condition_variable done_cv;
  std::deque<std::shared_ptr<Job>> queue;
  bool stopping = false;
};

namespace {

void worker_loop(std::shared_ptr<LocalExecutor::State> st, uint64_t id) {
  using Phase = LocalExecutor::Job::Phase;
  for (;;) {
    std::shared_ptr<LocalExecutor::Job> job;
    {
      std::unique_lock<std::mutex> lock(st->mutex);
      st->work_cv.wait(lock, [&] { return st->stopping || !st->queue.empty(); });
      if (st->stopping) return;
      job = st->queue.front();
      st->queue.pop_front();
      job->phase = Phase::kRunning;
      job->start = Clock::now();
      job->worker = id;
    }
    // The batch waits on the running jobs' deadlines: tell it this one has started.
    st->done_cv.notify_all();
    MeasureContext context(job->cancel, job->inputs->known);
    MeasureResult r = run_measurement(
        st->fn, MeasureInput{job->inputs->task, job->config, job->inputs->target}, context);
    std::chrono::duration<double> elapsed = Clock::now() - job->start;
    // An overrun is a timeout whatever the measurement returned, except an internal error: that
    // is a bug and must stay visible.
    if (st->timeout_seconds > 0 && elapsed.count() > st->timeout_seconds &&
        r.status != MeasureStatus::kInternalError)
      r = MeasureResult::failure(MeasureStatus::kTimeout,
                                 str("measurement exceeded ", limit_text(st->timeout_seconds)),
                                 r.fingerprint);
    {
      std::lock_guard<std::mutex> lock(st->mutex);
      // Abandoned: a replacement worker has taken this thread's place; the result is discarded.
      if (job->phase == Phase::kAbandoned) return;
      job->result = std::move(r);
      job->phase = Phase::kDone;
    }
    st->done_cv.notify_all();
  }
}

}  // namespace

LocalExecutor::LocalExecutor(MeasureFn fn, LocalExecutorOptions options)
    : options_(options), state_(std::make_shared<State>()) {
  if (options_.workers < 1)
    throw UserError(str("local executor: workers must be at least 1, not ", options_.workers));
  if (options_.timeout_seconds < 0 || options_.abandon_grace_seconds < 0)
    throw UserError("local executor: timeout and grace must not be negative");
  if (!fn) throw UserError("local executor: no measurement function");
  state_->fn = std::move(fn);
  state_->timeout_seconds = options_.timeout_seconds;
  for (int i = 0; i < options_.workers; ++i) spawn_worker();
}

LocalExecutor::~LocalExecutor() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->work_cv.notify_all();
  for (auto& w : workers_) w.thread.join();
}

void LocalExecutor::spawn_worker() {
  uint64_t id = next_worker_id_++;
  workers_.push_back(Worker{id, std::thread(worker_loop, state_, id)});
}

// Called with state_->mutex held.
void LocalExecutor::abandon(Job& job) {
  job.phase = Job::Phase::kAbandoned;
  job.result = MeasureResult::failure(
      MeasureStatus::kTimeout, str("measurement exceeded ", limit_text(options_.timeout_seconds),
                                   " and did not stop within ", options_.abandon_grace_seconds,
                                   " s of its cancellation; it was abandoned"));
  for (size_t i = 0; i < workers_.size(); ++i)
    if (workers_[i].id == job.worker) {
      workers_[i].thread.detach();
      workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  spawn_worker();
  ++abandoned_;
}

std::vector<MeasureResult> LocalExecutor::measure(const MeasureBatch& batch) {
  return std::move(measure_many({batch}).front());
}

std::vector<std::vector<MeasureResult>> LocalExecutor::measure_many(
    const std::vector<MeasureBatch>& batches) {
  std::lock_guard<std::mutex> one_call(measure_mutex_);
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (const MeasureBatch& batch : batches) {
      auto inputs = std::make_shared<const Inputs>(Inputs{batch.task, batch.target, batch.known});
      for (const Config& c : batch.configs) {
        auto job = std::make_shared<Job>();
        job->inputs = inputs;
        job->config = c;
        jobs.push_back(job);
        state_->queue.push_back(job);
      }
    }
  }
  state_->work_cv.notify_all();

  const bool limited = options_.timeout_seconds > 0;
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.timeout_seconds));
  const auto grace = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.abandon_grace_seconds));
  std::unique_lock<std::mutex> lock(state_->mutex);
  for (;;) {
    bool finished = true;
    std::optional<Clock::time_point> wake;
    const auto now = Clock::now();
    for (auto& job : jobs) {
      if (job->phase == Job::Phase::kDone || job->phase == Job::Phase::kAbandoned) continue;
      if (limited && job->phase == Job::Phase::kRunning) {
        const auto cancel_at = job->start + limit;
        const auto abandon_at = cancel_at + grace;
        if (now >= cancel_at) job->cancel->store(true);
        if (now >= abandon_at) {
          abandon(*job);  // over: a batch whose last job is abandoned must not wait on
          continue;
        }
        const auto next = now < cancel_at ? cancel_at : abandon_at;
        if (!wake || next < *wake) wake = next;
      }
      finished = false;
    }
    if (finished) break;
    if (wake)
      state_->done_cv.wait_until(lock, *wake);
    else
      state_->done_cv.wait(lock);
  }
  std::vector<std::vector<MeasureResult>> results(batches.size());
  size_t next = 0;
  for (size_t b = 0; b < batches.size(); ++b)
    for (size_t i = 0; i < batches[b].configs.size(); ++i)
      results[b].push_back(jobs[next++]->result);
  return results;
}

}  // namespace tessera::autotune
