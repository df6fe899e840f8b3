// check_bounds: proves, before anything is lowered, that every read of a tensor (a placeholder
// or another compute) in every stage of the schedule stays inside the tensor's shape, so that no
// kernel reads memory it does not own. A read it cannot prove is a LowerError naming the compute,
// the tensor, the dimension, the range the index takes and the tensor's shape.
//
// The proof is interval analysis (compiler/arith) over the compute's axes, each ranging over its
// extent, and the reduce axes over their domains. A read under a guard the user wrote is proved
// under that guard: the chosen side of te.if_then_else / select, and a reduction's source under
// its where= condition, may assume the condition (or its negation) holds. Conditions are used
// when they are a conjunction (&, te.all) of integer comparisons: one that bounds a single axis
// (h >= pad, h < H + pad) narrows that axis's range; any other (h * 2 + r < H) bounds an index
// that equals it plus a bounded term. Reads inside a condition itself are not guarded by it.
//
// It also proves that index arithmetic (sums and products of axes and constants, which lowering,
// the simplifier and the C backend treat as never overflowing) stays inside its type, and raises
// a LowerError naming the compute, the expression and its range when it cannot (i * 1000003 over
// 4096 values of i wrapped, and (i * 1000003) % 7 then read at a negative index).
//
// Schedules do not change which elements a compute reads (lowering guards every tail), so
// proving the algorithm is enough for every schedule of it.
#pragma once

#include "schedule/schedule.h"

namespace tessera {

void check_bounds(const Schedule& sch);

}  // namespace tessera
