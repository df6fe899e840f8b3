#include "runtime/npu/encoding.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/base/error.h"

namespace tessera::npu {
namespace {

// Little-endian field access, independent of the host's byte order. On a little-endian host a
// field is one store (encode runs once per instruction for every kernel fingerprint); elsewhere
// byte by byte.
template <typename T>
void put(EncodedInsn& b, size_t at, T value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(b.data() + at, &value, sizeof(T));
#else
  auto u = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(value));
  for (size_t i = 0; i < sizeof(T); ++i) b[at + i] = static_cast<uint8_t>(u >> (8 * i));
#endif
}

template <typename T>
T get(const uint8_t* b, size_t at) {
  uint64_t u = 0;
  for (size_t i = 0; i < sizeof(T); ++i) u |= static_cast<uint64_t>(b[at + i]) << (8 * i);
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(u));
}

uint8_t deps_bits(const Deps& d) {
  return uint8_t(d.pop_prev) | uint8_t(d.pop_next) << 1 | uint8_t(d.push_prev) << 2 |
         uint8_t(d.push_next) << 3;
}

std::string hex(const uint8_t* b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < kInsnBytes; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += (i ? " " : "");
    s += buf;
  }
  return s;
}

[[noreturn]] void bad(const uint8_t* b, size_t index, const std::string& what) {
  throw KernelFileError(str("instruction #", index, ": ", what, " (bytes: ", hex(b), ")"));
}

// Rejects nonzero bytes in [from, to): reserved for this opcode.
void check_zero(const uint8_t* b, size_t index, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (b[i] != 0) bad(b, index, str("reserved byte ", i, " is nonzero"));
}

void put_affine(EncodedInsn& b, size_t base_at, size_t strides_at, const Affine& a) {
  put<uint32_t>(b, base_at, a.base);
  put<uint16_t>(b, strides_at, a.stride0);
  put<uint16_t>(b, strides_at + 2, a.stride1);
}

Affine get_affine(const uint8_t* b, size_t base_at, size_t strides_at) {
  Affine a;
  a.base = get<uint32_t>(b, base_at);
  a.stride0 = get<uint16_t>(b, strides_at);
  a.stride1 = get<uint16_t>(b, strides_at + 2);
  return a;
}

Mem mem_bit(uint8_t bits, int bit) { return (bits >> bit) & 1 ? Mem::kAcc : Mem::kSram; }

}  // namespace

EncodedInsn encode(const Insn& insn) {
  EncodedInsn b{};
  b[0] = static_cast<uint8_t>(insn.opcode);
  b[1] = deps_bits(insn.deps);
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      const Dma& d = insn.dma;
      b[2] = static_cast<uint8_t>(d.mem);
      put<uint32_t>(b, 4, d.ddr_addr);
      put<uint32_t>(b, 8, d.ddr_stride);
      put<uint32_t>(b, 12, d.sram_addr);
      put<uint32_t>(b, 16, d.sram_stride);
      put<uint16_t>(b, 20, d.rows);
      put<uint16_t>(b, 22, d.cols);
      b[24] = d.pad_top;
      b[25] = d.pad_bottom;
      b[26] = d.pad_left;
      b[27] = d.pad_right;
      break;
    }
    case Opcode::kGemm: {
      const Gemm& g = insn.gemm;
      b[2] = g.reset ? 1 : 0;
      put<uint16_t>(b, 4, g.ext0);
      put<uint16_t>(b, 6, g.ext1);
      put_affine(b, 8, 20, g.acc);
      put_affine(b, 12, 24, g.inp);
      put_affine(b, 16, 28, g.wgt);
      break;
    }
    case Opcode::kVector: {
      const Vector& v = insn.vec;
      b[2] = static_cast<uint8_t>(v.op);
      b[3] = uint8_t(v.dst_mem == Mem::kAcc) | uint8_t(v.src_mem == Mem::kAcc) << 1 |
             uint8_t(!v.use_imm && v.src2_mem == Mem::kAcc) << 2 | uint8_t(v.use_imm) << 3;
      put<uint16_t>(b, 4, v.ext0);
      put<uint16_t>(b, 6, v.ext1);
      put_affine(b, 8, 16, v.dst);
      put_affine(b, 12, 20, v.src);
      if (!v.use_imm) {
        put<uint32_t>(b, 24, v.src2.base);
        put<uint16_t>(b, 28, v.src2.stride0);
        put<uint16_t>(b, 30, v.src2.stride1);
      } else {
        put<int32_t>(b, 24, v.imm);
        if (v.op == VecOp::kClip) put<int32_t>(b, 28, v.imm_hi);
        if (v.op == VecOp::kRequantize) {
          b[28] = v.shift;
          b[29] = static_cast<uint8_t>(v.zero_point);
        }
      }
      break;
    }
    case Opcode::kSync:
      b[2] = static_cast<uint8_t>(insn.sync_queue);
      break;
    default:
      break;
  }
  return b;
}

Insn decode(const uint8_t* b, size_t index) {
  Insn insn;
  insn.opcode = static_cast<Opcode>(b[0]);
  if (b[1] & 0xf0) bad(b, index, "reserved dependency bits are set");
  insn.deps.pop_prev = b[1] & 1;
  insn.deps.pop_next = b[1] & 2;
  insn.deps.push_prev = b[1] & 4;
  insn.deps.push_next = b[1] & 8;
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      Dma& d = insn.dma;
      if (b[2] > 1) bad(b, index, str("unknown memory ", int(b[2])));
      d.mem = static_cast<Mem>(b[2]);
      check_zero(b, index, 3, 4);
      d.ddr_addr = get<uint32_t>(b, 4);
      d.ddr_stride = get<uint32_t>(b, 8);
      d.sram_addr = get<uint32_t>(b, 12);
      d.sram_stride = get<uint32_t>(b, 16);
      d.rows = get<uint16_t>(b, 20);
      d.cols = get<uint16_t>(b, 22);
      d.pad_top = b[24];
      d.pad_bottom = b[25];
      d.pad_left = b[26];
      d.pad_right = b[27];
      check_zero(b, index, 28, 32);
      break;
    }
    case Opcode::kGemm: {
      Gemm& g = insn.gemm;
      if (b[2] > 1) bad(b, index, "unknown gemm flags");
      check_zero(b, index, 3, 4);
      g.reset = b[2] == 1;
      g.ext0 = get<uint16_t>(b, 4);
      g.ext1 = get<uint16_t>(b, 6);
      g.acc = get_affine(b, 8, 20);
      g.inp = get_affine(b, 12, 24);
      g.wgt = get_affine(b, 16, 28);
      break;
    }
    case Opcode::kVector: {
      Vector& v = insn.vec;
      if (b[2] >= kNumVecOps) bad(b, index, str("unknown vector op ", int(b[2])));
      if (b[3] & 0xf0) bad(b, index, "reserved vector flag bits are set");
      v.op = static_cast<VecOp>(b[2]);
      v.dst_mem = mem_bit(b[3], 0);
      v.src_mem = mem_bit(b[3], 1);
      v.use_imm = (b[3] >> 3) & 1;
      v.ext0 = get<uint16_t>(b, 4);
      v.ext1 = get<uint16_t>(b, 6);
      v.dst = get_affine(b, 8, 16);
      v.src = get_affine(b, 12, 20);
      if (!v.use_imm) {
        v.src2_mem = mem_bit(b[3], 2);
        v.src2.base = get<uint32_t>(b, 24);
        v.src2.stride0 = get<uint16_t>(b, 28);
        v.src2.stride1 = get<uint16_t>(b, 30);
      } else {
        if (b[3] & 4) bad(b, index, "immediate operand with a tensor memory bit set");
        v.imm = get<int32_t>(b, 24);
        if (v.op == VecOp::kClip) {
          v.imm_hi = get<int32_t>(b, 28);
        } else if (v.op == VecOp::kRequantize) {
          v.shift = b[28];
          v.zero_point = static_cast<int8_t>(b[29]);
          check_zero(b, index, 30, 32);
        } else {
          check_zero(b, index, 28, 32);
        }
      }
      break;
    }
    case Opcode::kSync:
      if (b[2] > 2) bad(b, index, str("unknown queue ", int(b[2])));
      insn.sync_queue = static_cast<Queue>(b[2]);
      check_zero(b, index, 3, 32);
      break;
    case Opcode::kFinish:
      check_zero(b, index, 2, 32);
      break;
    default:
      bad(b, index, str("unknown opcode ", int(b[0])));
  }
  return insn;
}

}  // namespace tessera::npu
