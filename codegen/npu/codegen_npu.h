// The NPU backend: a lowered function -> an NPU kernel (buffer table + instruction stream).
//
//   npu::Kernel k = codegen_npu(lower(s, {A, W, C}, "matmul"), npu::default_target());
//
// The body may hold only For (constant bounds; every kind runs as serial), Seq, Allocate ("sram"
// int8 / "acc" int32, innermost dimension a multiple of the target's block), AttrStmt ("produce"
// names the stage; "double_buffer" gives its buffer two copies; other keys are ignored), LetStmt,
// IfThenElse whose condition is decided once loops are unrolled, and the NPU statements NpuDma,
// NpuGemm, NpuVector. Anything else is a LowerError naming the stage. The steps, one file each:
//   allocate_onchip  base rows for every on-chip buffer; capacity check
//   select_insns     unroll loops, fold up to two around each GEMM/vector (fold_loops), emit;
//                    addresses by integer arithmetic (row_forms, compiler/arith/int_program),
//                    instructions built and range-checked by npu_insns
//   insert_tokens    dependency tokens only where accesses conflict; bounded token queues
// then `finish`. The kernel carries the function's true work (LoweredFunc::work) for its roofline.
// Kernel buffers are the arguments in order: int8 or int32, an output when some
// DMA store writes it, else an input. The output depends only on the inputs: same function and
// target, same kernel bytes.
#pragma once

#include "compiler/lowered_func.h"
#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera {

npu::Kernel codegen_npu(const LoweredFunc& f, const npu::Target& target);

}  // namespace tessera
