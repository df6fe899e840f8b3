#include "runtime/npu/execute_insn.h"

#include <algorithm>
#include <cstring>

namespace tessera::npu {
namespace {

uint32_t addr(const Affine& a, uint32_t i0, uint32_t i1) {
  return a.base + uint32_t(a.stride0) * i0 + uint32_t(a.stride1) * i1;
}

// Row pointers, as bytes: an SRAM row is mac_in int8, an accumulator row mac_out int32.
uint8_t* row_bytes(Memories& m, const Target& t, Mem mem, uint64_t row) {
  if (mem == Mem::kAcc) return reinterpret_cast<uint8_t*>(m.acc.data() + row * t.mac_out);
  return reinterpret_cast<uint8_t*>(m.sram.data() + row * t.mac_in);
}

void load(const Dma& d, const Target& t, Memories& m) {
  size_t unit = d.mem == Mem::kAcc ? 4 * t.mac_out : t.mac_in;
  uint32_t total_rows = uint32_t(d.pad_top) + d.rows + d.pad_bottom;
  for (uint32_t r = 0; r < total_rows; ++r) {
    uint8_t* dst = row_bytes(m, t, d.mem, uint64_t(d.sram_addr) + uint64_t(r) * d.sram_stride);
    bool data_row = r >= d.pad_top && r < uint32_t(d.pad_top) + d.rows;
    if (!data_row) {
      std::memset(dst, 0, (size_t(d.pad_left) + d.cols + d.pad_right) * unit);
      continue;
    }
    const uint8_t* src = m.ddr + d.ddr_addr + uint64_t(r - d.pad_top) * d.ddr_stride;
    std::memset(dst, 0, d.pad_left * unit);
    std::memcpy(dst + d.pad_left * unit, src, d.cols * unit);
    std::memset(dst + (d.pad_left + size_t(d.cols)) * unit, 0, d.pad_right * unit);
  }
}

void store(const Dma& d, const Target& t, Memories& m) {
  size_t unit = d.mem == Mem::kAcc ? 4 * t.mac_out : t.mac_in;
  for (uint32_t r = 0; r < d.rows; ++r) {
    const uint8_t* src =
        row_bytes(m, t, d.mem, uint64_t(d.sram_addr) + uint64_t(r) * d.sram_stride);
    std::memcpy(m.ddr + d.ddr_addr + uint64_t(r) * d.ddr_stride, src, d.cols * unit);
  }
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

template <int N>
void gemm_loop(const Gemm& g, const Target& t, Memories& m) {
  const int n = int(t.mac_in);
  for (uint32_t i0 = 0; i0 < g.ext0; ++i0)
    for (uint32_t i1 = 0; i1 < g.ext1; ++i1)
      gemm_step<N>(m.acc.data() + uint64_t(addr(g.acc, i0, i1)) * n,
                   m.sram.data() + uint64_t(addr(g.inp, i0, i1)) * n,
                   m.sram.data() + uint64_t(addr(g.wgt, i0, i1)) * n, n, g.reset);
}

int64_t read_lane(Memories& m, const Target& t, Mem mem, uint32_t row, int lane) {
  if (mem == Mem::kAcc) return m.acc[uint64_t(row) * t.mac_out + lane];
  return m.sram[uint64_t(row) * t.mac_in + lane];
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
  }
  return 0;
}

void vector(const Vector& v, const Target& t, Memories& m) {
  const int lanes = int(t.mac_out);
  for (uint32_t i0 = 0; i0 < v.ext0; ++i0)
    for (uint32_t i1 = 0; i1 < v.ext1; ++i1) {
      uint32_t d = addr(v.dst, i0, i1), s = addr(v.src, i0, i1), s2 = addr(v.src2, i0, i1);
      for (int l = 0; l < lanes; ++l) {
        int64_t a = read_lane(m, t, v.src_mem, s, l);
        int64_t b = v.use_imm ? v.imm : read_lane(m, t, v.src2_mem, s2, l);
        int64_t r = apply(v, a, b);
        if (v.dst_mem == Mem::kAcc)
          m.acc[uint64_t(d) * lanes + l] = int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
        else
          m.sram[uint64_t(d) * t.mac_in + l] = int8_t(std::clamp<int64_t>(r, -128, 127));
      }
    }
}

}  // namespace

void execute_insn(const Insn& insn, const Target& t, Memories& m) {
  switch (insn.opcode) {
    case Opcode::kLoad:
      load(insn.dma, t, m);
      break;
    case Opcode::kStore:
      store(insn.dma, t, m);
      break;
    case Opcode::kGemm:
      // Compile-time sizes for the power-of-two arrays the vectoriser handles best; any other
      // size runs the generic loop (same results).
      switch (t.mac_in) {
        case 8:
          gemm_loop<8>(insn.gemm, t, m);
          break;
        case 16:
          gemm_loop<16>(insn.gemm, t, m);
          break;
        case 32:
          gemm_loop<32>(insn.gemm, t, m);
          break;
        default:
          gemm_loop<0>(insn.gemm, t, m);
      }
      break;
    case Opcode::kVector:
      vector(insn.vec, t, m);
      break;
    default:
      break;  // sync and finish move no data
  }
}

}  // namespace tessera::npu
