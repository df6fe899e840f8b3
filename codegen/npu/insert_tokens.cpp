#include "codegen/npu/insert_tokens.h"

#include <array>
#include <limits>
#include <memory>

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

constexpr int kNumSpaces = 3;
// Touch lists, one per (queue, space, kind: read 0, write 1).
constexpr int kNumLists = npu::kNumQueues * kNumSpaces * 2;
int list_of(int q, Space s, int w) { return (q * kNumSpaces + static_cast<int>(s)) * 2 + w; }

class TokenInserter {
 public:
  TokenInserter(const std::vector<SelectedInsn>& in, const npu::Target& t)
      : in_(in), depth_(t.token_queue_depth) {
    for (auto& k : kn_) k.fill(-1);
    // Syncs are a small fraction of the output.
    size_t cap = in_.size() + in_.size() / 4 + 8;
    done_.reserve(cap);
    out_.reserve(cap);
    for (auto& p : poppers_) p.reserve(in_.size() / 2 + 8);
    // Every touch list is laid out once at its final size (counted up front), behind a sentinel
    // older than any instruction, so the searches need no bounds check and appends never move.
    std::array<size_t, kNumLists> count{};
    for (const SelectedInsn& s : in_) {
      int a = qi(npu::queue_of(s.insn));
      for (const Access& x : s.accesses) ++count[list_of(a, x.space, x.write)];
    }
    size_t total = 0;
    for (size_t c : count) total += c + 1;
    touches_.reset(new Touch[total]);
    size_t at = 0;
    for (int l = 0; l < kNumLists; ++l) {
      touches_[at].node = std::numeric_limits<int64_t>::min();
      end_[l] = touches_.get() + at + 1;
      at += count[l] + 1;
    }
  }

  std::vector<npu::Insn> run() {
    for (size_t i = 0; i < in_.size(); ++i) {
      const SelectedInsn& s = in_[i];
      int a = qi(npu::queue_of(s.insn));
      const Knowledge& kn = kn_[a];
      Knowledge need;
      need[a] = -1;
      // The latest conflicting instruction on every other queue, newer than what a's queue
      // already knows is done: the newest of q's touches that overlaps one of I's ranges, among
      // the ranges q wrote (and, where I writes, read) in that space. Each list is searched
      // newest first and only down to the newest conflict found so far.
      for (int q = 0; q < npu::kNumQueues; ++q) {
        if (q == a) continue;
        int64_t best = kn[q];
        for (const Access& y : s.accesses) {
          if (y.write) best = search(end_[list_of(q, y.space, 0)], y, best);
          best = search(end_[list_of(q, y.space, 1)], y, best);
        }
        need[q] = best > kn[q] ? best : -1;
      }
      int64_t idx;
      bool waits = false;
      for (int q = 0; q < npu::kNumQueues; ++q) waits |= q != a && need[q] >= 0;
      if (!waits) {
        // Nothing to wait for (the usual case): no sync, no token.
        idx = static_cast<int64_t>(out_.size());
        out_.push_back(s.insn);
        kn_[a][a] = idx;
        done_.push_back(kn_[a]);
        ++per_queue_[a];
      } else {
        idx = place(Queue(a), static_cast<int64_t>(i), need, 0);
      }
      for (const Access& x : s.accesses) *end_[list_of(a, x.space, x.write)]++ = {x.lo, x.hi, idx};
    }
    return std::move(out_);
  }

 private:
  // A range an instruction on some queue touched, with the instruction's output index.
  struct Touch {
    int64_t lo, hi, node;
  };

  // The newest touch before `end` newer than `best` that overlaps y, else `best`.
  static int64_t search(const Touch* end, const Access& y, int64_t best) {
    for (const Touch* t = end - 1; t->node > best; --t) {
      if (t->lo < y.hi && y.lo < t->hi) return t->node;
    }
    return best;
  }

  // Appends an instruction of queue `a` (the input's `source`, or a sync when -1) after making
  // it wait for need[q] on every other queue q; returns its index.
  int64_t place(Queue a, int64_t source, Knowledge need, int recursion) {
    TESSERA_ICHECK(recursion < 64, "token insertion does not converge");
    int ai = qi(a);
    npu::Deps deps = source >= 0 ? in_[source].insn.deps : npu::Deps{};
    // Load and store only meet through a compute sync; the compute queue's order then covers
    // every earlier compute instruction too, so the sync takes over the compute need.
    if (a != Queue::kCompute) {
      int far = a == Queue::kLoad ? qi(Queue::kStore) : qi(Queue::kLoad);
      int c = qi(Queue::kCompute);
      if (need[far] > kn_[ai][far]) {
        int64_t jc = need[c];
        bool covered = jc > kn_[ai][c] && done_[jc][far] >= need[far];
        if (!covered) {
          Knowledge sync_need;
          sync_need.fill(-1);
          sync_need[far] = need[far];
          int64_t s = place(Queue::kCompute, -1, sync_need, recursion + 1);
          need[c] = std::max(need[c], s);
        }
      }
      need[far] = -1;
    }
    // (pusher, direction): at most one per other queue.
    std::array<std::pair<int64_t, int>, npu::kNumQueues> pops;
    size_t npops = 0;
    Knowledge local = kn_[ai];
    // Syncs placed to bound the token queues may land on this instruction's own queue (a reverse
    // token needing room); they precede it, so start over with what the queue knows then.
    for (bool again = true; again;) {
      again = false;
      npops = 0;
      local = kn_[ai];
      int64_t own = per_queue_[ai];
      for (int q = 0; q < npu::kNumQueues; ++q) {
        if (q == ai || need[q] <= local[q]) continue;
        TESSERA_ICHECK(neighbours(a, Queue(q)));
        int64_t j = bounded_pusher(need[q], a, recursion);
        if (per_queue_[ai] != own) {
          again = true;
          break;
        }
        for (int r = 0; r < npu::kNumQueues; ++r) local[r] = std::max(local[r], done_[j][r]);
        pops[npops++] = {j, direction(Queue(q), a)};
      }
    }
    int64_t idx = static_cast<int64_t>(out_.size());
    for (size_t p = 0; p < npops; ++p) {
      const auto& [j, dir] = pops[p];
      npu::Deps& pd = out_[j].deps;
      bool& push = (dir == 0 || dir == 2) ? pd.push_next : pd.push_prev;
      bool& pop = (dir == 0 || dir == 2) ? deps.pop_prev : deps.pop_next;
      TESSERA_ICHECK(!push && !pop, "an instruction pushes or pops one token per direction");
      TESSERA_ICHECK(last_pusher_[dir] < j, "tokens out of order");
      push = pop = true;
      last_pusher_[dir] = j;
      poppers_[dir].push_back(idx);
    }
    local[ai] = idx;
    if (source >= 0) {
      out_.push_back(in_[source].insn);
    } else {
      out_.emplace_back();
      out_.back().opcode = npu::Opcode::kSync;
      out_.back().sync_queue = a;
    }
    out_.back().deps = deps;
    done_.push_back(local);
    kn_[ai] = local;
    ++per_queue_[ai];
    return idx;
  }

  // The instruction that pushes the token for a waiter on queue `to` that needs `j` done: j
  // itself when that keeps the token queue within its depth, else a sync on j's queue (placed
  // now, after j) that first waits for the pop that makes room.
  int64_t bounded_pusher(int64_t j, Queue to, int recursion) {
    Queue from = npu::queue_of(out_[j]);
    int dir = direction(from, to);
    for (int attempt = 0;; ++attempt) {
      TESSERA_ICHECK(attempt < 8, "token queue bound does not converge");
      int64_t k = static_cast<int64_t>(poppers_[dir].size()) + 1;  // this is the k-th push
      if (k <= depth_) return j;
      int64_t p = poppers_[dir][k - depth_ - 1];
      if (done_[j][qi(to)] >= p) return j;
      Knowledge need;
      need.fill(-1);
      need[qi(to)] = p;
      j = place(from, -1, need, recursion + 1);
    }
  }

  const std::vector<SelectedInsn>& in_;
  int64_t depth_;
  std::vector<npu::Insn> out_;  // the program so far, flags set as tokens are added
  std::vector<Knowledge> done_;  // per output instruction: what is known complete once it is
  std::array<Knowledge, npu::kNumQueues> kn_;  // per queue: what its next instruction knows
  std::array<int64_t, npu::kNumQueues> per_queue_{};  // instructions placed on each queue
  std::array<int64_t, 4> last_pusher_{-1, -1, -1, -1};
  std::array<std::vector<int64_t>, 4> poppers_;  // per direction, the poppers in order
  std::unique_ptr<Touch[]> touches_;  // every touch list, each behind a sentinel
  std::array<Touch*, kNumLists> end_;            // per list: one past its newest touch
};

}  // namespace

std::vector<npu::Insn> insert_tokens(const std::vector<SelectedInsn>& insns,
                                     const npu::Target& target) {
  return TokenInserter(insns, target).run();
}

}  // namespace tessera
