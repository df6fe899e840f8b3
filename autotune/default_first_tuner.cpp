#include "autotune/default_first_tuner.h"

#include "runtime/base/error.h"

namespace tessera::autotune {

DefaultFirstTuner::DefaultFirstTuner(const TuningTask& task, std::unique_ptr<Tuner> inner,
                                     Config first)
    : task_(task), inner_(std::move(inner)), first_(std::move(first)) {
  TESSERA_ICHECK(task_.space.is_valid(first_), "the first config ", task_.space.to_text(first_),
                 " of task ", task_.key_text(), " is not a valid config of its space");
}

std::vector<Config> DefaultFirstTuner::propose(size_t n) {
  std::vector<Config> out;
  if (n == 0) return out;
  if (!first_proposed_) {
    first_proposed_ = true;
    out.push_back(first_);
    if (--n == 0) return out;
  }
  // The inner tuner's proposals minus `first`; when that leaves nothing, its only proposal was
  // `first`: give its result back and ask again (trial 0 has been observed by then, since the
  // batch that held it came first).
  while (true) {
    inner_batch_ = inner_->propose(n);
    if (inner_batch_.empty()) return out;
    for (const Config& c : inner_batch_)
      if (!(c == first_)) out.push_back(c);
    if (!out.empty()) return out;
    observe({});
  }
}

void DefaultFirstTuner::observe(const std::vector<Trial>& trials) {
  std::vector<Trial> mine;
  size_t k = 0;
  for (const Trial& t : trials) {
    if (t.index == 0 && t.config == first_ && !first_trial_) {
      first_trial_ = t;
      continue;
    }
    // The inner proposals in order; `first` (left out of the batch) gets trial 0's result.
    while (k < inner_batch_.size() && inner_batch_[k] == first_) {
      TESSERA_ICHECK(first_trial_.has_value(), "the first config was proposed again before ",
                     "its result was observed");
      mine.push_back(*first_trial_);
      ++k;
    }
    mine.push_back(t);
    ++k;
  }
  for (; k < inner_batch_.size(); ++k) {
    TESSERA_ICHECK(inner_batch_[k] == first_ && first_trial_.has_value(), "observe() got ",
                   trials.size(), " trials for a batch of ", inner_batch_.size());
    mine.push_back(*first_trial_);
  }
  if (first_trial_ && !first_given_) {
    first_given_ = true;
    mine.push_back(*first_trial_);
  }
  inner_batch_.clear();
  if (!mine.empty()) inner_->observe(mine);
}

}  // namespace tessera::autotune
