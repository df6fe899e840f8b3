#include "codegen/npu/insert_tokens.h"

#include <array>

#include "runtime/base/error.h"

namespace tessera {
namespace {

using npu::Queue;
using Knowledge = std::array<int64_t, npu::kNumQueues>;  // per queue: latest index known done

int qi(Queue q) { return static_cast<int>(q); }

// The four token queues, by (from, to).
int direction(Queue from, Queue to) {
  if (from == Queue::kLoad && to == Queue::kCompute) return 0;
  if (from == Queue::kCompute && to == Queue::kLoad) return 1;
  if (from == Queue::kCompute && to == Queue::kStore) return 2;
  if (from == Queue::kStore && to == Queue::kCompute) return 3;
  throw InternalError("insert_tokens: no token queue between load and store");
}
bool neighbours(Queue a, Queue b) {
  return a != b && (a == Queue::kCompute || b == Queue::kCompute);
}

class TokenInserter {
 public:
  TokenInserter(const std::vector<SelectedInsn>& in, const npu::Target& t)
      : in_(in), depth_(t.token_queue_depth) {
    for (auto& k : kn_) k.fill(-1);
    nodes_.reserve(in_.size() + in_.size() / 4 + 8);  // syncs are a small fraction
  }

  std::vector<npu::Insn> run() {
    for (size_t i = 0; i < in_.size(); ++i) {
      Queue a = npu::queue_of(in_[i].insn);
      Knowledge need;
      need.fill(-1);
      // The latest conflicting instruction on every other queue; instructions the queue already
      // knows are done need no search.
      for (int q = 0; q < npu::kNumQueues; ++q) {
        if (q != qi(a)) need[q] = latest_conflict(in_[i], q, kn_[qi(a)][q]);
      }
      int64_t idx = place(a, in_[i].insn.deps, static_cast<int64_t>(i), need, 0);
      for (const Access& x : in_[i].accesses)
        touches_[qi(a)][static_cast<int>(x.space)][x.write].push_back({x.lo, x.hi, idx});
    }
    // Each instruction copied once, straight into place.
    std::vector<npu::Insn> out;
    out.reserve(nodes_.size());
    for (const Node& n : nodes_) {
      if (n.source >= 0) {
        out.push_back(in_[n.source].insn);
      } else {
        out.emplace_back();
        out.back().opcode = npu::Opcode::kSync;
        out.back().sync_queue = n.queue;
      }
      out.back().deps = n.deps;
    }
    return out;
  }

 private:
  // An instruction of the output: the input's instruction `source` (or a sync on `queue`) with
  // dependency flags `deps`; the instruction itself is copied only once, into the output.
  struct Node {
    npu::Deps deps;
    Queue queue;
    int64_t source;  // index into the input, -1 for an inserted sync
    Knowledge done;  // what is known complete once this instruction completes
  };

  // A range an instruction on some queue touched, with the instruction's node index.
  struct Touch {
    int64_t lo, hi, node;
  };

  // The latest instruction on queue q after `known` whose accesses conflict with I's (a write on
  // either side of overlapping ranges of one space), or -1. Each of I's ranges is looked up in
  // the ranges q's instructions wrote (and, when I writes it, read) in its space, newest first;
  // the search stops at the newest conflict found so far, so it visits only ranges of the right
  // space and kind, not every instruction of q.
  int64_t latest_conflict(const SelectedInsn& insn, int q, int64_t known) const {
    int64_t best = -1;
    for (const Access& y : insn.accesses) {
      for (int w = y.write ? 0 : 1; w < 2; ++w) {
        const std::vector<Touch>& list = touches_[q][static_cast<int>(y.space)][w];
        for (size_t k = list.size(); k-- > 0;) {
          const Touch& x = list[k];
          if (x.node <= known || x.node <= best) break;
          if (x.lo < y.hi && y.lo < x.hi) {
            best = x.node;
            break;
          }
        }
      }
    }
    return best;
  }

  // Appends an instruction of queue `a` (the input's `source`, or a sync when -1; `deps` its
  // flags so far) after making it wait for need[q] on every other queue q.
  int64_t place(Queue a, npu::Deps deps, int64_t source, Knowledge need, int recursion) {
    TESSERA_ICHECK(recursion < 64, "token insertion does not converge");
    Knowledge local = kn_[qi(a)];
    // Load and store only meet through a compute sync; the compute queue's order then covers
    // every earlier compute instruction too, so the sync takes over the compute need.
    if (a != Queue::kCompute) {
      Queue far = a == Queue::kLoad ? Queue::kStore : Queue::kLoad;
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
    // (pusher, direction): at most one per other queue.
    std::array<std::pair<int64_t, int>, npu::kNumQueues> pops;
    size_t npops = 0;
    // Syncs placed to bound the token queues may land on this instruction's own queue (a reverse
    // token needing room); they precede it, so start over with what the queue knows then.
    for (bool again = true; again;) {
      again = false;
      npops = 0;
      local = kn_[qi(a)];
      size_t own = by_queue_[qi(a)].size();
      for (int q = 0; q < npu::kNumQueues && !again; ++q) {
        if (q == qi(a) || need[q] <= local[q]) continue;
        TESSERA_ICHECK(neighbours(a, Queue(q)));
        int64_t j = bounded_pusher(need[q], a, recursion);
        if (by_queue_[qi(a)].size() != own) {
          again = true;
          break;
        }
        for (int r = 0; r < npu::kNumQueues; ++r) local[r] = std::max(local[r], nodes_[j].done[r]);
        pops[npops++] = {j, direction(Queue(q), a)};
      }
    }
    int64_t idx = static_cast<int64_t>(nodes_.size());
    for (size_t p = 0; p < npops; ++p) {
      const auto& [j, dir] = pops[p];
      npu::Deps& pd = nodes_[j].deps;
      bool& push = (dir == 0 || dir == 2) ? pd.push_next : pd.push_prev;
      bool& pop = (dir == 0 || dir == 2) ? deps.pop_prev : deps.pop_next;
      TESSERA_ICHECK(!push && !pop, "an instruction pushes or pops one token per direction");
      TESSERA_ICHECK(pushers_[dir].empty() || pushers_[dir].back() < j, "tokens out of order");
      push = pop = true;
      pushers_[dir].push_back(j);
      poppers_[dir].push_back(idx);
    }
    local[qi(a)] = idx;
    nodes_.push_back(Node{deps, a, source, local});
    kn_[qi(a)] = local;
    by_queue_[qi(a)].push_back(idx);
    return idx;
  }

  // The instruction that pushes the token for a waiter on queue `to` that needs `j` done: j
  // itself when that keeps the token queue within its depth, else a sync on j's queue (placed
  // now, after j) that first waits for the pop that makes room.
  int64_t bounded_pusher(int64_t j, Queue to, int recursion) {
    Queue from = nodes_[j].queue;
    int dir = direction(from, to);
    for (int attempt = 0;; ++attempt) {
      TESSERA_ICHECK(attempt < 8, "token queue bound does not converge");
      int64_t k = static_cast<int64_t>(pushers_[dir].size()) + 1;  // this is the k-th push
      if (k <= depth_) return j;
      int64_t p = poppers_[dir][k - depth_ - 1];
      if (nodes_[j].done[qi(to)] >= p) return j;
      Knowledge need;
      need.fill(-1);
      need[qi(to)] = p;
      j = place(from, npu::Deps{}, -1, need, recursion + 1);
    }
  }

  const std::vector<SelectedInsn>& in_;
  int64_t depth_;
  std::vector<Node> nodes_;
  std::array<Knowledge, npu::kNumQueues> kn_;  // per queue: what its next instruction knows
  std::array<std::vector<int64_t>, npu::kNumQueues> by_queue_;
  std::array<std::vector<int64_t>, 4> pushers_, poppers_;
  // Per queue, space and kind (read 0, write 1): the ranges its instructions touched, in order.
  std::vector<Touch> touches_[npu::kNumQueues][3][2];
};

}  // namespace

std::vector<npu::Insn> insert_tokens(const std::vector<SelectedInsn>& insns,
                                     const npu::Target& target) {
  return TokenInserter(insns, target).run();
}

}  // namespace tessera
