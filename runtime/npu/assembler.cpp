#include "runtime/npu/assembler.h"

#include <utility>

#include "runtime/base/error.h"

namespace tessera::npu {

Deps deps_from_flags(unsigned flags) {
  if (flags & ~15u) throw ArgumentError(str("dependency flags ", flags, " have unknown bits"));
  Deps d;
  d.pop_prev = flags & kPopPrev;
  d.pop_next = flags & kPopNext;
  d.push_prev = flags & kPushPrev;
  d.push_next = flags & kPushNext;
  return d;
}

Affine at(uint32_t base, uint16_t stride0, uint16_t stride1) {
  Affine a;
  a.base = base;
  a.stride0 = stride0;
  a.stride1 = stride1;
  return a;
}

Operand sram(uint32_t base, uint16_t stride0, uint16_t stride1) {
  return Operand{Mem::kSram, at(base, stride0, stride1)};
}

Operand acc(uint32_t base, uint16_t stride0, uint16_t stride1) {
  return Operand{Mem::kAcc, at(base, stride0, stride1)};
}

Assembler::Assembler(const Target& target, std::string kernel_name) : target_(target) {
  validate_target(target, target.name);
  kernel_.name = std::move(kernel_name);
  kernel_.target_name = target.name;
  kernel_.target_hash = target_hash(target);
}

uint32_t Assembler::buffer(const std::string& name, std::vector<int64_t> shape, DType dtype,
                           BufferRole role) {
  uint64_t offset = (kernel_.ddr_bytes() + 63) / 64 * 64;
  BufferDecl b;
  b.name = name;
  b.shape = std::move(shape);
  b.dtype = dtype;
  b.role = role;
  b.ddr_offset = offset;
  Kernel trial = kernel_;
  trial.buffers.push_back(b);
  try {
    check_buffers(trial, str("kernel '", kernel_.name, "'"));
  } catch (const KernelFileError& e) {
    throw ArgumentError(e.what());
  }
  kernel_.buffers.push_back(std::move(b));
  return static_cast<uint32_t>(offset);
}

namespace {
Insn dma_insn(Opcode op, Mem mem, uint32_t addr, uint32_t stride, uint32_t ddr_addr,
              uint32_t ddr_stride, uint16_t rows, uint16_t cols, unsigned deps, Pad pad) {
  Insn i;
  i.opcode = op;
  i.deps = deps_from_flags(deps);
  i.dma.mem = mem;
  i.dma.sram_addr = addr;
  i.dma.sram_stride = stride;
  i.dma.ddr_addr = ddr_addr;
  i.dma.ddr_stride = ddr_stride;
  i.dma.rows = rows;
  i.dma.cols = cols;
  i.dma.pad_top = pad.top;
  i.dma.pad_bottom = pad.bottom;
  i.dma.pad_left = pad.left;
  i.dma.pad_right = pad.right;
  return i;
}

Insn vector_insn(VecOp op, uint16_t ext0, uint16_t ext1, Operand dst, Operand src, unsigned deps) {
  Insn i;
  i.opcode = Opcode::kVector;
  i.deps = deps_from_flags(deps);
  i.vec.op = op;
  i.vec.ext0 = ext0;
  i.vec.ext1 = ext1;
  i.vec.dst_mem = dst.mem;
  i.vec.dst = dst.addr;
  i.vec.src_mem = src.mem;
  i.vec.src = src.addr;
  i.vec.use_imm = true;
  return i;
}
}  // namespace

void Assembler::load(Mem mem, uint32_t addr, uint32_t stride, uint32_t ddr_addr,
                     uint32_t ddr_stride, uint16_t rows, uint16_t cols, unsigned deps, Pad pad) {
  emit(dma_insn(Opcode::kLoad, mem, addr, stride, ddr_addr, ddr_stride, rows, cols, deps, pad));
}

void Assembler::store(Mem mem, uint32_t addr, uint32_t stride, uint32_t ddr_addr,
                      uint32_t ddr_stride, uint16_t rows, uint16_t cols, unsigned deps) {
  emit(dma_insn(Opcode::kStore, mem, addr, stride, ddr_addr, ddr_stride, rows, cols, deps, Pad{}));
}

void Assembler::gemm(bool reset, uint16_t ext0, uint16_t ext1, Affine acc_addr, Affine inp,
                     Affine wgt, unsigned deps) {
  Insn i;
  i.opcode = Opcode::kGemm;
  i.deps = deps_from_flags(deps);
  i.gemm.reset = reset;
  i.gemm.ext0 = ext0;
  i.gemm.ext1 = ext1;
  i.gemm.acc = acc_addr;
  i.gemm.inp = inp;
  i.gemm.wgt = wgt;
  emit(i);
}

void Assembler::vector(VecOp op, uint16_t ext0, uint16_t ext1, Operand dst, Operand src,
                       Operand src2, unsigned deps) {
  Insn i = vector_insn(op, ext0, ext1, dst, src, deps);
  i.vec.use_imm = false;
  i.vec.src2_mem = src2.mem;
  i.vec.src2 = src2.addr;
  emit(i);
}

void Assembler::vector_imm(VecOp op, uint16_t ext0, uint16_t ext1, Operand dst, Operand src,
                           int32_t imm, unsigned deps) {
  Insn i = vector_insn(op, ext0, ext1, dst, src, deps);
  i.vec.imm = imm;
  emit(i);
}

void Assembler::relu(uint16_t ext0, uint16_t ext1, Operand dst, Operand src, unsigned deps) {
  emit(vector_insn(VecOp::kRelu, ext0, ext1, dst, src, deps));
}

void Assembler::clip(uint16_t ext0, uint16_t ext1, Operand dst, Operand src, int32_t lo, int32_t hi,
                     unsigned deps) {
  Insn i = vector_insn(VecOp::kClip, ext0, ext1, dst, src, deps);
  i.vec.imm = lo;
  i.vec.imm_hi = hi;
  emit(i);
}

void Assembler::requantize(uint16_t ext0, uint16_t ext1, Operand dst, Operand src,
                           int32_t multiplier, uint8_t shift, int8_t zero_point, unsigned deps) {
  Insn i = vector_insn(VecOp::kRequantize, ext0, ext1, dst, src, deps);
  i.vec.imm = multiplier;
  i.vec.shift = shift;
  i.vec.zero_point = zero_point;
  emit(i);
}

void Assembler::sync(Queue queue, unsigned deps) {
  Insn i;
  i.opcode = Opcode::kSync;
  i.sync_queue = queue;
  i.deps = deps_from_flags(deps);
  emit(i);
}

void Assembler::emit(const Insn& insn) { kernel_.program.push_back(insn); }

void Assembler::emit_all(std::vector<Insn>&& insns) {
  if (kernel_.program.empty()) {
    kernel_.program = std::move(insns);
    kernel_.program.reserve(kernel_.program.size() + 1);  // finish
  } else {
    kernel_.program.insert(kernel_.program.end(), insns.begin(), insns.end());
  }
}

Kernel Assembler::finish(unsigned deps) {
  Insn i;
  i.opcode = Opcode::kFinish;
  i.deps = deps_from_flags(deps);
  emit(i);
  // Handed over, not copied (the compiler finishes every kernel it measures): the assembler keeps
  // its name, target and buffer table and starts an empty program.
  Kernel k;
  k.name = kernel_.name;
  k.target_name = kernel_.target_name;
  k.target_hash = kernel_.target_hash;
  k.buffers = kernel_.buffers;
  k.work = kernel_.work;
  std::swap(k, kernel_);
  return k;
}

}  // namespace tessera::npu
