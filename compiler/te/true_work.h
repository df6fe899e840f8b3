// The true work of a function of tensor expressions, for roofline figures (docs/npu_isa.md
// section 9): what any kernel computing its outputs from its inputs must do at least.
//
//   Work w = true_work({X, W, Y});     // the arguments of lower(), in any order
//
// When every computed argument declares its true work (compute(..., true_work): the operator
// library does, from the logical shape that its padded layouts hide), the result is the sum of the
// declarations. Otherwise it is computed from the expression, over every compute stage the
// computed arguments depend on:
//   MACs        a sum reduction of a product (of loads, possibly cast): output elements x
//               reduction points;
//   vector ops  any other reduction: output elements x reduction points; an elementwise stage that
//               computes anything: one per output element (a stage that only copies, casts or
//               selects between loads and constants, such as a zero-padded input, does no work);
//   DDR bytes   each placeholder argument once, only the part the expression reads (the bounding
//               box of its reads over each stage's domain, clipped to its shape; all of it when
//               an extern stage reads it), plus every computed argument once.
// An extern stage's own work (its C function's) is unknown and not counted.
#pragma once

#include <vector>

#include "compiler/te/operation.h"
#include "runtime/base/work.h"

namespace tessera {

Work true_work(const std::vector<Tensor>& args);

}  // namespace tessera
