// tensorize: replaces every Tensorize region (the loops under a stage's tensorize axis, marked by
// schedule_ops) by the statement its intrinsic becomes, after proving that the loops compute the
// intrinsic's declared computation (schedule/tensor_intrin.h), as TVM's VerifyTensorizeBody does.
// One generic proof for every intrinsic:
//   * loops: the region is a perfect nest around one update `buf[idx] = buf[idx] + source`; a
//     loop whose variable the output index does not use is a reduction loop. The data-parallel
//     loops pair, in order, with the intrinsic's axes and the reduction loops with its reduce
//     axes, with equal extents;
//   * computation: `source` and the intrinsic's reduce source are the same expression (node
//     kinds, dtypes, casts, constants; commutative operands in either order), each read of an
//     intrinsic input matched by a read of one buffer of its dtype;
//   * strides: every buffer's flat index moves with each loop as the intrinsic operand's dense
//     index moves with the paired axis (the output likewise), and starts on an on-chip row;
//   * memory: each buffer is in the scope the intrinsic declares for it.
// A mismatch is a ScheduleError that names the stage, the axis and the intrinsic, says what
// differs and prints both sides (the loop body and the declared computation).
//
// Reductions. The intrinsic accumulates (its update form). When every reduction loop of the stage
// outside the region is at least two loops out (so the two loops around the intrinsic stay free
// for codegen to fold), the first iteration of those loops uses the reset form instead and the
// stage's init nest (marked "reduce_init") is dropped: `if (r == 0 && ..) reset else update`,
// placed just inside the last of those loops. Otherwise the init stays and every step updates.
//
// A region on a target that is not an NPU, or whose intrinsic was declared for another block,
// is a TargetError.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/target.h"

namespace tessera {

Stmt tensorize(const Stmt& body, const Target& target);

}  // namespace tessera
