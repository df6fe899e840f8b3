// The assembler API: builds kernels instruction by instruction. Used by tests, benchmarks and
// (next) the compiler's NPU backend. It checks nothing beyond field widths; the simulator's
// prepare_program() is the one place that judges a program.
//
//   Assembler a(target, "add_relu");          // B = target.block(): one SRAM row is B bytes
//   uint32_t x = a.buffer("x", {64, B}, DType::kInt8, BufferRole::kInput);
//   a.load(Mem::kSram, 0, 1, x, B, 64, 1, kPushNext);
//   a.vector(VecOp::kAdd, 64, 1, acc(0, 1), sram(0, 1), sram(64, 1), kPopPrev);
//   Kernel k = a.finish();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/npu/isa.h"
#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

// Dependency flags, or-ed together: kPopPrev | kPushNext.
constexpr unsigned kPopPrev = 1, kPopNext = 2, kPushPrev = 4, kPushNext = 8;
Deps deps_from_flags(unsigned flags);

// A vector-op operand: a memory and an affine row address base + stride0*i0 + stride1*i1.
struct Operand {
  Mem mem = Mem::kAcc;
  Affine addr;
};
Affine at(uint32_t base, uint16_t stride0 = 0, uint16_t stride1 = 0);
Operand sram(uint32_t base, uint16_t stride0 = 0, uint16_t stride1 = 0);
Operand acc(uint32_t base, uint16_t stride0 = 0, uint16_t stride1 = 0);

struct Pad {
  uint8_t top = 0, bottom = 0, left = 0, right = 0;
};

class Assembler {
 public:
  Assembler(const Target& target, std::string kernel_name);

  // Appends a buffer to the kernel's DDR space (each starts 64-byte aligned); returns its offset.
  uint32_t buffer(const std::string& name, std::vector<int64_t> shape, DType dtype,
                  BufferRole role);

  // DDR -> mem: `rows` x `cols` units (a unit is one row of `mem`), DDR row r at
  // ddr_addr + r*ddr_stride bytes, destination row r at addr + r*stride (units), zero padding.
  void load(Mem mem, uint32_t addr, uint32_t stride, uint32_t ddr_addr, uint32_t ddr_stride,
            uint16_t rows, uint16_t cols, unsigned deps = 0, Pad pad = {});
  // mem -> DDR, same shape rules, no padding.
  void store(Mem mem, uint32_t addr, uint32_t stride, uint32_t ddr_addr, uint32_t ddr_stride,
             uint16_t rows, uint16_t cols, unsigned deps = 0);
  // for i0 < ext0, i1 < ext1: acc[acc(i0,i1)] (reset ? = : +=) wgt tile . inp row.
  void gemm(bool reset, uint16_t ext0, uint16_t ext1, Affine acc, Affine inp, Affine wgt,
            unsigned deps = 0);
  // dst = op(src, src2) for add, sub, mul, min, max, shr (src2 = shift amounts).
  void vector(VecOp op, uint16_t ext0, uint16_t ext1, Operand dst, Operand src, Operand src2,
              unsigned deps = 0);
  // dst = op(src, imm) for add, sub, mul, min, max, shr.
  void vector_imm(VecOp op, uint16_t ext0, uint16_t ext1, Operand dst, Operand src, int32_t imm,
                  unsigned deps = 0);
  void relu(uint16_t ext0, uint16_t ext1, Operand dst, Operand src, unsigned deps = 0);
  void clip(uint16_t ext0, uint16_t ext1, Operand dst, Operand src, int32_t lo, int32_t hi,
            unsigned deps = 0);
  // dst = saturate_int8(((src * multiplier) >>r shift) + zero_point)
  void requantize(uint16_t ext0, uint16_t ext1, Operand dst, Operand src, int32_t multiplier,
                  uint8_t shift, int8_t zero_point, unsigned deps = 0);
  void sync(Queue queue, unsigned deps);
  // Declares the true work of what the kernel computes (its roofline is measured against it).
  void declare_work(const Work& work) { kernel_.work = work; }
  void emit(const Insn& insn);               // any instruction as is, e.g. a deliberately bad one
  void emit_all(std::vector<Insn>&& insns);  // every one of them in order (a whole program)

  // Appends finish and returns the kernel, stamped with the target's name and hash. The program
  // is handed over: afterwards the assembler holds the same buffers and an empty program.
  Kernel finish(unsigned deps = 0);
  // The kernel so far, without appending anything.
  Kernel kernel() const { return kernel_; }
  size_t size() const { return kernel_.program.size(); }

 private:
  Target target_;
  Kernel kernel_;
};

}  // namespace tessera::npu
