// The configs a tuner has proposed so far (by index), and drawing a new one at random.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_set>

#include "autotune/config_space.h"
#include "autotune/rng.h"

namespace tessera::autotune {

class ProposalSet {
 public:
  explicit ProposalSet(const ConfigSpace& space) : space_(space) {}

  bool contains(const Config& config) const { return indices_.count(space_.index_of(config)); }
  bool contains_index(uint64_t index) const { return indices_.count(index); }
  // False when it was already there.
  bool insert(const Config& config) { return indices_.insert(space_.index_of(config)).second; }
  size_t size() const { return indices_.size(); }

  // A valid config not proposed yet (not inserted): uniform by rejection sampling; after 64
  // rejections, the first such config in index order from a random start (so that a nearly
  // exhausted or mostly invalid space still yields every config). std::nullopt when none is left.
  std::optional<Config> draw(Rng& rng);

 private:
  const ConfigSpace& space_;
  std::unordered_set<uint64_t> indices_;  // looked up, never iterated
  bool exhausted_ = false;
};

}  // namespace tessera::autotune
