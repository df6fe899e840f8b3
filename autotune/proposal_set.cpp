#include "autotune/proposal_set.h"

namespace tessera::autotune {

std::optional<Config> ProposalSet::draw(Rng& rng) {
  if (exhausted_ || indices_.size() >= space_.size()) return std::nullopt;
  constexpr int kRejections = 64;
  for (int attempt = 0; attempt < kRejections; ++attempt) {
    uint64_t i = rng.below(space_.size());
    if (indices_.count(i)) continue;
    Config c = space_.at(i);
    if (space_.is_valid(c)) return c;
  }
  const uint64_t n = space_.size();
  const uint64_t start = rng.below(n);
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t i = k < n - start ? start + k : k - (n - start);  // (start + k) mod n, no overflow
    if (indices_.count(i)) continue;
    Config c = space_.at(i);
    if (space_.is_valid(c)) return c;
  }
  // Validity is a pure function of the config: nothing will become available again.
  exhausted_ = true;
  return std::nullopt;
}

}  // namespace tessera::autotune
