// schedule_ops: builds the loop nest of a whole schedule from the inferred bounds.
//
// Root stages are produced in topological order at the top level; a stage computed at a
// consumer's loop is produced at the start of that loop's body, in a buffer allocated there that
// covers only its region. Each stage's loops are its leaf axes, outermost first, with the
// annotations as loop kinds and pragmas as attributes. A reduction gets an init nest (the
// data-parallel loops inside its first reduction loop, writing the identity) and an update nest.
// Guards from infer_bounds are placed just inside the innermost loop whose variable they use.
// Reads of stages and placeholders become reads of their buffers. A tensorized stage's loops under
// its tensorize axis go into a Tensorize region (compiler/ir/ir.h) for the tensorize pass, and its
// init nest is marked AttrStmt("reduce_init", stage).
#pragma once

#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/infer_bounds.h"
#include "schedule/schedule.h"

namespace tessera {

struct ArgBinding {
  Operation op;
  Buffer buffer;
};

// Raises ScheduleError for a schedule that cannot be laid out (a vectorized loop with a stage
// computed inside it; a tensorize axis split or fused away, on a stage that is not the
// intrinsic's kind of reduction) and LowerError for a tensor the nest needs that is neither
// computed nor an argument.
Stmt schedule_ops(const Schedule& sch, const BoundMap& bounds, const std::vector<ArgBinding>& args);

}  // namespace tessera
