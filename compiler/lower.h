// lower(): turns a schedule and its argument tensors into a LoweredFunc, through a fixed,
// readable list of passes, in this order:
//
//   check_bounds     every tensor read provably inside the tensor's shape (else LowerError)
//   inline_stages    the body of every stage with inlined stages substituted
//   infer_bounds     regions and loop extents of every stage
//   schedule_ops     the loop nest: loops, attach points, allocations, guards, buffer reads; the
//                    loops under a tensorize axis marked as a Tensorize region
//   tensorize        each region proved to compute its intrinsic and replaced by the intrinsic's
//                    statement (NPU targets; a region on target c is a TargetError)
//   flatten_storage  row-major flat indices
//   simplify         constant folding, affine canonical forms, guards the loop ranges decide;
//                    once, over the flat index arithmetic (simplifying bottom-up, it meets each
//                    multi-dimensional index as a subtree of the flat one, in the same loop
//                    context, so a pass before flattening only repeated that work)
//   inject_npu_ops   (NPU targets) row-wide nests become DMA and vector statements
//   tighten_loop_bounds  (NPU targets) a guard on a loop's own variable (a split's tail) becomes
//                    the loop's range, so the loop still folds into an instruction
//   verify           the result is one the target's codegen accepts (else an InternalError)
//
// TESSERA_DEBUG=2 prints every pass to stderr as it runs: what inline_stages and infer_bounds
// found, and the IR after each later pass (or that it left the IR unchanged).
// TESSERA_TIME_PASSES=1 prints each pass's time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/lowered_func.h"
#include "compiler/target.h"
#include "compiler/te/operation.h"
#include "schedule/schedule.h"

namespace tessera {

struct LowerOptions {
  // Called after every pass that produces IR (schedule_ops onwards) with the pass's name and its
  // result: what tests of a single pass compare (before = the previous pass's result).
  std::function<void(const std::string& pass, const Stmt& body)> after_pass;
};

// `args` are the kernel's parameters in order: every placeholder the schedule reads and every
// output, optionally intermediate tensors (which are then written to the argument's buffer).
// `target` is Target::c(), an NPU description, or a shorthand ("c", "npu"); the NPU statements
// are built for its MAC array (rows of target.npu().block() elements).
LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args,
                  const std::string& name = "main", const Target& target = Target::c(),
                  const LowerOptions& options = LowerOptions());

// The function as readable text: its signature, then its body indented.
std::string to_string(const LoweredFunc& f);

}  // namespace tessera
