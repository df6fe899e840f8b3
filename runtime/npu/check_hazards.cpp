#include "runtime/npu/check_hazards.h"

#include <algorithm>

#include "runtime/base/error.h"

namespace tessera::npu {
namespace {

using Interval = HazardChecker::Interval;

constexpr uint8_t kSram = 0, kAcc = 1, kDdr = 2;
// An operand whose rows form more runs than this is checked by its bounding range (conservative);
// no DMA or loop of the encoding's field widths with a useful stride comes near it.
constexpr uint64_t kMaxRuns = uint64_t(1) << 17;

uint8_t space_of(Mem m) { return m == Mem::kAcc ? kAcc : kSram; }

// `count` runs of `len` units starting every `stride` units from `first`.
void add_strided(std::vector<Interval>& out, uint8_t space, uint64_t first, uint64_t stride,
                 uint64_t count, uint64_t len) {
  if (count == 1 || stride <= len) {
    out.push_back({space, first, first + (count - 1) * stride + len});
    return;
  }
  for (uint64_t r = 0; r < count; ++r)
    out.push_back({space, first + r * stride, first + r * stride + len});
}

// The rows base + stride0*i0 + stride1*i1 (+ `extra` - 1 rows after each) of a loop operand.
void add_affine(std::vector<Interval>& out, uint8_t space, const Affine& a, uint16_t e0,
                uint16_t e1, uint64_t extra) {
  const bool dense_i1 = e1 == 1 || a.stride1 <= extra;
  const uint64_t per_i0 = dense_i1 ? 1 : e1;
  const uint64_t span = uint64_t(a.stride1) * (e1 - 1) + extra;  // one outer step, if dense_i1
  // One run when the rows leave no gap (each outer step starts within the previous one's run),
  // and, conservatively, when the pattern has too many separate runs to list.
  if ((dense_i1 && (e0 == 1 || a.stride0 <= span)) || uint64_t(e0) * per_i0 > kMaxRuns) {
    uint64_t last =
        uint64_t(a.base) + uint64_t(a.stride0) * (e0 - 1) + uint64_t(a.stride1) * (e1 - 1);
    out.push_back({space, a.base, last + extra});
    return;
  }
  for (uint64_t i0 = 0; i0 < e0; ++i0)
    add_strided(out, space, uint64_t(a.base) + uint64_t(a.stride0) * i0, a.stride1, e1, extra);
}

void sort_and_merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) {
    return x.space != y.space ? x.space < y.space : x.lo < y.lo;
  });
  size_t n = 0;
  for (const Interval& x : v) {
    if (n > 0 && v[n - 1].space == x.space && v[n - 1].hi >= x.lo)
      v[n - 1].hi = std::max(v[n - 1].hi, x.hi);
    else
      v[n++] = x;
  }
  v.resize(n);
}

// The first overlap of two sorted, merged lists, if any.
bool overlap(const std::vector<Interval>& a, const std::vector<Interval>& b, Interval* out) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const Interval &x = a[i], &y = b[j];
    if (x.space != y.space) {
      (x.space < y.space ? i : j)++;
    } else if (x.hi <= y.lo) {
      ++i;
    } else if (y.hi <= x.lo) {
      ++j;
    } else {
      *out = {x.space, std::max(x.lo, y.lo), std::min(x.hi, y.hi)};
      return true;
    }
  }
  return false;
}

std::string range_text(const Kernel& k, const Interval& r) {
  if (r.space == kSram) return str("SRAM rows [", r.lo, ", ", r.hi, ")");
  if (r.space == kAcc) return str("accumulator rows [", r.lo, ", ", r.hi, ")");
  std::string s = str("DDR bytes [", r.lo, ", ", r.hi, ")");
  for (const BufferDecl& b : k.buffers)
    if (r.lo >= b.ddr_offset && r.lo < b.ddr_offset + b.bytes())
      return str(s, " (buffer '", b.name, "' bytes [", r.lo - b.ddr_offset, ", ",
                 std::min(r.hi, b.ddr_offset + b.bytes()) - b.ddr_offset, "))");
  return s;
}

}  // namespace

HazardChecker::HazardChecker(const Kernel& k, const Target& t, const PreparedProgram& p)
    : k_(k), t_(t), p_(p), clock_(p.ops.size()) {}

void HazardChecker::accesses(uint32_t i, Entry& e) {
  e.reads.clear();
  e.writes.clear();
  const Insn& insn = k_.program[i];
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      const Dma& d = insn.dma;
      const uint64_t unit = d.mem == Mem::kAcc ? 4 * t_.mac_out : t_.mac_in;
      const bool load = insn.opcode == Opcode::kLoad;
      const uint64_t rows = load ? uint64_t(d.pad_top) + d.rows + d.pad_bottom : d.rows;
      const uint64_t width = load ? uint64_t(d.pad_left) + d.cols + d.pad_right : d.cols;
      add_strided(load ? e.writes : e.reads, space_of(d.mem), d.sram_addr, d.sram_stride, rows,
                  width);
      add_strided(load ? e.reads : e.writes, kDdr, d.ddr_addr, d.ddr_stride, d.rows, d.cols * unit);
      break;
    }
    case Opcode::kGemm: {
      const Gemm& g = insn.gemm;
      add_affine(e.writes, kAcc, g.acc, g.ext0, g.ext1, 1);
      if (!g.reset) add_affine(e.reads, kAcc, g.acc, g.ext0, g.ext1, 1);
      add_affine(e.reads, kSram, g.inp, g.ext0, g.ext1, 1);
      add_affine(e.reads, kSram, g.wgt, g.ext0, g.ext1, uint64_t(t_.mac_out));
      break;
    }
    case Opcode::kVector: {
      const Vector& v = insn.vec;
      add_affine(e.writes, space_of(v.dst_mem), v.dst, v.ext0, v.ext1, 1);
      add_affine(e.reads, space_of(v.src_mem), v.src, v.ext0, v.ext1, 1);
      if (!v.use_imm) add_affine(e.reads, space_of(v.src2_mem), v.src2, v.ext0, v.ext1, 1);
      break;
    }
    default:
      break;  // sync and finish touch no data
  }
  sort_and_merge(e.reads);
  sort_and_merge(e.writes);
}

void HazardChecker::check_against(const Entry& e, int q, const Entry& o, int oq) const {
  Interval r;
  const char* mine = nullptr;
  const char* theirs = nullptr;
  if (overlap(e.writes, o.writes, &r)) {
    mine = "writes", theirs = "also writes";
  } else if (overlap(e.writes, o.reads, &r)) {
    mine = "writes", theirs = "reads";
  } else if (overlap(e.reads, o.writes, &r)) {
    mine = "reads", theirs = "writes";
  } else {
    return;
  }
  throw SimulationError(
      str(describe_insn(k_, e.insn), ": hazard: on the ", queue_name(Queue(q)), " queue it ", mine,
          " ", range_text(k_, r), ", which ", describe_insn(k_, o.insn), " on the ",
          queue_name(Queue(oq)), " queue ", theirs,
          ", and neither is ordered before the other by queue order or a dependency "
          "token, so the result depends on timing (a dependency token is missing)"));
}

void HazardChecker::on_start(uint32_t i, const uint32_t pushers[2]) {
  const int q = p_.ops[i].queue;
  const uint32_t pos = ++started_[q];
  Clock c{};
  if (pos > 1) c = clock_[p_.queue_insns[q][pos - 2]];
  for (int s = 0; s < 2; ++s)
    if (pushers[s] != kNoPusher)
      for (int u = 0; u < kNumQueues; ++u) c[u] = std::max(c[u], clock_[pushers[s]][u]);
  c[q] = pos;
  clock_[i] = c;

  std::vector<Entry>& mine = window_[q];
  if (spare_.empty()) {
    mine.emplace_back();
  } else {  // reuse a forgotten entry's buffers
    mine.push_back(std::move(spare_.back()));
    spare_.pop_back();
  }
  Entry& e = mine.back();
  e.insn = i;
  e.pos = pos;
  accesses(i, e);
  if (e.reads.empty() && e.writes.empty()) {
    spare_.push_back(std::move(mine.back()));
    mine.pop_back();
  } else {
    for (int b = 0; b < kNumQueues; ++b) {
      if (b == q) continue;
      const std::vector<Entry>& other = window_[b];
      for (size_t j = head_[b]; j < other.size(); ++j)
        if (other[j].pos > c[b]) check_against(e, q, other[j], b);
    }
  }
  forget_known();
}

// An instruction of queue b is forgotten once every other queue that still has instructions to
// start knows it is done: their later instructions know at least as much.
void HazardChecker::forget_known() {
  for (int b = 0; b < kNumQueues; ++b) {
    uint32_t known = UINT32_MAX;
    for (int a = 0; a < kNumQueues; ++a) {
      if (a == b || started_[a] == p_.queue_insns[a].size()) continue;
      uint32_t k = started_[a] == 0 ? 0 : clock_[p_.queue_insns[a][started_[a] - 1]][b];
      known = std::min(known, k);
    }
    std::vector<Entry>& w = window_[b];
    size_t& h = head_[b];
    while (h < w.size() && w[h].pos <= known) ++h;
    if (h == w.size() || (h > 64 && 2 * h > w.size())) {
      for (size_t j = 0; j < h; ++j) spare_.push_back(std::move(w[j]));
      w.erase(w.begin(), w.begin() + std::ptrdiff_t(h));
      h = 0;
    }
  }
}

}  // namespace tessera::npu
