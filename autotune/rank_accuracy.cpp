#include "autotune/rank_accuracy.h"

#include "runtime/base/error.h"

namespace tessera::autotune {

double pairwise_rank_accuracy(const std::vector<float>& scores, const std::vector<float>& labels) {
  if (scores.size() != labels.size())
    throw UserError(
        str("pairwise_rank_accuracy: ", scores.size(), " scores but ", labels.size(), " labels"));
  double agree = 0;
  double pairs = 0;
  for (size_t i = 0; i < labels.size(); ++i)
    for (size_t j = i + 1; j < labels.size(); ++j) {
      if (labels[i] == labels[j]) continue;
      pairs += 1;
      bool label_i_better = labels[i] > labels[j];
      if (scores[i] == scores[j])
        agree += 0.5;
      else if ((scores[i] > scores[j]) == label_i_better)
        agree += 1;
    }
  return pairs == 0 ? 1.0 : agree / pairs;
}

}  // namespace tessera::autotune
