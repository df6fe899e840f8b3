#include "codegen/npu/npu_insns.h"

#include "runtime/base/error.h"

namespace tessera {
namespace {

constexpr int64_t kMaxU16 = 65535;
constexpr int64_t kMaxU32 = 4294967295LL;

}  // namespace

Space space_of(npu::Mem m) { return m == npu::Mem::kSram ? Space::kSram : Space::kAcc; }

SelectedInsn dma_insn(const NpuDmaNode* op, const DmaValues& v, const OnchipBuffer& a, npu::Mem mem,
                      int64_t copy, const DdrBuffer& ddr, const npu::Target& target,
                      const char* stage) {
  auto field = [&](const char* name, int64_t x, int64_t lo, int64_t hi) {
    if (x < lo || x > hi) {
      throw LowerError(str("stage '", stage, "': DMA ", op->load ? "load" : "store", " of '",
                           op->chip->name, "': ", name, " = ", x, " is outside [", lo, ", ", hi,
                           "], the range of the instruction's field; split the transfer "
                           "into smaller tiles"));
    }
  };
  int64_t pt = v.pad_top, pb = v.pad_bottom, pl = v.pad_left, pr = v.pad_right;
  field("rows", v.rows, 1, kMaxU16);
  field("cols", v.cols, 1, kMaxU16);
  field("pad_top", pt, 0, 255);
  field("pad_bottom", pb, 0, 255);
  field("pad_left", pl, 0, 255);
  field("pad_right", pr, 0, 255);
  if (!op->load) field("padding of a store", pt + pb + pl + pr, 0, 0);
  field("on-chip row stride", op->chip_row_stride, 0, kMaxU32);
  int64_t total_rows = pt + v.rows + pb;
  int64_t chip_last =
      v.chip_row + (total_rows - 1) * op->chip_row_stride + pl + v.cols + pr;  // one past
  if (v.chip_row < 0 || chip_last > a.rows) {
    throw LowerError(str("stage '", stage, "': a DMA ", op->load ? "writes" : "reads", " rows ",
                         v.chip_row, "..", chip_last - 1, " of buffer '", op->chip->name,
                         "', which has ", a.rows, " rows"));
  }
  int64_t ddr_end = v.ddr_elem + (v.rows - 1) * op->ddr_row_stride + v.cols * target.block();
  if (v.ddr_elem < 0 || op->ddr_row_stride < 0 || ddr_end > op->ddr->num_elements()) {
    throw LowerError(str("stage '", stage, "': a DMA ", op->load ? "reads" : "writes", " elements ",
                         v.ddr_elem, "..", ddr_end - 1, " of argument '", op->ddr->name,
                         "', which has ", op->ddr->num_elements()));
  }
  int64_t eb = ddr.elem_bytes;
  int64_t ddr_addr = static_cast<int64_t>(ddr.offset) + v.ddr_elem * eb;
  field("DDR row stride (bytes)", op->ddr_row_stride * eb, 0, kMaxU32);
  field("DDR address", ddr_addr, 0, kMaxU32);
  int64_t base = a.base + copy;
  SelectedInsn si;
  npu::Insn& insn = si.insn;
  insn.opcode = op->load ? npu::Opcode::kLoad : npu::Opcode::kStore;
  npu::Dma& d = insn.dma;
  d.mem = mem;
  d.sram_addr = static_cast<uint32_t>(base + v.chip_row);
  d.sram_stride = static_cast<uint32_t>(op->chip_row_stride);
  d.ddr_addr = static_cast<uint32_t>(ddr_addr);
  d.ddr_stride = static_cast<uint32_t>(op->ddr_row_stride * eb);
  d.rows = static_cast<uint16_t>(v.rows);
  d.cols = static_cast<uint16_t>(v.cols);
  d.pad_top = static_cast<uint8_t>(pt);
  d.pad_bottom = static_cast<uint8_t>(pb);
  d.pad_left = static_cast<uint8_t>(pl);
  d.pad_right = static_cast<uint8_t>(pr);
  si.accesses = {Access{space_of(mem), base + v.chip_row, base + chip_last, op->load},
                 Access{Space::kDdr, ddr_addr, ddr_addr + (ddr_end - v.ddr_elem) * eb, !op->load}};
  return si;
}

SelectedInsn compute_insn(const Stmt& s, const Operand* operands, uint16_t ext0, uint16_t ext1) {
  SelectedInsn si;
  npu::Insn& insn = si.insn;
  if (const auto* g = s.as<NpuGemmNode>()) {
    const Operand &acc = operands[0], &inp = operands[1], &wgt = operands[2];
    insn.opcode = npu::Opcode::kGemm;
    insn.gemm.reset = g->reset;
    insn.gemm.ext0 = ext0;
    insn.gemm.ext1 = ext1;
    insn.gemm.acc = acc.addr;
    insn.gemm.inp = inp.addr;
    insn.gemm.wgt = wgt.addr;
    si.accesses = {acc.range, inp.range, wgt.range};
    return si;
  }
  // The op and its operand form are make_npu_vector's invariants.
  const auto* v = s.as<NpuVectorNode>();
  const npu::VecOp op = v->op;
  const Operand &dst = operands[0], &src = operands[1];
  insn.opcode = npu::Opcode::kVector;
  npu::Vector& x = insn.vec;
  x.op = op;
  x.ext0 = ext0;
  x.ext1 = ext1;
  x.dst_mem = dst.mem;
  x.dst = dst.addr;
  x.src_mem = src.mem;
  x.src = src.addr;
  si.accesses = {dst.range, src.range};
  if (v->src2) {
    x.src2_mem = operands[2].mem;
    x.src2 = operands[2].addr;
    si.accesses.push_back(operands[2].range);
  } else {
    x.use_imm = true;
    x.imm = static_cast<int32_t>(op == npu::VecOp::kRelu ? 0 : v->imm);
    if (op == npu::VecOp::kClip) x.imm_hi = static_cast<int32_t>(v->imm_hi);
    if (op == npu::VecOp::kRequantize) {
      x.shift = static_cast<uint8_t>(v->shift);
      x.zero_point = static_cast<int8_t>(v->zero_point);
    }
  }
  return si;
}

}  // namespace tessera
