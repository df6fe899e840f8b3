#include "codegen/npu/fold_loops.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace tessera {
namespace {

constexpr int64_t kMaxU16 = 65535;

// Does the accumulator row (row 0) take a different value in every iteration of the chain?
bool injective(const FoldProblem& p) {
  // (stride, extent) of the loops that move; at most a handful, so a fixed buffer.
  std::vector<std::pair<int64_t, int64_t>> radix;
  for (size_t l = 0; l < p.extent.size(); ++l) {
    const std::optional<int64_t>& c = p.at(0, l);
    if (!c || *c < 0) return false;
    if (p.extent[l] == 1) continue;
    if (*c == 0) return false;
    radix.push_back({*c, p.extent[l]});
  }
  std::sort(radix.begin(), radix.end());
  int64_t span = 0;  // largest offset reachable with the smaller strides
  for (const auto& [stride, extent] : radix) {
    if (stride <= span) return false;
    span += stride * (extent - 1);
  }
  return true;
}

}  // namespace

std::vector<Expr> leaf_rows(const Stmt& leaf) {
  if (const auto* g = leaf.as<NpuGemmNode>()) return {g->acc_row, g->inp_row, g->wgt_row};
  if (const auto* v = leaf.as<NpuVectorNode>()) {
    std::vector<Expr> rows = {v->dst_row, v->src_row};
    if (v->src2) rows.push_back(v->src2_row);
    return rows;
  }
  return {};
}

FoldChoice choose_fold(const FoldProblem& p) {
  size_t n = p.extent.size();
  auto foldable = [&](size_t i) {
    if (p.extent[i] < 1 || p.extent[i] > kMaxU16) return false;
    for (size_t r = 0; r < p.rows; ++r) {
      const std::optional<int64_t>& c = p.at(r, i);
      if (!c || *c < 0 || *c > kMaxU16) return false;
    }
    return true;
  };
  bool any_order = p.accumulate || (p.reset_gemm && injective(p));
  int64_t total = 1;
  for (int64_t e : p.extent) total *= e;

  FoldChoice best;
  std::tuple<int64_t, int, size_t, size_t> best_key{0, 0, 0, 0};
  auto consider = [&](int count, size_t i, size_t j) {
    if (!foldable(i) || (count == 2 && !foldable(j))) return;
    size_t last = count == 2 ? j : i;
    bool suffix = last == n - 1 && (count == 1 || i == n - 2);
    if (!suffix && !any_order) return;
    int64_t folded = p.extent[i] * (count == 2 ? p.extent[j] : 1);
    std::tuple<int64_t, int, size_t, size_t> key{total / folded, suffix ? 0 : 1, i, last};
    if (best.count == 0 || key < best_key) {
      best.count = count;
      best.loop[0] = i;
      best.loop[1] = j;
      best_key = key;
    }
  };
  for (size_t i = 0; i < n; ++i) {
    consider(1, i, i);
    for (size_t j = i + 1; j < n; ++j) consider(2, i, j);
  }
  return best;
}

}  // namespace tessera
