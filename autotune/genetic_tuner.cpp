#include "autotune/genetic_tuner.h"

#include <algorithm>

#include "autotune/training_group.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

GeneticTuner::GeneticTuner(const TuningTask& task, uint64_t seed, GeneticOptions options)
    : task_(task), options_(options), proposed_(task.space), rng_(seed), seed_(seed) {
  if (options_.population < 2)
    throw UserError(str("genetic tuner: population must be at least 2, not ", options_.population));
  if (options_.mutation < 0 || options_.mutation > 1)
    throw UserError(
        str("genetic tuner: mutation probability ", options_.mutation, " is outside [0, 1]"));
}

void GeneticTuner::observe(const std::vector<Trial>& trials) {
  measured_.insert(measured_.end(), trials.begin(), trials.end());
}

std::vector<Config> GeneticTuner::propose(size_t n) {
  std::vector<Config> out;
  while (out.size() < n) {
    if (pending_.empty()) breed();
    if (pending_.empty()) break;
    Config c = std::move(pending_.front());
    pending_.pop_front();
    if (proposed_.insert(c)) out.push_back(std::move(c));
  }
  return out;
}

Config GeneticTuner::child(const std::vector<const Trial*>& parents,
                           const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  auto pick = [&]() -> const Config& {
    double r = rng_.unit() * total;
    for (size_t i = 0; i < parents.size(); ++i) {
      r -= weights[i];
      if (r < 0) return parents[i]->config;
    }
    return parents.back()->config;
  };
  const Config& a = pick();
  const Config& b = pick();
  Config c = a;
  const auto& knobs = task_.space.knobs();
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (rng_.below(2)) c.values[k] = b.values[k];
    if (rng_.unit() < options_.mutation)
      c.values[k] = static_cast<uint32_t>(rng_.below(knobs[k].size()));
  }
  return c;
}

void GeneticTuner::breed() {
  // Parents: the best `population` trials measured so far, best first (ties: earlier trial).
  std::vector<float> labels = ranking_labels(measured_);
  std::vector<size_t> order(measured_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return labels[x] > labels[y]; });
  std::vector<const Trial*> parents;
  std::vector<double> weights;
  for (size_t i = 0; i < order.size() && parents.size() < options_.population; ++i) {
    if (labels[order[i]] <= 0) break;  // only configs that ran can be parents
    parents.push_back(&measured_[order[i]]);
    weights.push_back(labels[order[i]]);
  }
  constexpr int kRetries = 8;
  for (size_t n = 0; n < options_.population; ++n) {
    std::optional<Config> c;
    if (parents.size() >= 2) {
      for (int r = 0; r < kRetries && !c; ++r) {
        Config x = child(parents, weights);
        bool queued = std::find(pending_.begin(), pending_.end(), x) != pending_.end();
        if (!queued && !proposed_.contains(x) && task_.space.is_valid(x)) c = std::move(x);
      }
    }
    if (!c) c = proposed_.draw(rng_);
    if (!c) break;  // the space is exhausted
    if (std::find(pending_.begin(), pending_.end(), *c) == pending_.end())
      pending_.push_back(std::move(*c));
  }
}

}  // namespace tessera::autotune
