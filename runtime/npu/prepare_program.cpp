#include "runtime/npu/prepare_program.h"

#include <algorithm>

#include "runtime/base/error.h"

namespace tessera::npu {
namespace {

// Token queue per (queue, flag), following load -> compute -> store.
constexpr uint8_t N = kNoTokenQueue;
constexpr uint8_t kPopPrevTq[3] = {N, 0, 2};
constexpr uint8_t kPopNextTq[3] = {1, 3, N};
constexpr uint8_t kPushPrevTq[3] = {N, 1, 3};
constexpr uint8_t kPushNextTq[3] = {0, 2, N};

// An instruction's dependency flags as four bits, as the encoding packs them (pop_prev = 1,
// pop_next = 2, push_prev = 4, push_next = 8).
unsigned deps_bits(const Deps& d) {
  return unsigned(d.pop_prev) | unsigned(d.pop_next) << 1 | unsigned(d.push_prev) << 2 |
         unsigned(d.push_next) << 3;
}

// What each queue makes of each combination of flags, tabled once: whether it is legal, and the
// token queues popped and pushed, in the order the flags are checked.
constexpr unsigned kFlagSets = 1u << 4;  // combinations of the four flags

struct DepsEntry {
  bool legal = true;
  uint8_t pops[2] = {N, N};
  uint8_t pushes[2] = {N, N};
};
using DepsTable = std::array<std::array<DepsEntry, kFlagSets>, kNumQueues>;

constexpr DepsTable make_deps_table() {
  DepsTable table{};
  for (int q = 0; q < kNumQueues; ++q)
    for (unsigned bits = 0; bits < kFlagSets; ++bits) {
      DepsEntry e;
      const bool on[4] = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0};
      const uint8_t tq[4] = {kPopPrevTq[q], kPopNextTq[q], kPushPrevTq[q], kPushNextTq[q]};
      int pops = 0, pushes = 0;
      for (int f = 0; f < 4; ++f) {
        if (!on[f]) continue;
        if (tq[f] == N) e.legal = false;
        if (f < 2)
          e.pops[pops++] = tq[f];
        else
          e.pushes[pushes++] = tq[f];
      }
      table[q][bits] = e;
    }
  return table;
}
constexpr DepsTable kDepsTable = make_deps_table();

uint64_t last_addr(const Affine& a, uint16_t ext0, uint16_t ext1) {
  return uint64_t(a.base) + uint64_t(a.stride0) * (ext0 - 1) + uint64_t(a.stride1) * (ext1 - 1);
}

uint64_t gcd(uint64_t a, uint64_t b) { return b == 0 ? a : gcd(b, a % b); }

// The cycles of a GEMM's steps, fixed cost excluded (docs/npu_isa.md section 6): one step per
// cycle, except that an accumulating step whose row was written by an earlier step of the same
// instruction issues no sooner than `latency` cycles after that step. Step k (i0-major) issues at
//   t(k) = max(t(k-1) + 1, t(prev(k)) + latency),   prev(k) = last earlier step on k's row,
// and the steps take t(last) + 1 cycles. Closed forms for the patterns compilers emit; the step
// recurrence (linear in steps) only for strides whose rows repeat at a distance.
uint64_t gemm_step_cycles(const Gemm& g, uint64_t latency) {
  const uint64_t e0 = g.ext0, e1 = g.ext1, steps = e0 * e1;
  if (g.reset || latency <= 1) return steps;  // a reset step reads no accumulator row
  // Strides of a loop with one iteration do not move the row.
  const uint64_t s0 = e0 > 1 ? g.acc.stride0 : 0, s1 = e1 > 1 ? g.acc.stride1 : 0;
  if (s0 == 0 && s1 == 0) return 1 + (steps - 1) * latency;   // one row throughout
  if (s1 == 0) return e0 * (1 + (e1 - 1) * latency);          // inner loop on one row
  if (s0 == 0) return (e0 - 1) * std::max(e1, latency) + e1;  // rows repeat per i0
  if (s0 > s1 * (e1 - 1)) return steps;                       // every row is new
  // Row(i0, i1) = row(i0 - a, i1 + b) with a = s1/g, b = s0/g: the last earlier step on the same
  // row is d = a*e1 - b steps back when i0 >= a and i1 + b < e1.
  const uint64_t gg = gcd(s0, s1), a = s1 / gg, b = s0 / gg, d = a * e1 - b;
  if (d >= latency) return steps;    // the row is free again by the time it comes back
  std::vector<uint64_t> ring(d, 0);  // issue times of the last d steps
  uint64_t t = 0;
  for (uint64_t i0 = 0, k = 0; i0 < e0; ++i0)
    for (uint64_t i1 = 0; i1 < e1; ++i1, ++k) {
      uint64_t issue = k == 0 ? 0 : t + 1;
      if (i0 >= a && i1 + b < e1) issue = std::max(issue, ring[k % d] + latency);
      ring[k % d] = t = issue;
    }
  return t + 1;
}

bool overlaps(const ComputeAccess::Range& a, const ComputeAccess::Range& b) {
  return a.mem == b.mem && a.lo < b.hi && b.lo < a.hi;
}

class Checker {
 public:
  Checker(const Kernel& k, const Target& t, PreparedProgram& p)
      : k_(k),
        t_(t),
        p_(p),
        ddr_bytes_(k.ddr_bytes()),
        sram_rows_(uint64_t(t.sram_rows())),
        acc_rows_(uint64_t(t.acc_rows())),
        vector_row_cycles_(uint64_t(t.vector_cycles_per_row())) {}

  [[noreturn]] void fail(size_t i, const std::string& what) const {
    throw SimulationError(str(describe_insn(k_, i), ": ", what));
  }

  // Records a touch of rows [first, end) of `mem` and checks it is in range.
  void rows(size_t i, Mem mem, uint64_t first, uint64_t end, const char* role) {
    uint64_t limit = mem == Mem::kAcc ? acc_rows_ : sram_rows_;
    if (end > limit) [[unlikely]]
      fail(i, str(role, " touches ", mem == Mem::kAcc ? "accumulator" : "SRAM", " rows [", first,
                  ", ", end, ") but the ", mem == Mem::kAcc ? "accumulator" : "SRAM", " has ",
                  limit, " rows (", mem == Mem::kAcc ? t_.acc_bytes : t_.sram_bytes, " bytes)"));
    uint64_t& used = mem == Mem::kAcc ? p_.acc_rows_used : p_.sram_rows_used;
    used = std::max(used, end);
  }

  void loop(size_t i, uint16_t ext0, uint16_t ext1) {
    if (ext0 == 0 || ext1 == 0)
      fail(i, str("empty loop ext=", ext0, "x", ext1, "; extents must be >= 1"));
  }

  void dma(size_t i, const Insn& insn, PreparedOp& op) {
    const Dma& d = insn.dma;
    bool load = insn.opcode == Opcode::kLoad;
    if (d.rows == 0 || d.cols == 0) fail(i, str("empty transfer size=", d.rows, "x", d.cols));
    if (!load && (d.pad_top || d.pad_bottom || d.pad_left || d.pad_right))
      fail(i, "a store cannot pad; padding is for loads only");
    uint64_t unit = d.mem == Mem::kAcc ? 4 * t_.mac_out : t_.mac_in;
    uint64_t total_rows = uint64_t(d.pad_top) + d.rows + d.pad_bottom;
    uint64_t width = uint64_t(d.pad_left) + d.cols + d.pad_right;
    uint64_t end = uint64_t(d.sram_addr) + (total_rows - 1) * d.sram_stride + width;
    rows(i, d.mem, d.sram_addr, end, load ? "destination" : "source");
    uint64_t ddr_end = uint64_t(d.ddr_addr) + uint64_t(d.rows - 1) * d.ddr_stride + d.cols * unit;
    if (ddr_end > ddr_bytes_)
      fail(i, str("DDR bytes [", d.ddr_addr, ", ", ddr_end,
                  ") are outside the kernel's DDR space of ", ddr_bytes_, " bytes"));
    op.is_dma = true;
    op.is_store = !load;
    op.ddr_units = uint32_t(d.rows) * d.cols;
    op.acc_units = d.mem == Mem::kAcc;
    uint64_t bytes = uint64_t(op.ddr_units) * unit, bpc = t_.ddr_bytes_per_cycle;
    op.cycles = (bytes + bpc - 1) / bpc + uint64_t(d.rows) * t_.dma_row_cycles;
    op.pad_cycles = (total_rows * width - uint64_t(d.rows) * d.cols) * uint64_t(t_.pad_unit_cycles);
    work_ = total_rows * width * unit;
  }

  // `access` (two-unit targets only, else null) receives what the instruction touches.
  void gemm(size_t i, const Gemm& g, PreparedOp& op, ComputeAccess* access) {
    loop(i, g.ext0, g.ext1);
    const uint64_t acc_end = last_addr(g.acc, g.ext0, g.ext1) + 1;
    const uint64_t inp_end = last_addr(g.inp, g.ext0, g.ext1) + 1;
    const uint64_t wgt_end = last_addr(g.wgt, g.ext0, g.ext1) + uint64_t(t_.mac_out);
    rows(i, Mem::kAcc, g.acc.base, acc_end, "acc operand");
    rows(i, Mem::kSram, g.inp.base, inp_end, "inp operand");
    rows(i, Mem::kSram, g.wgt.base, wgt_end, "wgt operand");
    if (access) {
      access->unit = ComputeUnit::kMac;
      access->writes = {Mem::kAcc, g.acc.base, acc_end};
      access->reads[0] = {Mem::kSram, g.inp.base, inp_end};
      access->reads[1] = {Mem::kSram, g.wgt.base, wgt_end};
      if (!g.reset) access->reads[2] = access->writes;  // accumulating: reads its rows too
    }
    uint64_t steps = uint64_t(g.ext0) * g.ext1;
    op.cycles = t_.gemm_fixed_cycles + gemm_step_cycles(g, uint64_t(t_.acc_raw_latency_cycles));
    p_.macs += steps * t_.macs_per_cycle();
    work_ = steps * t_.macs_per_cycle();
  }

  void vector(size_t i, const Vector& v, PreparedOp& op, ComputeAccess* access) {
    loop(i, v.ext0, v.ext1);
    bool unary = v.op == VecOp::kRelu || v.op == VecOp::kClip || v.op == VecOp::kRequantize;
    if (unary && !v.use_imm)
      fail(i, str(vec_op_name(v.op), " takes immediate parameters, not a tensor operand"));
    if (v.op == VecOp::kRelu && v.imm != 0) fail(i, "relu takes no immediate");
    if (v.op == VecOp::kClip && v.imm > v.imm_hi)
      fail(i, str("clip bounds are reversed: lo=", v.imm, " > hi=", v.imm_hi));
    if (v.op == VecOp::kShr && v.use_imm && (v.imm < 0 || v.imm > 31))
      fail(i, str("shift amount ", v.imm, " is out of range [0, 31]"));
    if (v.op == VecOp::kRequantize && v.shift > 62)
      fail(i, str("requantize shift ", int(v.shift), " is out of range [0, 62]"));
    if (v.op == VecOp::kMac && v.dst_mem != Mem::kAcc)
      fail(i, "mac accumulates into the accumulator; its destination is in SRAM");
    const uint64_t dst_end = last_addr(v.dst, v.ext0, v.ext1) + 1;
    const uint64_t src_end = last_addr(v.src, v.ext0, v.ext1) + 1;
    rows(i, v.dst_mem, v.dst.base, dst_end, "dst operand");
    rows(i, v.src_mem, v.src.base, src_end, "src operand");
    const uint64_t src2_end = v.use_imm ? 0 : last_addr(v.src2, v.ext0, v.ext1) + 1;
    if (!v.use_imm) rows(i, v.src2_mem, v.src2.base, src2_end, "src2 operand");
    if (access) {
      access->unit = ComputeUnit::kVector;
      access->writes = {v.dst_mem, v.dst.base, dst_end};
      access->reads[0] = {v.src_mem, v.src.base, src_end};
      if (!v.use_imm) access->reads[1] = {v.src2_mem, v.src2.base, src2_end};
      if (v.op == VecOp::kMac) access->reads[2] = access->writes;  // accumulates into dst
    }
    uint64_t iters = uint64_t(v.ext0) * v.ext1;
    op.cycles = t_.vector_fixed_cycles + iters * vector_row_cycles_;
    p_.vector_ops += iters * t_.mac_out;
    work_ = iters * t_.mac_out;
  }

  // Sets the instruction's pops and pushes from its flags (a table lookup; the checks run only to
  // name an illegal flag) and counts the combination for the token totals (token_totals).
  void deps(size_t i, const Insn& insn, PreparedOp& op) {
    const unsigned bits = deps_bits(insn.deps);
    const DepsEntry& e = kDepsTable[op.queue][bits];
    if (!e.legal) [[unlikely]]
      illegal_deps(i, insn.deps, op.queue);
    op.pops[0] = e.pops[0];
    op.pops[1] = e.pops[1];
    op.pushes[0] = e.pushes[0];
    op.pushes[1] = e.pushes[1];
    ++deps_count_[op.queue][bits];
  }

  [[noreturn]] void illegal_deps(size_t i, const Deps& d, int q) const {
    auto need = [&](bool on, uint8_t tq, const char* flag) {
      if (on && tq == kNoTokenQueue)
        fail(i, str("the ", queue_name(Queue(q)), " queue has no ", q == 0 ? "previous" : "next",
                    " queue, so ", flag, " is illegal"));
    };
    need(d.pop_prev, kPopPrevTq[q], "pop_prev");
    need(d.pop_next, kPopNextTq[q], "pop_next");
    need(d.push_prev, kPushPrevTq[q], "push_prev");
    need(d.push_next, kPushNextTq[q], "push_next");
    fail(i, "illegal dependency flags");  // not reached: the table agrees with the checks
  }

  // Pushes and pops per token queue over the whole program, from the counted flag combinations.
  void token_totals(std::array<uint64_t, kNumTokenQueues>& pushes,
                    std::array<uint64_t, kNumTokenQueues>& pops) const {
    for (int q = 0; q < kNumQueues; ++q)
      for (unsigned bits = 0; bits < kFlagSets; ++bits) {
        const uint64_t count = deps_count_[q][bits];
        const DepsEntry& e = kDepsTable[q][bits];
        for (int n = 0; n < 2; ++n) {
          if (e.pushes[n] != kNoTokenQueue) pushes[e.pushes[n]] += count;
          if (e.pops[n] != kNoTokenQueue) pops[e.pops[n]] += count;
        }
      }
  }

  // Adds instruction i's work (set by dma/gemm/vector, 0 otherwise) to the program's total and
  // returns whether the total is now over `max_work`.
  bool add_work(uint64_t max_work) {
    uint64_t w = work_ + 1;  // + 1: every instruction costs something
    work_ = 0;
    p_.work = w > UINT64_MAX - p_.work ? UINT64_MAX : p_.work + w;
    return p_.work > max_work;
  }

 private:
  const Kernel& k_;
  const Target& t_;
  PreparedProgram& p_;
  const uint64_t ddr_bytes_, sram_rows_, acc_rows_, vector_row_cycles_;
  uint64_t work_ = 0;  // of the instruction being checked
  uint64_t deps_count_[kNumQueues][kFlagSets] = {};  // instructions per queue and flag combination
};

}  // namespace

bool ComputeAccess::conflicts_with(const ComputeAccess& o) const {
  if (unit == ComputeUnit::kBoth || o.unit == ComputeUnit::kBoth) return true;
  if (overlaps(writes, o.writes)) return true;
  for (const Range& r : o.reads)
    if (overlaps(writes, r)) return true;
  for (const Range& r : reads)
    if (overlaps(o.writes, r)) return true;
  return false;
}

const char* token_queue_name(int tq) {
  static const char* const kNames[kNumTokenQueues] = {"load->compute", "compute->load",
                                                      "compute->store", "store->compute"};
  return tq >= 0 && tq < kNumTokenQueues ? kNames[tq] : "none";
}

std::string describe_insn(const Kernel& kernel, size_t index) {
  return str("instruction #", index, " (", disassemble(kernel.program[index]), ")");
}

PreparedProgram prepare_program(const Kernel& k, const Target& t, uint64_t max_work) {
  check_kernel_target(k, t);
  PreparedProgram p;
  Checker c(k, t, p);
  const size_t n = k.program.size();
  if (n == 0)
    throw SimulationError(
        str("kernel '", k.name, "': the program is empty; it must end with finish"));
  if (n > 0xffffffffull) throw SimulationError(str("kernel '", k.name, "': too many instructions"));
  p.ops.resize(n);
  std::array<uint64_t, kNumTokenQueues> pops_total{};
  size_t over_limit_at = n;  // the first instruction at which the total work passes max_work
  // Each queue's list written through a cursor, trimmed at the end.
  uint32_t* next[kNumQueues];
  for (int q = 0; q < kNumQueues; ++q) {
    p.queue_insns[q].resize(n);
    next[q] = p.queue_insns[q].data();
  }
  const bool two_units = t.compute_units == 2;
  if (two_units) p.compute_access.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Insn& insn = k.program[i];
    PreparedOp& op = p.ops[i];
    if (!is_known_opcode(insn.opcode))
      c.fail(i, str("unknown opcode ", int(static_cast<uint8_t>(insn.opcode))));
    if (insn.opcode == Opcode::kFinish && i + 1 != n)
      c.fail(i, str("finish must be the last instruction, but ", n - 1 - i, " follow it"));
    if (insn.opcode == Opcode::kSync && static_cast<uint8_t>(insn.sync_queue) > 2)
      c.fail(i, "sync names an unknown queue");
    op.queue = static_cast<uint8_t>(queue_of(insn));
    op.opcode = insn.opcode;
    c.deps(i, insn, op);
    // Two-unit targets: every compute-queue instruction's access, kBoth unless a GEMM or vector
    // instruction fills it in.
    ComputeAccess* access = nullptr;
    if (two_units && op.queue == static_cast<uint8_t>(Queue::kCompute))
      access = &p.compute_access.emplace_back();
    switch (insn.opcode) {
      case Opcode::kLoad:
      case Opcode::kStore:
        c.dma(i, insn, op);
        break;
      case Opcode::kGemm:
        c.gemm(i, insn.gemm, op, access);
        break;
      case Opcode::kVector:
        c.vector(i, insn.vec, op, access);
        break;
      default:
        op.cycles = 1;
        break;  // sync, finish
    }
    if (c.add_work(max_work) && over_limit_at == n) over_limit_at = i;
    p.insn_count[static_cast<uint8_t>(insn.opcode)]++;
    *next[op.queue]++ = static_cast<uint32_t>(i);
  }
  for (int q = 0; q < kNumQueues; ++q)
    p.queue_insns[q].resize(size_t(next[q] - p.queue_insns[q].data()));
  c.token_totals(p.pushes_total, pops_total);
  if (k.program[n - 1].opcode != Opcode::kFinish) c.fail(n - 1, "the program must end with finish");
  // Token underflow: a pop with no matching push anywhere in the program can never be satisfied.
  bool underflow = false;
  for (int q = 0; q < kNumTokenQueues; ++q) underflow |= pops_total[q] > p.pushes_total[q];
  std::array<uint64_t, kNumTokenQueues> pops{};
  for (size_t i = 0; underflow && i < n; ++i)
    for (uint8_t tq : p.ops[i].pops) {
      if (tq == kNoTokenQueue) continue;
      if (++pops[tq] > p.pushes_total[tq])
        c.fail(i, str("token underflow: pop #", pops[tq], " from the ", token_queue_name(tq),
                      " token queue, but the program pushes only ", p.pushes_total[tq],
                      " tokens onto it"));
    }
  // Checked last, so that a program that is wrong is reported as wrong, not as too long. An
  // instruction's work is known statically, so a program is judged before anything runs (a
  // 467-byte kernel can ask for 10^12 MACs; functional mode would take an hour).
  if (over_limit_at < n)
    c.fail(over_limit_at, str("the program's work passes the simulation limit of ", max_work,
                              " element operations (MACs, vector lane operations, bytes moved on "
                              "chip) at this instruction; the whole program needs ",
                              p.work,
                              ". Raise the limit (SimOptions::max_work, max_work= in "
                              "Python) to simulate it"));
  return p;
}

}  // namespace tessera::npu
