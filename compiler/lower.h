// lower(): turns a schedule and its argument tensors into a LoweredFunc, through a fixed,
// readable list of passes:
//
//   infer_bounds     regions and loop extents of every stage (inlining applied)
//   schedule_ops     the loop nest: loops, attach points, allocations, guards, buffer reads
//   simplify         constant folding, affine canonical forms, guards the loop ranges decide
//   flatten_storage  row-major flat indices
//   simplify         again, over the flat index arithmetic
//   inject_npu_ops   (NPU targets) row-wide nests become DMA and vector statements
//   tighten_loop_bounds  (NPU targets) a guard on a loop's own variable (a split's tail) becomes
//                    the loop's range, so the loop still folds into an instruction
//
// TESSERA_DEBUG=2 prints the IR after every pass that changed it (to stderr);
// TESSERA_TIME_PASSES=1 prints each pass's time.
#pragma once

#include <string>
#include <vector>

#include "compiler/lowered_func.h"
#include "compiler/target.h"
#include "compiler/te/operation.h"
#include "schedule/schedule.h"

namespace tessera {

// `args` are the kernel's parameters in order: every placeholder the schedule reads and every
// output, optionally intermediate tensors (which are then written to the argument's buffer).
// `target` is Target::c(), an NPU description, or a shorthand ("c", "npu"); the NPU statements
// are built for its MAC array (rows of target.npu().block() elements).
LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args,
                  const std::string& name = "main", const Target& target = Target::c());

// The function as readable text: its signature, then its body indented.
std::string to_string(const LoweredFunc& f);

}  // namespace tessera
