// One NPU instruction from the evaluated fields of a DMA, GEMM or vector statement instance, with
// every field checked against the ISA's ranges and the buffers' sizes (a LowerError naming the
// stage and what would be legal). The selector (select_insns.h) evaluates, this builds.
#pragma once

#include <cstdint>

#include "codegen/npu/allocate_onchip.h"
#include "codegen/npu/insert_tokens.h"
#include "compiler/ir/ir.h"
#include "runtime/npu/isa.h"
#include "runtime/npu/target.h"

namespace tessera {

// Where an argument buffer lives in the kernel's DDR space.
struct DdrBuffer {
  uint64_t offset = 0;  // bytes
  int64_t elem_bytes = 1;
};

// A DMA statement's expressions at one instance.
struct DmaValues {
  int64_t chip_row = 0, ddr_elem = 0, rows = 0, cols = 0;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// The load or store; `chip` is the on-chip buffer's allocation, `copy` the row offset of the copy
// in use (double buffering), `ddr` the argument's place.
SelectedInsn dma_insn(const NpuDmaNode* op, const DmaValues& v, const OnchipBuffer& chip,
                      npu::Mem mem, int64_t copy, const DdrBuffer& ddr, const npu::Target& target,
                      const char* stage);

// An on-chip operand of a GEMM/vector instruction: physical affine address and its range.
struct Operand {
  npu::Mem mem = npu::Mem::kSram;
  npu::Affine addr;
  Access range;
};

// The GEMM (operands acc, inp, wgt) or vector statement (dst, src[, src2]) with its operands
// computed, over ext0 x ext1 folded iterations.
SelectedInsn compute_insn(const Stmt& s, const Operand* operands, uint16_t ext0, uint16_t ext1);

Space space_of(npu::Mem m);

}  // namespace tessera
