#include "runtime/npu/simulator.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "runtime/base/error.h"
#include "runtime/npu/check_hazards.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/execute_insn.h"
#include "runtime/npu/prepare_program.h"

namespace tessera::npu {
namespace {

constexpr uint64_t kNever = UINT64_MAX;
constexpr int kComputeQ = static_cast<int>(Queue::kCompute);
// The queue that pops each token queue (load->compute, compute->load, compute->store,
// store->compute).
constexpr int kPopper[kNumTokenQueues] = {1, 0, 2, 1};

// A fixed number of slots, left uninitialised: every slot is written before it is read (a time is
// read only for positions already dispatched, started, pushed or popped), so the scheduler does
// not clear memory it is about to fill.
template <typename T>
class Slots {
 public:
  void size_to(size_t n) { data_.reset(new T[n]); }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
};

// A dependency-token queue, recorded as history: push times are known as soon as the pushing
// instruction starts (its completion is fixed then), pops when the popping one starts.
struct TokenQueue {
  Slots<uint64_t> push_time;  // sized to the program's total pushes (prepare_program)
  Slots<uint32_t> pusher;
  Slots<uint64_t> pop_time;  // pops never exceed pushes (token underflow is static)
  size_t pushed = 0;
  size_t popped = 0;
};

struct Unit {
  const uint32_t* insns = nullptr;  // program indices of this queue
  size_t size = 0;
  size_t pos = 0;      // next instruction to start
  size_t fetched = 0;  // instructions dispatched into this queue so far
  uint64_t free_at = 0;
  Slots<uint64_t> dispatch;  // dispatch time per position
  Slots<uint64_t> complete;  // completion time per position, for the fetcher
};

// The compute queue of a two-unit target (Target::compute_units = 2): the MAC array and the vector
// unit each run one instruction at a time; the queue issues in order (an instruction starts no
// earlier than its predecessor started), and an instruction whose ranges conflict with the other
// unit's last instruction waits for that one to end (a scoreboard). Completions can come out of
// order, so the queue retires in order: `retired` is the latest end so far, when tokens are pushed.
struct ComputeUnits {
  uint64_t free_at[2] = {0, 0};           // MAC array, vector unit
  size_t last[2] = {SIZE_MAX, SIZE_MAX};  // compute-queue position of each unit's last instruction
  uint64_t last_start = 0;
  uint64_t retired = 0;
};

// The scheduler. Instructions start in nondecreasing time order (see docs/npu_isa.md, "Timing
// model"): at each step the unit whose next instruction can start earliest starts it, ties going
// to load, then compute, then store; an instruction-fetch burst requested at the same time goes
// first. An instruction's completion time is fixed when it starts (DDR port requests, fetch bursts
// included, are granted first-come first-served by ready time, which is start order), so every
// token push time is known before anyone needs it. Functional mode reads an instruction's sources
// when it starts and writes its results when it ends: before each start, every result whose end
// has come is written, in order of end time (then start order).
template <bool kFunctional>
class Scheduler {
 public:
  Scheduler(const Kernel& k, const Target& t, const PreparedProgram& p, std::vector<uint8_t>* ddr,
            const SimOptions& options)
      : k_(k), t_(t), p_(p), o_(options), n_(p.ops.size()), two_units_(t.compute_units == 2) {
    burst_ = uint64_t(t.fetch_burst_insns);
    sram_unit_ = uint64_t(t.mac_in);
    acc_unit_ = uint64_t(4 * t.mac_out);
    fetch_limit_ = burst_ == 0 ? n_ : 0;
    depth_[0] = uint64_t(t.load_queue_depth);
    depth_[1] = uint64_t(t.compute_queue_depth);
    depth_[2] = uint64_t(t.store_queue_depth);
    for (int u = 0; u < kNumQueues; ++u) {
      const std::vector<uint32_t>& list = p.queue_insns[u];
      units_[u].insns = list.data();
      units_[u].size = list.size();
      units_[u].dispatch.size_to(list.size());
      units_[u].complete.size_to(list.size());
    }
    for (int q = 0; q < kNumTokenQueues; ++q) {
      tokens_[q].push_time.size_to(p.pushes_total[q]);
      tokens_[q].pusher.size_to(p.pushes_total[q]);
      tokens_[q].pop_time.size_to(p.pushes_total[q]);
    }
    if (kFunctional) {
      mem_.sram.assign(size_t(t.sram_bytes), 0);
      mem_.acc.assign(size_t(t.acc_bytes / 4), 0);
      mem_.ddr = ddr->data();
      mem_.ddr_size = ddr->size();
      if (options.check_hazards) checker_.emplace(k, t, p);
    }
  }

  SimStats run() {
    advance_fetch();
    // A unit's candidate start time, once known, never changes until the unit starts it: its
    // dispatch time and the push times of the tokens it needs are fixed when they are recorded.
    // A blocked unit (kNever) waits for its next instruction to be dispatched or for a push onto
    // a token queue it pops: only those events (changed_) and the unit that just started make a
    // candidate worth recomputing.
    uint64_t cand[kNumQueues];
    for (int u = 0; u < kNumQueues; ++u) cand[u] = candidate(u);
    changed_ = 0;
    for (size_t done = 0; done < n_;) {
      int unit = 0;
      if (cand[1] < cand[unit]) unit = 1;
      if (cand[2] < cand[unit]) unit = 2;
      uint64_t f = fetch_candidate();
      if (f != kNever && f <= cand[unit]) {
        fetch_burst(f);
        for (int u = 0; u < kNumQueues; ++u)
          if (cand[u] == kNever) cand[u] = candidate(u);
        changed_ = 0;
        continue;
      }
      if (cand[unit] == kNever) report_deadlock();
      if (o_.should_stop && o_.should_stop()) report_stop(unit);
      start(unit, cand[unit]);
      ++done;
      if (unit == fetch_wait_) advance_fetch();
      cand[unit] = candidate(unit);
      for (int u = 0; u < kNumQueues; ++u)
        if ((changed_ >> u & 1) && u != unit && cand[u] == kNever) cand[u] = candidate(u);
      changed_ = 0;
    }
    if (kFunctional) commit_due(kNever);
    for (int q = 0; q < kNumTokenQueues; ++q) {
      const TokenQueue& tq = tokens_[q];
      size_t k = tq.popped + size_t(t_.token_queue_depth);
      if (k < tq.pushed) overflow(q, k);
    }
    stats_.insn_count = p_.insn_count;
    stats_.macs = p_.macs;
    stats_.vector_ops = p_.vector_ops;
    stats_.sram_peak_bytes = p_.sram_rows_used * uint64_t(t_.mac_in);
    stats_.acc_peak_bytes = p_.acc_rows_used * uint64_t(4 * t_.mac_out);
    return stats_;
  }

 private:
  // Earliest start of unit u's next instruction, or kNever if it is not dispatched yet or waits
  // for a token whose pusher has not started.
  uint64_t candidate(int u) const {
    const Unit& s = units_[u];
    if (s.pos == s.size) return kNever;
    if (s.pos >= s.fetched) return kNever;
    uint32_t i = s.insns[s.pos];
    uint64_t t = two_units_ && u == kComputeQ ? issue_time(s.pos) : s.free_at;
    t = std::max(t, s.dispatch[s.pos]);
    for (uint8_t q : p_.ops[i].pops) {
      if (q == kNoTokenQueue) break;
      const TokenQueue& tq = tokens_[q];
      if (tq.popped >= tq.pushed) return kNever;
      t = std::max(t, tq.push_time[tq.popped]);
    }
    return t;
  }

  // Two-unit compute queue: the earliest start of the instruction at queue position `pos` by
  // issue order, its unit and the scoreboard (tokens and dispatch aside).
  uint64_t issue_time(size_t pos) const {
    const ComputeAccess& a = p_.compute_access[pos];
    uint64_t t = cu_.last_start;
    if (a.unit == ComputeUnit::kBoth) return std::max({t, cu_.free_at[0], cu_.free_at[1]});
    const int mine = int(a.unit), other = 1 - mine;
    t = std::max(t, cu_.free_at[mine]);
    size_t o = cu_.last[other];
    if (o != SIZE_MAX && cu_.free_at[other] > t && a.conflicts_with(p_.compute_access[o]))
      t = cu_.free_at[other];
    return t;
  }

  void start(int u, uint64_t t) {
    Unit& s = units_[u];
    uint32_t i = s.insns[s.pos];
    const PreparedOp& op = p_.ops[i];
    UnitStats& st = stats_.units[u];
    const bool two = two_units_ && u == kComputeQ;
    // Stalled: dispatched and its unit free, but waiting for a token, the DDR port or (two-unit
    // compute) the scoreboard.
    uint64_t unit_free = s.free_at;
    if (two) {
      const ComputeAccess& a = p_.compute_access[s.pos];
      unit_free = a.unit == ComputeUnit::kBoth ? std::max(cu_.free_at[0], cu_.free_at[1])
                                               : cu_.free_at[int(a.unit)];
      unit_free = std::max(unit_free, cu_.last_start);
    }
    st.stalled_cycles += t - std::max(unit_free, s.dispatch[s.pos]);
    uint32_t pushers[2] = {HazardChecker::kNoPusher, HazardChecker::kNoPusher};
    for (int n = 0; n < 2; ++n) {
      uint8_t q = op.pops[n];
      if (q == kNoTokenQueue) break;
      TokenQueue& tq = tokens_[q];
      size_t j = tq.popped++;
      pushers[n] = tq.pusher[j];
      tq.pop_time[j] = t;
      size_t k = j + size_t(t_.token_queue_depth);  // the push that needed this pop to have room
      if (k < tq.pushed && tq.push_time[k] < t) overflow(q, k);
    }
    uint64_t end;
    if (op.is_dma) {
      uint64_t ready = t + uint64_t(t_.dma_fixed_cycles);
      uint64_t xfer = std::max(ready, port_free_);
      port_free_ = xfer + op.cycles;
      end = port_free_ + op.pad_cycles;  // zero padding is written after the transfer
      st.stalled_cycles += xfer - ready;
      st.busy_cycles += end - t - (xfer - ready);
      stats_.ddr_port_busy_cycles += op.cycles;
      (op.is_store ? stats_.ddr_bytes_written : stats_.ddr_bytes_read) +=
          uint64_t(op.ddr_units) * (op.acc_units ? acc_unit_ : sram_unit_);
    } else {
      end = t + op.cycles;
      // Compute instructions start in order, so the union of their run times grows by the part
      // of [t, end) after the latest end so far.
      uint64_t from = std::max(t, compute_covered_);
      if (u == kComputeQ) {
        st.busy_cycles += end > from ? end - from : 0;
        compute_covered_ = std::max(compute_covered_, end);
        const Opcode opc = op.opcode;
        if (opc == Opcode::kGemm) stats_.mac_busy_cycles += op.cycles;
        if (opc == Opcode::kVector) stats_.vector_busy_cycles += op.cycles;
      } else {
        st.busy_cycles += op.cycles;
      }
    }
    // When the queue retires the instruction: at its end, or, on a two-unit compute queue, once
    // every earlier instruction of the queue has ended too (its tokens mean what they mean on
    // one unit: everything before is done).
    uint64_t retire = end;
    bool vector_unit = false;
    if (two) {
      const ComputeAccess& a = p_.compute_access[s.pos];
      vector_unit = a.unit == ComputeUnit::kVector;
      if (a.unit == ComputeUnit::kBoth) {
        cu_.free_at[0] = cu_.free_at[1] = end;
      } else {
        cu_.free_at[int(a.unit)] = end;
        cu_.last[int(a.unit)] = s.pos;
      }
      cu_.last_start = t;
      retire = cu_.retired = std::max(cu_.retired, end);
    }
    for (uint8_t q : op.pushes) {
      if (q == kNoTokenQueue) break;
      TokenQueue& tq = tokens_[q];
      size_t k = tq.pushed++;
      tq.push_time[k] = retire;
      tq.pusher[k] = i;
      changed_ |= 1u << kPopper[q];
      if (k >= size_t(t_.token_queue_depth)) {
        size_t j = k - size_t(t_.token_queue_depth);
        if (j < tq.popped && tq.pop_time[j] > end) overflow(q, k);
      }
    }
    s.free_at = end;
    s.complete[s.pos++] = retire;
    st.insns++;
    stats_.cycles = std::max(stats_.cycles, end);
    now_ = t;
    if (kFunctional) {
      // The vector unit of a two-unit compute queue has its own pending results.
      const int slot = vector_unit ? kVectorSlot : u;
      if (checker_) checker_->on_start(i, pushers);
      commit_due(t);
      begin_insn(k_.program[i], t_, mem_, pending_[slot]);
      pending_end_[slot] = end;
      pending_seq_[slot] = seq_++;
    }
  }

  // Writes every pending result whose instruction has ended by `t`, in order of end, then start.
  void commit_due(uint64_t t) {
    for (;;) {
      int best = -1;
      for (int u = 0; u < kSlots; ++u) {
        if (pending_[u].dest == PendingWrites::Dest::kNone || pending_end_[u] > t) continue;
        if (best < 0 || pending_end_[u] < pending_end_[best] ||
            (pending_end_[u] == pending_end_[best] && pending_seq_[u] < pending_seq_[best]))
          best = u;
      }
      if (best < 0) return;
      commit_insn(pending_[best], mem_);
    }
  }

  // The next instruction-fetch burst can be requested once every instruction of the previous one
  // is dispatched (the fetcher drains its buffer first, as VTA's does), at that dispatch time.
  uint64_t fetch_candidate() const {
    if (fetch_limit_ == n_ || fetch_ < fetch_limit_) return kNever;
    return fetch_time_;
  }

  // A burst of instructions read over the DDR port like a DMA: request latency, then the port.
  void fetch_burst(uint64_t t) {
    uint64_t count = std::min<uint64_t>(burst_, n_ - fetch_limit_);
    uint64_t bytes = count * kInsnBytes, bpc = uint64_t(t_.ddr_bytes_per_cycle);
    uint64_t xfer = std::max(t + uint64_t(t_.dma_fixed_cycles), port_free_);
    uint64_t cycles = (bytes + bpc - 1) / bpc + uint64_t(t_.dma_row_cycles);
    port_free_ = xfer + cycles;
    stats_.ddr_port_busy_cycles += cycles;
    stats_.ddr_bytes_fetched += bytes;
    fetch_limit_ += count;
    fetch_time_ = std::max(fetch_time_, port_free_);
    now_ = fetch_time_;  // its instructions are dispatched from then on
    advance_fetch();
  }

  // The fetcher dispatches instructions in program order, taking no time, and stops while the
  // next instruction's queue already holds `depth` dispatched-but-unfinished instructions.
  // Only a completion in the queue it waits on (fetch_wait_) can restart it.
  void advance_fetch() {
    // The loop's state in locals: the stores through the Slots would otherwise make the compiler
    // reload and store the members on every instruction.
    size_t fetch = fetch_;
    uint64_t time = fetch_time_;
    unsigned changed = changed_;
    int wait = -1;
    for (; fetch < fetch_limit_; ++fetch) {
      const int q = p_.ops[fetch].queue;
      Unit& s = units_[q];
      if (s.fetched >= depth_[q]) {
        uint64_t k = s.fetched - depth_[q];  // must have completed to free a slot
        if (s.pos <= k) {
          wait = q;
          break;
        }
        time = std::max(time, s.complete[k]);
      }
      s.dispatch[s.fetched++] = time;
      changed |= 1u << q;
    }
    fetch_ = fetch;
    fetch_time_ = time;
    changed_ = changed;
    fetch_wait_ = wait;
  }

  [[noreturn]] void overflow(int q, size_t k) const {
    throw SimulationError(str(describe_insn(k_, tokens_[q].pusher[k]),
                              ": token queue overflow: push #", k + 1, " onto the ",
                              token_queue_name(q), " token queue while it already holds ",
                              t_.token_queue_depth, " tokens (token_queue_depth)"));
  }

  [[noreturn]] void report_stop(int unit) const {
    throw SimulationError(str("kernel '", k_.name, "': stopped before ",
                              describe_insn(k_, units_[unit].insns[units_[unit].pos]), " at cycle ",
                              now_, ": the caller asked to stop (an interrupt or a ",
                              "time limit: SimOptions::should_stop)"));
  }

  [[noreturn]] void report_deadlock() const {
    std::string why;
    for (int u = 0; u < kNumQueues; ++u) {
      const Unit& s = units_[u];
      why += str("; ", queue_name(Queue(u)), " queue ");
      if (s.pos == s.size) {
        why += "is empty";
        continue;
      }
      uint32_t i = s.insns[s.pos];
      if (s.pos >= s.fetched) {
        why += str("waits for instruction #", i, " to be dispatched (the fetcher is stopped at #",
                   fetch_, " because the ", queue_name(Queue(p_.ops[fetch_].queue)),
                   " instruction queue is full)");
        continue;
      }
      why += str("waits at ", describe_insn(k_, i));
      for (uint8_t q : p_.ops[i].pops)
        if (q != kNoTokenQueue && tokens_[q].popped >= tokens_[q].pushed)
          why += str(" for a token on the ", token_queue_name(q), " queue");
    }
    throw SimulationError(str("kernel '", k_.name, "': deadlock at cycle ", now_,
                              ": no queue can make progress", why));
  }

  const Kernel& k_;
  const Target& t_;
  const PreparedProgram& p_;
  const SimOptions& o_;
  const size_t n_;
  uint64_t depth_[3];
  Unit units_[3];
  TokenQueue tokens_[kNumTokenQueues];
  size_t fetch_ = 0;
  int fetch_wait_ = -1;  // the queue whose full instruction queue stops the fetcher, or -1
  uint64_t fetch_time_ = 0;
  uint64_t port_free_ = 0;
  uint64_t now_ = 0;
  uint64_t burst_ = 0;                     // instructions per fetch burst; 0: fetch takes no time
  uint64_t sram_unit_ = 0, acc_unit_ = 0;  // bytes of a DMA unit
  size_t fetch_limit_ = 0;                 // instructions [0, fetch_limit_) have arrived on chip
  SimStats stats_;
  Memories mem_;
  // Functional: each unit's results until its end (the queues', then a two-unit target's vector
  // unit).
  static constexpr int kVectorSlot = kNumQueues, kSlots = kNumQueues + 1;
  PendingWrites pending_[kSlots];
  uint64_t pending_end_[kSlots] = {0, 0, 0, 0};
  uint64_t pending_seq_[kSlots] = {0, 0, 0, 0};
  const bool two_units_;
  ComputeUnits cu_;
  uint64_t compute_covered_ = 0;  // the latest end of a compute instruction so far
  uint64_t seq_ = 0;
  unsigned changed_ = 0;  // bit per unit: an event since the last step that may unblock it
  std::optional<HazardChecker> checker_;
};

}  // namespace

uint64_t SimStats::total_insns() const {
  uint64_t n = 0;
  for (uint64_t c : insn_count) n += c;
  return n;
}

SimStats simulate(const Kernel& kernel, const Target& target, SimMode mode,
                  std::vector<uint8_t>* ddr, const SimOptions& options) {
  PreparedProgram prepared = prepare_program(kernel, target, options.max_work);
  if (mode == SimMode::kTiming) {
    if (ddr != nullptr) throw ArgumentError("timing mode takes no DDR image; pass nullptr");
    return Scheduler<false>(kernel, target, prepared, nullptr, options).run();
  }
  if (ddr == nullptr || ddr->size() != kernel.ddr_bytes())
    throw ArgumentError(str("kernel '", kernel.name, "': functional mode needs a DDR image of ",
                            kernel.ddr_bytes(), " bytes, got ", ddr ? ddr->size() : 0));
  return Scheduler<true>(kernel, target, prepared, ddr, options).run();
}

}  // namespace tessera::npu
