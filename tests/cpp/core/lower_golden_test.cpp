// Golden lowered-IR tests: a schedule (before) and the exact loop IR lower() must print (expected).
// Each expected text was checked by hand against the rule in the test's comment.
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "compiler/te/te.h"
#include "schedule/schedule.h"

namespace tessera {
namespace {

struct Elementwise {
  Tensor A, B;
};
// B[i, j] = A[i, j] * 2
Elementwise elementwise(int64_t m, int64_t n) {
  Tensor A = placeholder({m, n}, DType::kFloat32, "A");
  Tensor B = compute(
      {m, n},
      [&](const std::vector<Var>& i) {
        return binary_op(ExprKind::kMul, A({i[0], i[1]}), float_literal(2.0, DType::kFloat32));
      },
      "B", {"i", "j"});
  return {A, B};
}

// split(i, 4) on an extent of 8: i = i.outer * 4 + i.inner; the split divides, so no guard.
TEST(LowerGolden, SplitMakesOuterAndInnerLoops) {
  auto [A, B] = elementwise(8, 6);
  auto s = create_schedule({B.op()});
  (*s)[B].split(B.op()->axis[0], 4);
  EXPECT_EQ(to_string(lower(*s, {A, B}, "split")),
            "func split(A: float32[8, 6], B: float32[8, 6]) {\n"
            "  // produce B\n"
            "  for (i.outer, 0, 2) {\n"
            "    for (i.inner, 0, 4) {\n"
            "      for (j, 0, 6) {\n"
            "        B[((j + (i.outer * 24)) + (i.inner * 6))] = (A[((j + (i.outer * 24)) + "
            "(i.inner * 6))] * 2.0f)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// split(i, 4) on an extent of 10: three outer iterations, and a guard i < 10 placed just inside
// the innermost loop it depends on (i.inner), so the tail rows 10 and 11 are never computed.
TEST(LowerGolden, NonDivisibleSplitGuardsTheTail) {
  auto [A, B] = elementwise(10, 6);
  auto s = create_schedule({B.op()});
  (*s)[B].split(B.op()->axis[0], 4);
  EXPECT_EQ(to_string(lower(*s, {A, B}, "split_tail")),
            "func split_tail(A: float32[10, 6], B: float32[10, 6]) {\n"
            "  // produce B\n"
            "  for (i.outer, 0, 3) {\n"
            "    for (i.inner, 0, 4) {\n"
            "      if (((i.outer * 4) + i.inner) < 10) {\n"
            "        for (j, 0, 6) {\n"
            "          B[((j + (i.outer * 24)) + (i.inner * 6))] = (A[((j + (i.outer * 24)) + "
            "(i.inner * 6))] * 2.0f)\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// fuse(i, j): one loop of 8 * 6; i = f / 6 and j = f % 6, and the row-major flat index
// (f / 6) * 6 + f % 6 simplifies back to f.
TEST(LowerGolden, FuseMakesOneLoopOverBothAxes) {
  auto [A, B] = elementwise(8, 6);
  auto s = create_schedule({B.op()});
  (*s)[B].fuse(B.op()->axis[0], B.op()->axis[1]);
  EXPECT_EQ(to_string(lower(*s, {A, B}, "fuse")),
            "func fuse(A: float32[8, 6], B: float32[8, 6]) {\n"
            "  // produce B\n"
            "  for (i.j.fused, 0, 48) {\n"
            "    B[i.j.fused] = (A[i.j.fused] * 2.0f)\n"
            "  }\n"
            "}\n");
}

// reorder(j, i): the loops swap; the indices do not change.
TEST(LowerGolden, ReorderSwapsLoops) {
  auto [A, B] = elementwise(8, 6);
  auto s = create_schedule({B.op()});
  (*s)[B].reorder({B.op()->axis[1], B.op()->axis[0]});
  EXPECT_EQ(to_string(lower(*s, {A, B}, "reorder")),
            "func reorder(A: float32[8, 6], B: float32[8, 6]) {\n"
            "  // produce B\n"
            "  for (j, 0, 6) {\n"
            "    for (i, 0, 8) {\n"
            "      B[((i * 6) + j)] = (A[((i * 6) + j)] * 2.0f)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// B computed at C's row loop: one row of B (all 6 columns, since C reads B[i, j] and
// B[i, j + 2] for j < 4) in a local buffer of 1 x 6, allocated inside the loop.
TEST(LowerGolden, ComputeAtComputesTheRegionOneIterationNeeds) {
  Tensor A = placeholder({8, 6}, DType::kFloat32, "A");
  Tensor B = compute(
      {8, 6},
      [&](const std::vector<Var>& i) {
        return binary_op(ExprKind::kAdd, A({i[0], i[1]}), float_literal(1.0, DType::kFloat32));
      },
      "B", {"i", "j"});
  Tensor C = compute({8, 4},
                     [&](const std::vector<Var>& i) {
                       return binary_op(ExprKind::kAdd, B({i[0], i[1]}), B({i[0], i[1] + 2}));
                     },
                     "C", {"i", "j"});
  auto s = create_schedule({C.op()});
  (*s)[B].compute_at((*s)[C], C.op()->axis[0]);
  EXPECT_EQ(to_string(lower(*s, {A, C}, "compute_at")),
            "func compute_at(A: float32[8, 6], C: float32[8, 4]) {\n"
            "  // produce C\n"
            "  for (i, 0, 8) {\n"
            "    allocate B[float32 * 1 * 6] in local {\n"
            "      // produce B\n"
            "      for (j, 0, 6) {\n"
            "        B[j] = (A[(j + (i * 6))] + 1.0f)\n"
            "      }\n"
            "      for (j_1, 0, 4) {\n"
            "        C[((i * 4) + j_1)] = (B[j_1] + B[(j_1 + 2)])\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// A reduction: the init nest (the identity) sits just outside the first reduction loop.
TEST(LowerGolden, ReductionInitSitsOutsideTheFirstReductionLoop) {
  Tensor A = placeholder({4, 5}, DType::kInt32, "A");
  IterVar k = reduce_axis(0, 5, "k");
  Tensor R = compute({4},
                     [&](const std::vector<Var>& i) {
                       return sum(A({i[0], k->var}), {k});
                     },
                     "R", {"i"});
  auto s = create_schedule({R.op()});
  EXPECT_EQ(to_string(lower(*s, {A, R}, "rowsum")),
            "func rowsum(A: int32[4, 5], R: int32[4]) {\n"
            "  // produce R\n"
            "  for (i, 0, 4) {\n"
            "    R[i] = 0\n"
            "    for (k, 0, 5) {\n"
            "      R[i] = (R[i] + A[(k + (i * 5))])\n"
            "    }\n"
            "  }\n"
            "}\n");
}

}  // namespace
}  // namespace tessera
