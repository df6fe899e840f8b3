// Instruction selection for the NPU: walks a lowered body (For, Seq, Allocate, AttrStmt, LetStmt,
// IfThenElse and the NPU statements of compiler/ir/ir.h) and emits one instruction per DMA, GEMM or
// vector statement instance, in program order, with the ranges each touches.
//
// Loops are unrolled (each expression evaluated at every value of the variable, by compiled integer
// arithmetic, and by the simplifier where that does not decide: int_program.h), except that up to
// two loops perfectly nesting a GEMM or vector statement fold into the instruction's ext0/ext1
// when its row expressions are affine in their variables with strides in [0, 65535] and extents
// <= 65535 (fold_loops.h says which pair is chosen). DMAs are unrolled: one load or store per
// iteration with computed addresses. A chain whose rows are linear forms of plain variables is
// compiled once into a template (chain_template.h): its strides and fold choice are computed
// once, and each instance's instructions by integer arithmetic on the loop values; everything
// the template does not decide takes the general path, so the instructions are the same.
// Other loops of five or more iterations whose values are provably affine in their variable
// emit their middle iterations by adding steps to the fields (loop_template.h; the environment
// variable TESSERA_NPU_PLAIN_LOOPS=1 turns that off, for tests comparing the two paths).
//
// Double buffering: a buffer whose Allocate is wrapped in AttrStmt("double_buffer", name) has
// two copies; every execution of a "produce" block that writes the buffer switches to the other
// copy, and every access until the next one uses it, so the next tile's load goes to the copy the
// current tile's compute does not read.
//
// Anything else in the body (BufferStore, an if whose condition is not decided once the loops are
// unrolled, a DMA to a non-argument) is a LowerError naming the stage (the nearest "produce").
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "codegen/npu/allocate_onchip.h"
#include "codegen/npu/insert_tokens.h"
#include "codegen/npu/npu_insns.h"
#include "compiler/ir/ir.h"
#include "runtime/npu/target.h"

namespace tessera {

using DdrLayout = std::map<const BufferNode*, DdrBuffer>;  // looked up only

std::vector<SelectedInsn> select_insns(const Stmt& body, const OnchipPlan& plan,
                                       const DdrLayout& ddr, const npu::Target& target);

}  // namespace tessera
