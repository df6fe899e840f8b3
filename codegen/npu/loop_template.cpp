#include "codegen/npu/loop_template.h"

#include <cstdlib>
#include <algorithm>
#include <cstring>

#include "runtime/base/error.h"

namespace tessera {

void LoopProbe::push(int slot, int64_t lo, int64_t hi) {
  levels_.push_back({{slot, lo, hi}, true});
  ++live_;
}

bool LoopProbe::pop() {
  bool live = levels_.back().live;
  if (live) --live_;
  levels_.pop_back();
  return live;
}

int LoopProbe::live_vars() {
  int n = 0;
  for (const Level& l : levels_)
    if (l.live) vars_[n++] = l.var;
  return n;
}

void LoopProbe::drop_outer(int k) {
  for (Level& l : levels_) {
    if (k == 0) break;
    if (!l.live) continue;
    l.live = false;
    --live_;
    --k;
  }
}

void LoopProbe::check(const IntProgram& p, const IntEnv& env, bool uniform) {
  check_with([&](const AffineVar* vars, int n) {
    bool reads = false;  // a value that reads none of the variables is the same on the box
    for (int j = 0; !reads && j < n; ++j) reads = p.reads(vars[j].slot);
    if (!reads) return true;
    roots_.resize(p.roots());
    if (!p.eval_affine(env, vars, n, roots_.data())) return false;
    if (!uniform) return true;
    for (const AffineValue& r : roots_)
      for (int j = 0; j < n; ++j)
        if (r.coef[j] != 0) return false;
    return true;
  });
}

namespace {

// Calls f(x, y, numeric) for every field of two instructions (numeric: a number that may move
// by a step; the others, opcodes, flags and memories, must be equal).
template <class F>
bool each_field(const SelectedInsn& a, const SelectedInsn& b, F f) {
  const npu::Insn &x = a.insn, &y = b.insn;
  bool ok = f(x.opcode, y.opcode, false) && f(x.deps.pop_prev, y.deps.pop_prev, false) &&
            f(x.deps.pop_next, y.deps.pop_next, false) &&
            f(x.deps.push_prev, y.deps.push_prev, false) &&
            f(x.deps.push_next, y.deps.push_next, false) &&
            f(x.sync_queue, y.sync_queue, false);
  const npu::Dma &d = x.dma, &e = y.dma;
  ok = ok && f(d.mem, e.mem, false) && f(d.sram_addr, e.sram_addr, true) &&
       f(d.sram_stride, e.sram_stride, true) && f(d.ddr_addr, e.ddr_addr, true) &&
       f(d.ddr_stride, e.ddr_stride, true) && f(d.rows, e.rows, true) && f(d.cols, e.cols, true) &&
       f(d.pad_top, e.pad_top, true) && f(d.pad_bottom, e.pad_bottom, true) &&
       f(d.pad_left, e.pad_left, true) && f(d.pad_right, e.pad_right, true);
  auto affine = [&](const npu::Affine& p, const npu::Affine& q) {
    return f(p.base, q.base, true) && f(p.stride0, q.stride0, true) &&
           f(p.stride1, q.stride1, true);
  };
  const npu::Gemm &g = x.gemm, &h = y.gemm;
  ok = ok && f(g.reset, h.reset, false) && f(g.ext0, h.ext0, true) && f(g.ext1, h.ext1, true) &&
       affine(g.acc, h.acc) && affine(g.inp, h.inp) && affine(g.wgt, h.wgt);
  const npu::Vector &v = x.vec, &w = y.vec;
  ok = ok && f(v.op, w.op, false) && f(v.ext0, w.ext0, true) && f(v.ext1, w.ext1, true) &&
       f(v.dst_mem, w.dst_mem, false) && f(v.src_mem, w.src_mem, false) &&
       f(v.src2_mem, w.src2_mem, false) && affine(v.dst, w.dst) && affine(v.src, w.src) &&
       affine(v.src2, w.src2) && f(v.use_imm, w.use_imm, false) && f(v.imm, w.imm, true) &&
       f(v.imm_hi, w.imm_hi, true) && f(v.shift, w.shift, true) &&
       f(v.zero_point, w.zero_point, true);
  if (!ok || a.accesses.size() != b.accesses.size()) return false;
  for (size_t i = 0; ok && i < a.accesses.size(); ++i) {
    const Access &p = a.accesses[i], &q = b.accesses[i];
    ok = f(p.space, q.space, false) && f(p.lo, q.lo, true) && f(p.hi, q.hi, true) &&
         f(p.write, q.write, false);
  }
  return ok;
}

bool same_insn(const SelectedInsn& a, const SelectedInsn& b) {
  return each_field(a, b, [](const auto& x, const auto& y, bool) { return x == y; });
}

using FieldStep = FieldStepData;

// The steps from iteration a to iteration b (len instructions each); false when a field that
// is not a number differs.
bool field_steps(const SelectedInsn* a, const SelectedInsn* b, size_t len,
                 std::vector<FieldStep>* steps) {
  steps->clear();
  for (size_t i = 0; i < len; ++i) {
    const char* base = reinterpret_cast<const char*>(&a[i]);
    bool ok = each_field(a[i], b[i], [&](const auto& x, const auto& y, bool numeric) {
      if (x == y) return true;
      if (!numeric) return false;
      uint64_t step = static_cast<uint64_t>(static_cast<int64_t>(y)) -
                      static_cast<uint64_t>(static_cast<int64_t>(x));
      steps->push_back({static_cast<uint32_t>(i),
                        static_cast<uint16_t>(reinterpret_cast<const char*>(&x) - base),
                        static_cast<uint8_t>(sizeof(x)), step});
      return true;
    });
    if (!ok) return false;
  }
  return true;
}

template <class T>
void add_at(char* p, uint64_t step) {
  T v;
  std::memcpy(&v, p, sizeof v);
  v = static_cast<T>(static_cast<uint64_t>(v) + step);
  std::memcpy(p, &v, sizeof v);
}

// The next instance of an iteration: each field moved by its step.
void advance(SelectedInsn* insns, const std::vector<FieldStep>& steps) {
  for (const FieldStep& s : steps) {
    char* p = reinterpret_cast<char*>(&insns[s.insn]) + s.offset;
    switch (s.size) {
      case 1:
        add_at<uint8_t>(p, s.step);
        break;
      case 2:
        add_at<uint16_t>(p, s.step);
        break;
      case 4:
        add_at<uint32_t>(p, s.step);
        break;
      default:
        add_at<uint64_t>(p, s.step);
        break;
    }
  }
}

constexpr int64_t kMinExtent = 5;  // a warm-up, two probes, one extrapolated, the last

}  // namespace

bool plain_loops_requested() {
  const char* v = std::getenv("TESSERA_NPU_PLAIN_LOOPS");
  return v && *v && std::strcmp(v, "0") != 0;
}

namespace {

void emit_loop_in(LoopBody& body, int slot, int64_t min, int64_t extent, LoopProbe& probe,
                  std::vector<SelectedInsn>& out, LoopProbe::Scratch& sc) {
  const int64_t end = min + extent;
  body.iterate(min);  // the warm-up
  std::vector<int64_t>&s1 = sc.state[0], &s2 = sc.state[1], &s3 = sc.state[2];
  size_t at[5];
  probe.push(slot, min + 1, end - 1);
  at[1] = out.size();
  body.state(&s1);
  body.iterate(min + 1);
  at[2] = out.size();
  body.state(&s2);
  body.iterate(min + 2);
  at[3] = out.size();
  int64_t next = min + 3;
  int period = 0;
  const size_t len = at[2] - at[1];
  if (s2 == s1) {
    if (at[3] - at[2] == len) period = 1;
  } else if (extent >= kMinExtent + 2) {
    body.state(&s3);
    body.iterate(min + 3);
    at[4] = out.size();
    next = min + 4;
    if (s3 == s1 && at[3] - at[2] == len && at[4] - at[3] == len) period = 2;
  }
  const bool proved = probe.pop();
  // The last `period` iterations run normally; at least one is extrapolated.
  std::vector<FieldStep>& steps = sc.steps;
  if (!proved || period == 0 || len == 0 || next + 1 > end - period ||
      !field_steps(&out[at[1]], &out[at[1 + period]], len, &steps)) {
    for (int64_t v = next; v < end; ++v) body.iterate(v);
    return;
  }
  // The latest instance of each phase class: class (j - 1) % period of iteration j = v - min.
  auto cls = [&](int64_t v) { return static_cast<size_t>((v - min - 1) % period); };
  std::vector<SelectedInsn>& last = sc.last;
  last.clear();
  for (int c = 0; c < period; ++c) {
    int64_t j = next - min - 1;  // the latest probe of class c
    while (static_cast<int>((j - 1) % period) != c) --j;
    last.insert(last.end(), out.begin() + at[j], out.begin() + at[j] + len);
  }
  const size_t mark = out.size();
  const size_t need = mark + static_cast<size_t>(end - next) * len;
  if (out.capacity() < need) out.reserve(std::max(need, 2 * out.capacity()));
  const int64_t tail = end - period;
  for (int64_t v = next; v < tail; ++v) {
    SelectedInsn* it = &last[cls(v) * len];
    advance(it, steps);
    for (size_t i = 0; i < len; ++i) out.push_back(it[i]);
  }
  // The last iterations, normally, from the state of their class.
  const size_t before_next = period == 1 || cls(next) == 0 ? 0 : 1;
  LoopCheckpoint& cp = sc.checkpoint;
  body.checkpoint(&cp);
  cp.probe_depth = probe.depth();
  cp.calls = probe.calls();
  body.set_state(cls(tail) == 0 ? s1 : s2);
  const size_t real = out.size();
  bool same = true;
  try {
    for (int64_t v = tail; v < end; ++v) body.iterate(v);
  } catch (const LowerError&) {
    same = false;  // the plain path below raises it, at its first iteration
  }
  same = same && out.size() == real + period * len;
  for (int64_t v = tail; same && v < end; ++v) {
    SelectedInsn* it = &last[cls(v) * len];
    advance(it, steps);
    for (size_t i = 0; same && i < len; ++i)
      same = same_insn(it[i], out[real + (v - tail) * len + i]);
  }
  if (same) return;
  out.resize(mark);
  body.rollback(cp);
  probe.truncate(cp.probe_depth);
  probe.set_calls(cp.calls);
  body.set_state(sc.state[before_next]);
  for (int64_t v = next; v < end; ++v) body.iterate(v);
}

}  // namespace

void emit_loop(LoopBody& body, int slot, int64_t min, int64_t extent, LoopProbe& probe,
               std::vector<SelectedInsn>& out, bool plain) {
  if (plain || extent < kMinExtent || !probe.room()) {
    for (int64_t v = min; v < min + extent; ++v) body.iterate(v);
    return;
  }
  LoopProbe::Scratch& sc = probe.enter();
  emit_loop_in(body, slot, min, extent, probe, out, sc);
  probe.leave();
}

}  // namespace tessera
