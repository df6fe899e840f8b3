// insert_tokens against a brute-force reference: the same rules (insert_tokens.h) with the latest
// conflict found by scanning every earlier instruction of the other queue, on random access
// sequences (fixed seeds), including token queues shallow enough to force bound syncs. The full
// output streams (opcodes, flags, sync queues, which input instruction) must be identical.
#include "codegen/npu/insert_tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/npu/target.h"

namespace tessera {
namespace {

using npu::Queue;
using Knowledge = std::array<int64_t, npu::kNumQueues>;

int qi(Queue q) { return static_cast<int>(q); }
int direction(Queue from, Queue to) {
  if (from == Queue::kLoad && to == Queue::kCompute) return 0;
  if (from == Queue::kCompute && to == Queue::kLoad) return 1;
  if (from == Queue::kCompute && to == Queue::kStore) return 2;
  return 3;
}
bool conflict(const AccessList& a, const AccessList& b) {
  for (const Access& x : a)
    for (const Access& y : b)
      if (x.space == y.space && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

// The rules of insert_tokens.h, written plainly: every output instruction remembers its input
// (or none for a sync) and what is known done once it completes.
class Reference {
 public:
  Reference(const std::vector<SelectedInsn>& in, int64_t depth) : in_(in), depth_(depth) {
    for (auto& k : kn_) k.fill(-1);
  }
  std::vector<npu::Insn> run() {
    for (size_t i = 0; i < in_.size(); ++i) {
      Queue a = npu::queue_of(in_[i].insn);
      Knowledge need;
      need.fill(-1);
      for (int q = 0; q < npu::kNumQueues; ++q) {
        if (q == qi(a)) continue;
        // Brute force: the newest earlier input instruction of queue q that conflicts.
        for (size_t j = nodes_.size(); j-- > 0;) {
          const Node& n = nodes_[j];
          if (n.source < 0 || qi(n.queue) != q) continue;
          if (conflict(in_[n.source].accesses, in_[i].accesses)) {
            if (static_cast<int64_t>(j) > kn_[qi(a)][q]) need[q] = static_cast<int64_t>(j);
            break;
          }
        }
      }
      place(a, in_[i].insn.deps, static_cast<int64_t>(i), need, 0);
    }
    std::vector<npu::Insn> out;
    for (const Node& n : nodes_) {
      npu::Insn insn;
      if (n.source >= 0) {
        insn = in_[n.source].insn;
      } else {
        insn.opcode = npu::Opcode::kSync;
        insn.sync_queue = n.queue;
      }
      insn.deps = n.deps;
      out.push_back(insn);
    }
    return out;
  }

 private:
  struct Node {
    npu::Deps deps;
    Queue queue;
    int64_t source;
    Knowledge done;
  };
  int64_t count(Queue q) const {
    int64_t c = 0;
    for (const Node& n : nodes_) c += n.queue == q;
    return c;
  }
  int64_t place(Queue a, npu::Deps deps, int64_t source, Knowledge need, int recursion) {
    EXPECT_LT(recursion, 64);
    if (a != Queue::kCompute) {
      Queue far = a == Queue::kLoad ? Queue::kStore : Queue::kLoad;
      Knowledge local = kn_[qi(a)];
      int64_t jc = need[qi(Queue::kCompute)];
      bool covered = jc > local[qi(Queue::kCompute)] && nodes_[jc].done[qi(far)] >= need[qi(far)];
      if (need[qi(far)] > local[qi(far)] && !covered) {
        Knowledge sync_need;
        sync_need.fill(-1);
        sync_need[qi(far)] = need[qi(far)];
        int64_t s = place(Queue::kCompute, npu::Deps{}, -1, sync_need, recursion + 1);
        need[qi(Queue::kCompute)] = std::max(need[qi(Queue::kCompute)], s);
      }
      need[qi(far)] = -1;
    }
    std::vector<std::pair<int64_t, int>> pops;
    Knowledge local;
    for (bool again = true; again;) {
      again = false;
      pops.clear();
      local = kn_[qi(a)];
      int64_t own = count(a);
      for (int q = 0; q < npu::kNumQueues && !again; ++q) {
        if (q == qi(a) || need[q] <= local[q]) continue;
        int64_t j = bounded_pusher(need[q], a, recursion);
        if (count(a) != own) {
          again = true;
          break;
        }
        for (int r = 0; r < npu::kNumQueues; ++r) local[r] = std::max(local[r], nodes_[j].done[r]);
        pops.push_back({j, direction(Queue(q), a)});
      }
    }
    int64_t idx = static_cast<int64_t>(nodes_.size());
    for (const auto& [j, dir] : pops) {
      npu::Deps& pd = nodes_[j].deps;
      bool& push = (dir == 0 || dir == 2) ? pd.push_next : pd.push_prev;
      bool& pop = (dir == 0 || dir == 2) ? deps.pop_prev : deps.pop_next;
      EXPECT_FALSE(push || pop);
      push = pop = true;
      pushes_[dir].push_back(j);
      pops_[dir].push_back(idx);
    }
    local[qi(a)] = idx;
    nodes_.push_back(Node{deps, a, source, local});
    kn_[qi(a)] = local;
    return idx;
  }
  int64_t bounded_pusher(int64_t j, Queue to, int recursion) {
    Queue from = nodes_[j].queue;
    int dir = direction(from, to);
    for (int attempt = 0; attempt < 8; ++attempt) {
      int64_t k = static_cast<int64_t>(pushes_[dir].size()) + 1;
      if (k <= depth_) return j;
      int64_t p = pops_[dir][k - depth_ - 1];
      if (nodes_[j].done[qi(to)] >= p) return j;
      Knowledge need;
      need.fill(-1);
      need[qi(to)] = p;
      j = place(from, npu::Deps{}, -1, need, recursion + 1);
    }
    ADD_FAILURE() << "token queue bound does not converge";
    return j;
  }

  const std::vector<SelectedInsn>& in_;
  int64_t depth_;
  std::vector<Node> nodes_;
  std::array<Knowledge, npu::kNumQueues> kn_;
  std::array<std::vector<int64_t>, 4> pushes_, pops_;
};

// A random program: loads (DDR -> on-chip), computes (on-chip ranges) and stores (on-chip ->
// DDR) over small spaces so that ranges often overlap; each instruction is tagged with its index
// so that the output shows which input it is.
std::vector<SelectedInsn> random_program(uint32_t seed, int n, int64_t rows, int64_t ddr) {
  std::mt19937 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto range = [&](Space s, int64_t size, bool write) {
    int64_t lo = pick(0, size - 1);
    int64_t len = pick(0, 3) == 0 ? pick(1, size) : pick(1, std::max<int64_t>(1, size / 16));
    return Access{s, lo, std::min(size, lo + len), write};
  };
  auto onchip = [&]() { return pick(0, 3) == 0 ? Space::kAcc : Space::kSram; };
  std::vector<SelectedInsn> out;
  for (int i = 0; i < n; ++i) {
    SelectedInsn s;
    int kind = static_cast<int>(pick(0, 9));
    if (kind < 4) {
      s.insn.opcode = npu::Opcode::kLoad;
      s.insn.dma.ddr_addr = static_cast<uint32_t>(i);
      s.accesses = {range(Space::kDdr, ddr, false), range(onchip(), rows, true)};
    } else if (kind < 8) {
      s.insn.opcode = kind < 6 ? npu::Opcode::kGemm : npu::Opcode::kVector;
      s.insn.gemm.acc.base = static_cast<uint32_t>(i);
      s.insn.vec.dst.base = static_cast<uint32_t>(i);
      s.accesses = {range(onchip(), rows, true), range(onchip(), rows, false)};
      if (pick(0, 1)) s.accesses.push_back(range(onchip(), rows, false));
    } else {
      s.insn.opcode = npu::Opcode::kStore;
      s.insn.dma.ddr_addr = static_cast<uint32_t>(i);
      s.accesses = {range(onchip(), rows, false), range(Space::kDdr, ddr, true)};
    }
    out.push_back(s);
  }
  return out;
}

std::string stream(const std::vector<npu::Insn>& insns) {
  std::string s;
  for (const npu::Insn& i : insns) s += npu::disassemble(i) + "\n";
  return s;
}

void expect_same_as_reference(uint32_t seed, int n, int64_t rows, int64_t ddr, int64_t depth) {
  std::vector<SelectedInsn> in = random_program(seed, n, rows, ddr);
  npu::Target target = npu::default_target();
  target.token_queue_depth = depth;
  std::vector<npu::Insn> got = insert_tokens(in, target);
  std::vector<npu::Insn> want = Reference(in, depth).run();
  ASSERT_EQ(got.size(), want.size()) << "seed " << seed << " depth " << depth;
  EXPECT_EQ(stream(got), stream(want)) << "seed " << seed << " depth " << depth;
}

TEST(InsertTokens, MatchesBruteForceOnRandomPrograms) {
  for (uint32_t seed = 1; seed <= 40; ++seed) expect_same_as_reference(seed, 300, 256, 4096, 32);
}

TEST(InsertTokens, MatchesBruteForceWithShallowTokenQueues) {
  for (int64_t depth : {2, 3, 4}) {
    for (uint32_t seed = 100; seed < 130; ++seed) {
      expect_same_as_reference(seed, 300, 64, 512, depth);
    }
  }
}

TEST(InsertTokens, MatchesBruteForceWithFewConflicts) {
  // Large spaces: most ranges are disjoint, so searches run far back.
  for (uint32_t seed = 200; seed < 210; ++seed) {
    expect_same_as_reference(seed, 2000, 1 << 16, 1 << 24, 32);
  }
}

TEST(InsertTokens, ShallowQueuesNeedBoundSyncs) {
  // The shallow case really exercises the bound: syncs appear beyond the load/store ones.
  std::vector<SelectedInsn> in = random_program(7, 300, 64, 512);
  npu::Target deep = npu::default_target(), shallow = npu::default_target();
  deep.token_queue_depth = 1 << 20;
  shallow.token_queue_depth = 2;
  auto syncs = [](const std::vector<npu::Insn>& v) {
    return std::count_if(v.begin(), v.end(),
                         [](const npu::Insn& i) { return i.opcode == npu::Opcode::kSync; });
  };
  EXPECT_GT(syncs(insert_tokens(in, shallow)), syncs(insert_tokens(in, deep)));
}

}  // namespace
}  // namespace tessera
