// The NPU instruction set, decoded form. docs/npu_isa.md is the reference: semantics, encoding,
// timing. Every instruction is a plain struct; the fields an opcode does not use stay zero, which
// is what the binary encoding (encoding.h) requires.
//
// Address units: SRAM addresses count SRAM rows of Target::mac_in int8 (mac_in bytes);
// accumulator addresses count rows of Target::mac_out int32 (4 * mac_out bytes); DDR addresses
// count bytes.
// A weight tile is mac_out consecutive SRAM rows: row o holds the mac_in weights of output lane o.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::npu {

enum class Opcode : uint8_t {
  kLoad = 1,    // DMA DDR -> SRAM or accumulator (load queue)
  kStore = 2,   // DMA SRAM or accumulator -> DDR (store queue)
  kGemm = 3,    // MAC-array steps over a two-level loop (compute queue)
  kVector = 4,  // vector ALU over a two-level loop (compute queue)
  kSync = 5,    // only pops and pushes dependency tokens, in the queue it names
  kFinish = 6,  // last instruction of every program (compute queue)
};
constexpr int kNumOpcodes = 7;  // opcode values 1..6; index 0 unused in per-opcode tables

enum class Queue : uint8_t { kLoad = 0, kCompute = 1, kStore = 2 };
constexpr int kNumQueues = 3;

enum class Mem : uint8_t { kSram = 0, kAcc = 1 };

enum class VecOp : uint8_t {
  kAdd = 0,
  kSub = 1,
  kMul = 2,
  kMin = 3,
  kMax = 4,
  kRelu = 5,        // no operand
  kShr = 6,         // rounding arithmetic shift right; operand = shift amount
  kClip = 7,        // clamp to [imm, imm_hi]
  kRequantize = 8,  // int32 -> int8: ((x * imm) >>r shift) + zero_point, saturated
  kMac = 9,         // dst (accumulator) += src * operand, wrapping modulo 2^32 like the MAC array
};
constexpr int kNumVecOps = 10;

// Dependency tokens (as in VTA). "prev"/"next" are the neighbouring queues in the order
// load -> compute -> store. Pops happen before the instruction starts, pushes after it completes.
struct Deps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
};

// 2-D strided DMA. DDR side: `rows` rows of `cols` units, row r at ddr_addr + r * ddr_stride bytes.
// On-chip side: a unit is one row of `mem`; with padding the destination block is
// (pad_top + rows + pad_bottom) x (pad_left + cols + pad_right) units, row r at
// sram_addr + r * sram_stride; padding is filled with zeros (loads only).
struct Dma {
  Mem mem = Mem::kSram;
  uint32_t sram_addr = 0;  // in units of `mem` rows (also used for the accumulator)
  uint32_t sram_stride = 0;
  uint32_t ddr_addr = 0;  // bytes
  uint32_t ddr_stride = 0;
  uint16_t rows = 0;
  uint16_t cols = 0;
  uint8_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// addr(i0, i1) = base + stride0 * i0 + stride1 * i1
struct Affine {
  uint32_t base = 0;
  uint16_t stride0 = 0;
  uint16_t stride1 = 0;
};

// for i0 < ext0: for i1 < ext1:
//   acc[acc(i0,i1)] (reset ? = : +=) wgt_tile[wgt(i0,i1)] . inp[inp(i0,i1)]
struct Gemm {
  bool reset = false;
  uint16_t ext0 = 0, ext1 = 0;
  Affine acc, inp, wgt;
};

// for i0 < ext0: for i1 < ext1: dst[dst(i0,i1)] = op(src[src(i0,i1)], operand), a whole row per
// iteration. The operand is src2[src2(i0,i1)] or, when use_imm, the immediate(s).
struct Vector {
  VecOp op = VecOp::kAdd;
  uint16_t ext0 = 0, ext1 = 0;
  Mem dst_mem = Mem::kAcc, src_mem = Mem::kAcc, src2_mem = Mem::kAcc;
  Affine dst, src, src2;
  bool use_imm = false;
  int32_t imm = 0;        // scalar operand; clip low bound; requantize multiplier
  int32_t imm_hi = 0;     // clip high bound
  uint8_t shift = 0;      // requantize shift
  int8_t zero_point = 0;  // requantize zero point
};

struct Insn {
  Opcode opcode = Opcode::kFinish;
  Deps deps;
  Queue sync_queue = Queue::kLoad;  // kSync only
  Dma dma;                          // kLoad, kStore
  Gemm gemm;                        // kGemm
  Vector vec;                       // kVector
};

inline bool is_known_opcode(Opcode op) {
  return static_cast<uint8_t>(op) >= 1 && static_cast<uint8_t>(op) < kNumOpcodes;
}
const char* opcode_name(Opcode op);  // "load", ..., "unknown"
const char* vec_op_name(VecOp op);
const char* queue_name(Queue q);

// The queue an instruction runs in. Unknown opcodes are reported by the caller, so this returns
// kCompute for them.
inline Queue queue_of(const Insn& insn) {
  switch (insn.opcode) {
    case Opcode::kLoad:
      return Queue::kLoad;
    case Opcode::kStore:
      return Queue::kStore;
    case Opcode::kSync:
      return insn.sync_queue;
    default:
      return Queue::kCompute;
  }
}

// One line of text, stable (tests and error messages compare it), e.g.
//   gemm reset ext=64x1 acc=0+4i+0j inp=0+4i+1j wgt=0+0i+64j deps=pop_prev
std::string disassemble(const Insn& insn);

}  // namespace tessera::npu
