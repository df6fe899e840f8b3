// verify: the last pass of lower(). Checks that the lowered function is one the target's codegen
// accepts, so that a bug in an earlier pass shows up here, by name, instead of as a wrong kernel.
// User mistakes are reported (as ScheduleError, LowerError, TargetError) by the passes that see
// them; what reaches verify broken is the compiler's fault, so every failure is an InternalError
// naming the stage, the statement and the rule.
//
//   C:   no NPU statement and no Tensorize region; every buffer access has one (flat) index; no
//        tensor-expression read (ProducerLoad) or reduction left; every buffer read or written is
//        an argument or allocated around the access.
//   NPU: the statements are For, Seq, Allocate, AttrStmt, LetStmt, IfThenElse and the NPU
//        statements only (no element-wise store, no Tensorize region); loop bounds and conditions
//        read no buffer (they are decided once the loops are unrolled); every Allocate is an
//        on-chip buffer of the target (compiler/passes/npu_rules.h); every on-chip operand is
//        allocated around its use and every DMA's DDR side is an argument; and the on-chip and
//        DDR ranges each statement touches lie inside their buffers for every iteration of the
//        loops around it (first a box proof: interval arithmetic with every loop and let variable
//        anywhere in its constant range, compiler/arith/box_bounds.h; then interval bounds over
//        the loop ranges; where those are not tight enough, checked exactly by running the loops
//        and guards).
#pragma once

#include "compiler/lowered_func.h"
#include "compiler/target.h"

namespace tessera {

void verify(const LoweredFunc& f, const Target& target);

}  // namespace tessera
