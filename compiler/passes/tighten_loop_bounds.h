// tighten_loop_bounds: a loop whose whole body is guarded by bounds on its own variable runs only
// over the range the guard allows, instead of testing the guard in every iteration.
//
//   for (m, 0, 48) { if (m + mo*48 < 200 && b) S }   ->   if (b) { for (m, 0, min(48, 200 - mo*48))
//   S }
//
// A split that does not divide its axis leaves such a guard on the tail tile (infer_bounds), and so
// does a region that overhangs the domain. Inside the guard the loop is not a perfect nest, so the
// NPU backend cannot fold it into an instruction's loop fields and emits one instruction per
// iteration; with the guard turned into the loop's range, the tail tile is one shorter instruction,
// costing what its size says.
//
// Rules: the loop's body must be an `if` without else. Each conjunct of its condition that is a
// comparison (<, <=, >, >=) affine in the loop variable, with the variable in one term k*v or
// k*(v / c) (c > 0: a fused loop's outer index), becomes a bound: for k*a + g >= 0, a >= ceil(-g/k)
// or a <= floor(g/-k), and v's range follows (a = v / c: v >= lo*c, v < (hi+1)*c). Conjuncts
// that do not use the variable move outside the loop (they are the same in every iteration); any
// other conjunct stays as the guard inside. The new range is [max(min, lo), min(min + extent, hi)),
// its extent clamped at 0; loops whose bounds become non-constant get constant ones once the
// enclosing loops are unrolled (codegen/npu evaluates bounds then). The program computes the same.
#pragma once

#include "compiler/ir/ir.h"

namespace tessera {

Stmt tighten_loop_bounds(const Stmt& s);

}  // namespace tessera
