// The index arithmetic of a stage's IterVar relations (split, fuse), for the primitives that
// rebuild a stage from its loops: cache_write's re-layout and rfactor. These are TVM's
// PassUpIndex, PassDownIndex, MakeBoundCheck and PassUp/DownBitMaskOr, on tessera's records.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "schedule/schedule.h"

namespace tessera {

// Values of a stage's axes, keyed by the axis.
using AxisValues = std::map<const IterVarNode*, Expr>;

// From values of the leaves (and any axis already known) to the values of the axes they came
// from, up to the roots: a split's parent is outer * factor + inner, a fuse's outer and inner are
// fused / extent(inner) and fused % extent(inner). Relations with a part unknown are skipped.
void pass_up_index(const StageNode& st, AxisValues* values);

// From values of the roots to the values of the axes made from them: a split's outer and inner are
// parent / factor and parent % factor, a fuse's fused axis outer * extent(inner) + inner.
void pass_down_index(const StageNode& st, AxisValues* values);

// The conditions under which values computed by pass_up_index stay inside their axes: for every
// split whose factor does not divide its parent's extent, parent < extent (the guard of a split
// tail). In relation order; only relations whose parent has a value.
std::vector<Expr> split_bound_checks(const StageNode& st, const AxisValues& values);

// Every axis of the stage connected to `axis` through its relations: the axes it was made from
// and the axes made from those, to a fixed point (TVM's PassUpBitMaskOr and PassDownBitMaskOr).
std::set<const IterVarNode*> connected_axes(const StageNode& st, const IterVar& axis);

// True when `iv` is one of `axes`.
bool contains_axis(const std::vector<IterVar>& axes, const IterVar& iv);

}  // namespace tessera
