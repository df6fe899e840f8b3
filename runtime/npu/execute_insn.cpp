#include "runtime/npu/execute_insn.h"

#include <algorithm>
#include <cstring>

namespace tessera::npu {
namespace {

using Dest = PendingWrites::Dest;
using Staging = PendingWrites::Staging;

uint32_t addr(const Affine& a, uint32_t i0, uint32_t i1) {
  return a.base + uint32_t(a.stride0) * i0 + uint32_t(a.stride1) * i1;
}

uint64_t last_row(const Affine& a, uint16_t ext0, uint16_t ext1) {
  return uint64_t(a.base) + uint64_t(a.stride0) * (ext0 - 1) + uint64_t(a.stride1) * (ext1 - 1);
}

size_t unit_bytes(Mem mem, const Target& t) {
  return mem == Mem::kAcc ? size_t(4 * t.mac_out) : size_t(t.mac_in);
}

// Row pointers, as bytes: an SRAM row is mac_in int8, an accumulator row mac_out int32.
const uint8_t* row_bytes(const Memories& m, const Target& t, Mem mem, uint64_t row) {
  if (mem == Mem::kAcc) return reinterpret_cast<const uint8_t*>(m.acc.data() + row * t.mac_out);
  return reinterpret_cast<const uint8_t*>(m.sram.data() + row * t.mac_in);
}

void start(PendingWrites& p, Dest dest, Staging staging) {
  p.dest = dest;
  p.staging = staging;
  p.segments.clear();
}

// Rows r at dst_first + r * dst_stride (bytes), each `row` bytes, staged back to back.
void add_rows(PendingWrites& p, uint64_t rows, uint64_t row, uint64_t dst_first,
              uint64_t dst_stride) {
  if (dst_stride == row || rows == 1) {
    p.segments.push_back({dst_first, 0, rows * row});
    return;
  }
  for (uint64_t r = 0; r < rows; ++r)
    p.segments.push_back({dst_first + r * dst_stride, r * row, row});
}

// One segment per run of consecutive written rows of the staged range.
void add_written_runs(PendingWrites& p, uint64_t row_bytes) {
  const size_t n = p.written.size();
  for (size_t r = 0; r < n;) {
    if (!p.written[r]) {
      ++r;
      continue;
    }
    size_t end = r;
    while (end < n && p.written[end]) ++end;
    p.segments.push_back({(p.first_row + r) * row_bytes, r * row_bytes, (end - r) * row_bytes});
    r = end;
  }
}

void load(const Dma& d, const Target& t, const Memories& m, PendingWrites& p) {
  const size_t unit = unit_bytes(d.mem, t);
  const uint64_t total_rows = uint64_t(d.pad_top) + d.rows + d.pad_bottom;
  const size_t width = (size_t(d.pad_left) + d.cols + d.pad_right) * unit;
  start(p, d.mem == Mem::kAcc ? Dest::kAcc : Dest::kSram, Staging::kBytes);
  p.bytes.resize(total_rows * width);
  for (uint64_t r = 0; r < total_rows; ++r) {
    uint8_t* dst = p.bytes.data() + r * width;
    bool data_row = r >= d.pad_top && r < uint64_t(d.pad_top) + d.rows;
    if (!data_row) {
      std::memset(dst, 0, width);
      continue;
    }
    const uint8_t* src = m.ddr + d.ddr_addr + (r - d.pad_top) * uint64_t(d.ddr_stride);
    std::memset(dst, 0, d.pad_left * unit);
    std::memcpy(dst + d.pad_left * unit, src, d.cols * unit);
    std::memset(dst + (d.pad_left + size_t(d.cols)) * unit, 0, d.pad_right * unit);
  }
  add_rows(p, total_rows, width, uint64_t(d.sram_addr) * unit, uint64_t(d.sram_stride) * unit);
}

void store(const Dma& d, const Target& t, const Memories& m, PendingWrites& p) {
  const size_t unit = unit_bytes(d.mem, t);
  const size_t row = d.cols * unit;
  start(p, Dest::kDdr, Staging::kBytes);
  p.bytes.resize(uint64_t(d.rows) * row);
  for (uint32_t r = 0; r < d.rows; ++r)
    std::memcpy(p.bytes.data() + r * row,
                row_bytes(m, t, d.mem, uint64_t(d.sram_addr) + uint64_t(r) * d.sram_stride), row);
  add_rows(p, d.rows, row, d.ddr_addr, d.ddr_stride);
}

// One MAC-array step; N is the array size when known at compile time (the sizes execute_insn
// dispatches), so the compiler unrolls and vectorises the dot products.
template <int N>
void gemm_step(int32_t* acc, const int8_t* inp, const int8_t* wgt, int n, bool reset) {
  const int size = N > 0 ? N : n;
  for (int o = 0; o < size; ++o) {
    int32_t sum = 0;
    for (int i = 0; i < size; ++i) sum += int32_t(inp[i]) * int32_t(wgt[o * size + i]);
    // Wraps modulo 2^32, computed unsigned so that it is defined behaviour.
    acc[o] = reset ? sum : int32_t(uint32_t(acc[o]) + uint32_t(sum));
  }
}

// The accumulator rows [lo, hi) the GEMM touches are staged; its steps run on the staged copy
// (so later steps see earlier ones) with inputs and weights as SRAM holds them at the start.
template <int N>
void gemm(const Gemm& g, const Target& t, const Memories& m, PendingWrites& p) {
  const int n = int(t.mac_in);
  const uint64_t lo = g.acc.base, hi = last_row(g.acc, g.ext0, g.ext1) + 1;
  start(p, Dest::kAcc, Staging::kAccRows);
  p.first_row = lo;
  p.acc_rows.assign(m.acc.begin() + lo * n, m.acc.begin() + hi * n);
  p.written.assign(hi - lo, 0);
  for (uint32_t i0 = 0; i0 < g.ext0; ++i0)
    for (uint32_t i1 = 0; i1 < g.ext1; ++i1) {
      uint64_t a = addr(g.acc, i0, i1) - lo;
      p.written[a] = 1;
      gemm_step<N>(p.acc_rows.data() + a * n, m.sram.data() + uint64_t(addr(g.inp, i0, i1)) * n,
                   m.sram.data() + uint64_t(addr(g.wgt, i0, i1)) * n, n, g.reset);
    }
  add_written_runs(p, uint64_t(4 * n));
}

int64_t rounding_shift(int64_t x, int s) { return s == 0 ? x : (x + (int64_t(1) << (s - 1))) >> s; }

int64_t apply(const Vector& v, int64_t a, int64_t b) {
  switch (v.op) {
    case VecOp::kAdd:
      return a + b;
    case VecOp::kSub:
      return a - b;
    case VecOp::kMul:
      return a * b;
    case VecOp::kMin:
      return std::min(a, b);
    case VecOp::kMax:
      return std::max(a, b);
    case VecOp::kRelu:
      return std::max<int64_t>(a, 0);
    case VecOp::kShr:
      return rounding_shift(a, int(std::clamp<int64_t>(b, 0, 31)));
    case VecOp::kClip:
      return std::clamp<int64_t>(a, v.imm, v.imm_hi);
    case VecOp::kRequantize:
      return std::clamp<int64_t>(rounding_shift(a * v.imm, v.shift) + v.zero_point, -128, 127);
    case VecOp::kMac:
      break;  // reads the destination too: vector() computes it
  }
  return 0;
}

// The destination rows [lo, hi) are staged; a read of a staged row sees the instruction's own
// earlier writes, every other read sees memory as it is at the start.
class VectorRun {
 public:
  VectorRun(const Vector& v, const Target& t, const Memories& m, PendingWrites& p)
      : v_(v), m_(m), p_(p), lanes_(int(t.mac_out)), in_(int(t.mac_in)) {
    lo_ = v.dst.base;
    hi_ = last_row(v.dst, v.ext0, v.ext1) + 1;
    p.first_row = lo_;
    p.written.assign(hi_ - lo_, 0);
    if (v.dst_mem == Mem::kAcc) {
      start(p, Dest::kAcc, Staging::kAccRows);
      p.acc_rows.assign(m.acc.begin() + lo_ * lanes_, m.acc.begin() + hi_ * lanes_);
    } else {
      start(p, Dest::kSram, Staging::kSramRows);
      p.sram_rows.assign(m.sram.begin() + lo_ * in_, m.sram.begin() + hi_ * in_);
    }
  }

  void run() {
    for (uint32_t i0 = 0; i0 < v_.ext0; ++i0)
      for (uint32_t i1 = 0; i1 < v_.ext1; ++i1) {
        uint32_t d = addr(v_.dst, i0, i1), s = addr(v_.src, i0, i1), s2 = addr(v_.src2, i0, i1);
        uint64_t row = d - lo_;
        p_.written[row] = 1;
        for (int l = 0; l < lanes_; ++l) {
          int64_t a = lane(v_.src_mem, s, l);
          int64_t b = v_.use_imm ? v_.imm : lane(v_.src2_mem, s2, l);
          if (v_.op == VecOp::kMac) {  // into the accumulator (prepare_program checks); wraps
            int32_t old = int32_t(lane(Mem::kAcc, d, l));
            p_.acc_rows[row * lanes_ + l] = int32_t(uint32_t(old) + uint32_t(uint64_t(a * b)));
            continue;
          }
          int64_t r = apply(v_, a, b);
          if (v_.dst_mem == Mem::kAcc)
            p_.acc_rows[row * lanes_ + l] = int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
          else
            p_.sram_rows[row * in_ + l] = int8_t(std::clamp<int64_t>(r, -128, 127));
        }
      }
    add_written_runs(p_, v_.dst_mem == Mem::kAcc ? uint64_t(4 * lanes_) : uint64_t(in_));
  }

 private:
  int64_t lane(Mem mem, uint64_t row, int l) const {
    bool staged = mem == v_.dst_mem && row >= lo_ && row < hi_;
    if (mem == Mem::kAcc)
      return staged ? p_.acc_rows[(row - lo_) * lanes_ + l] : m_.acc[row * lanes_ + l];
    return staged ? p_.sram_rows[(row - lo_) * in_ + l] : m_.sram[row * in_ + l];
  }

  const Vector& v_;
  const Memories& m_;
  PendingWrites& p_;
  const int lanes_, in_;
  uint64_t lo_ = 0, hi_ = 0;
};

}  // namespace

void begin_insn(const Insn& insn, const Target& t, const Memories& m, PendingWrites& p) {
  switch (insn.opcode) {
    case Opcode::kLoad:
      load(insn.dma, t, m, p);
      break;
    case Opcode::kStore:
      store(insn.dma, t, m, p);
      break;
    case Opcode::kGemm:
      // Compile-time sizes for the power-of-two arrays the vectoriser handles best; any other
      // size runs the generic loop (same results).
      switch (t.mac_in) {
        case 8:
          gemm<8>(insn.gemm, t, m, p);
          break;
        case 16:
          gemm<16>(insn.gemm, t, m, p);
          break;
        case 32:
          gemm<32>(insn.gemm, t, m, p);
          break;
        default:
          gemm<0>(insn.gemm, t, m, p);
      }
      break;
    case Opcode::kVector:
      VectorRun(insn.vec, t, m, p).run();
      break;
    default:
      start(p, Dest::kNone, Staging::kBytes);  // sync and finish move no data
      break;
  }
}

void commit_insn(PendingWrites& p, Memories& m) {
  uint8_t* dst = nullptr;
  switch (p.dest) {
    case Dest::kNone:
      return;
    case Dest::kSram:
      dst = reinterpret_cast<uint8_t*>(m.sram.data());
      break;
    case Dest::kAcc:
      dst = reinterpret_cast<uint8_t*>(m.acc.data());
      break;
    case Dest::kDdr:
      dst = m.ddr;
      break;
  }
  const uint8_t* src = p.staging == Staging::kBytes ? p.bytes.data()
                       : p.staging == Staging::kAccRows
                           ? reinterpret_cast<const uint8_t*>(p.acc_rows.data())
                           : reinterpret_cast<const uint8_t*>(p.sram_rows.data());
  for (const PendingWrites::Segment& s : p.segments) std::memcpy(dst + s.dst, src + s.src, s.bytes);
  p.dest = Dest::kNone;
}

}  // namespace tessera::npu
