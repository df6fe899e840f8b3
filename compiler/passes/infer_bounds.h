// infer_bounds: for every stage, the region it must compute and the extent of each of its loops.
//
// A stage at the root computes its whole domain. A stage computed at a consumer's loop `ax`
// computes only what the consumer reads in one iteration of `ax`: the union, over every read in
// the consumer's body, of the index intervals when the consumer's loops inside `ax` range over
// their extents and the loops at or outside `ax` are fixed. The region's start is symbolic (in
// those outer loop variables); its extent is the constant upper bound over all their values,
// capped at the full domain. Splits and fuses are replayed on the region's extents, giving each
// loop's extent and each axis's value in terms of the loop variables, plus a guard for every
// split that does not divide its axis.
#pragma once

#include <map>
#include <vector>

#include "compiler/arith/interval.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/inline_stages.h"
#include "schedule/schedule.h"

namespace tessera {

struct StageBounds {
  Expr body;  // the stage's body with inlined stages substituted (inline_stages)
  std::vector<IterVar> root_axes;  // data-parallel axes, then reduce axes
  std::vector<Expr> region_min;    // per root axis, in enclosing loop variables
  std::vector<int64_t> region_extent;
  std::map<uint64_t, int64_t> extent;  // every iter var of the stage (by var id) -> loop extent
  std::map<uint64_t, Expr> value;      // every iter var -> its value in the stage's loop vars
  std::vector<Expr> guards;            // conditions every computed point must satisfy
};

struct BoundMap {
  std::map<const StageNode*, StageBounds> stages;  // lookup only; iterate Schedule::stages()
  VarRanges loop_ranges;  // every loop variable of every stage -> [0, extent - 1]
  const StageBounds& at(const StageNode* st) const { return stages.at(st); }
};

BoundMap infer_bounds(const Schedule& sch, const InlinedBodies& bodies);

// One line per stage with a buffer, in schedule order: its region (start and extent per root
// axis) and its loops with their extents (TESSERA_DEBUG=2).
std::string to_string(const BoundMap& bounds, const Schedule& sch);

}  // namespace tessera
