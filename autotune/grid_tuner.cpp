#include "autotune/grid_tuner.h"

namespace tessera::autotune {

std::vector<Config> GridTuner::propose(size_t n) {
  std::vector<Config> out;
  while (out.size() < n && next_ < space_.size()) {
    Config c = space_.at(next_++);
    if (space_.is_valid(c)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace tessera::autotune
