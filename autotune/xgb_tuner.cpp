#include "autotune/xgb_tuner.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "autotune/training_group.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

CostModelOptions seeded(CostModelOptions o, uint64_t seed) {
  o.seed = seed;
  return o;
}

size_t distance(const Config& a, const Config& b) {
  size_t d = 0;
  for (size_t i = 0; i < a.values.size(); ++i) d += a.values[i] != b.values[i];
  return d;
}

bool has_two_labels(const TrainingGroup& g) {
  for (float l : g.labels)
    if (l != g.labels.front()) return true;
  return false;
}

// Bounds the feature cache of a long search.
constexpr size_t kFeatureCacheLimit = 1 << 18;

}  // namespace

XgbTuner::XgbTuner(const TuningTask& task, uint64_t seed, XgbTunerOptions options)
    : task_(task),
      options_(std::move(options)),
      seed_(seed),
      model_(seeded(options_.model, seed)),
      proposed_(task.space),
      rng_(seed) {
  if (options_.epsilon < 0 || options_.epsilon > 1)
    throw UserError(str("xgb tuner: epsilon ", options_.epsilon, " is outside [0, 1]"));
  if (options_.annealing.chains == 0)
    throw UserError("xgb tuner: simulated annealing needs at least one chain");
  if (!options_.transfer.empty()) retrain();
}

void XgbTuner::observe(const std::vector<Trial>& trials) {
  measured_.insert(measured_.end(), trials.begin(), trials.end());
  retrain();
}

void XgbTuner::retrain() {
  std::vector<TrainingGroup> groups = options_.transfer;
  // The model uses prior scores only if this task has them too (score() needs them).
  if (!task_.estimate)
    for (TrainingGroup& g : groups) g.priors.clear();
  groups.push_back(make_training_group(task_, measured_));
  bool informative = false;
  for (const auto& g : groups) informative = informative || has_two_labels(g);
  if (informative)
    model_.fit(groups);
  else
    model_.fit({});
}

std::vector<float> XgbTuner::score(const std::vector<Config>& configs) {
  if (features_.size() > kFeatureCacheLimit) features_.clear();
  std::vector<float> data;
  std::vector<float> priors;
  const bool with_prior = model_.uses_prior();
  for (const Config& c : configs) {
    uint64_t i = task_.space.index_of(c);
    auto it = features_.find(i);
    if (it == features_.end()) {
      // The features, then the prior score when the task has an estimate.
      std::vector<float> f = task_.features(c);
      if (task_.estimate) f.push_back(prior_score(task_.estimate(task_.space, c)));
      it = features_.emplace(i, std::move(f)).first;
    }
    const std::vector<float>& f = it->second;
    const size_t width = f.size() - (task_.estimate ? 1 : 0);
    data.insert(data.end(), f.begin(), f.begin() + static_cast<std::ptrdiff_t>(width));
    if (with_prior) priors.push_back(f.back());
  }
  return model_.predict(data, configs.size(), priors);
}

std::vector<Config> XgbTuner::start_states() {
  const size_t n = options_.annealing.chains;
  std::vector<Config> starts;
  std::set<Config> taken;
  auto add = [&](const Config& c) {
    if (starts.size() >= n || !task_.space.is_valid(c) || !taken.insert(c).second) return false;
    starts.push_back(c);
    return true;
  };
  // A quarter from the best measured configs (best first, ties: earlier trial).
  std::vector<float> labels = ranking_labels(measured_);
  std::vector<size_t> order(measured_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return labels[a] > labels[b]; });
  for (size_t i = 0; i < order.size() && starts.size() < n / 4; ++i)
    if (labels[order[i]] > 0) add(measured_[order[i]].config);
  for (const Config& c : chains_) add(c);
  for (int misses = 0; starts.size() < n && misses < 8;) {
    auto c = proposed_.draw(rng_);
    if (!c) break;
    if (!add(*c)) ++misses;
  }
  return starts;
}

std::vector<float> XgbTuner::prior(const std::vector<Config>& configs) const {
  // Higher is better, in log units (a move that is 10 % dearer costs about 0.1), so that the
  // annealing's temperature means the same on every task.
  return prior_scores(task_, configs);
}

std::vector<Config> XgbTuner::propose(size_t n) {
  std::vector<Config> out;
  if (n == 0) return out;
  const bool trained = model_.trained();
  if (trained || task_.estimate) {
    const size_t random_share =
        static_cast<size_t>(std::floor(options_.epsilon * static_cast<double>(n) + 0.5));
    const size_t from_model = n - std::min(n, random_share);
    chains_ = start_states();
    BatchScorer scorer;
    if (trained)
      scorer = [this](const std::vector<Config>& c) { return score(c); };
    else
      scorer = [this](const std::vector<Config>& c) { return prior(c); };
    std::vector<ScoredConfig> found = simulated_annealing(
        task_.space, scorer, chains_, proposed_, std::max<size_t>(4 * n, 64), rng_,
        options_.annealing);
    std::vector<bool> used(found.size(), false);
    for (size_t pass = 0; pass < 2 && out.size() < from_model; ++pass) {
      for (size_t i = 0; i < found.size() && out.size() < from_model; ++i) {
        if (used[i]) continue;
        bool diverse = true;
        for (const Config& o : out)
          diverse = diverse && (pass == 1 || distance(o, found[i].config) >= options_.diversity);
        if (!diverse) continue;
        used[i] = true;
        proposed_.insert(found[i].config);
        out.push_back(found[i].config);
      }
    }
  }
  while (out.size() < n) {
    auto c = proposed_.draw(rng_);
    if (!c) break;
    proposed_.insert(*c);
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace tessera::autotune
