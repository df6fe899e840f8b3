// A tuner whose search starts from a known config: trial 0 is `first` (a template's default),
// then every trial is the wrapped tuner's. A tuning job (tune_job.h) wraps each task's tuner
// with its default config, so the default is measured and logged as trial 0 of the search and the
// tuned result is never worse than the default.
//
// The wrapped tuner sees what it would alone, plus the first config's result: its first observe()
// gets its own proposals' trials followed by trial 0 (model tuners learn from it). It may later
// propose `first` itself, which is not measured twice: that proposal is left out of the batch
// and given back to it in observe() with trial 0's result. The name and seed are the wrapped
// tuner's, so the log records "xgb" and resume works as for any tuner (tune.h). Deterministic.
#pragma once

#include <memory>
#include <optional>

#include "autotune/tuner.h"
#include "autotune/tuning_task.h"

namespace tessera::autotune {

class DefaultFirstTuner : public Tuner {
 public:
  // `first` must be a valid config of the task's space.
  DefaultFirstTuner(const TuningTask& task, std::unique_ptr<Tuner> inner, Config first);
  const char* name() const override { return inner_->name(); }
  uint64_t seed() const override { return inner_->seed(); }
  std::vector<Config> propose(size_t n) override;
  void observe(const std::vector<Trial>& trials) override;

 private:
  const TuningTask& task_;
  std::unique_ptr<Tuner> inner_;
  Config first_;
  bool first_proposed_ = false;       // trial 0 handed out
  std::optional<Trial> first_trial_;  // its result, once observed
  bool first_given_ = false;          // trial 0 passed to the inner tuner
  std::vector<Config> inner_batch_;   // the inner tuner's last proposals, in order
};

}  // namespace tessera::autotune
