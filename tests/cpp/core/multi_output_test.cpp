// Multi-output compute and reductions over tuples (TVM's argmax): golden lowered IR.
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"
#include "schedule/schedule.h"

namespace tessera {
namespace {

// The outputs share one loop nest: one loop, a store to each output.
TEST(MultiOutput, ElementwiseOutputsAreStoredInOneLoopNest) {
  Tensor A = placeholder({4}, DType::kInt32, "A");
  std::vector<Tensor> T =
      compute_multi({4},
                    [&](const std::vector<Var>& i) {
                      return std::vector<Expr>{
                          binary_op(ExprKind::kAdd, A({i[0]}), int_literal(1, DType::kInt32)),
                          binary_op(ExprKind::kMul, A({i[0]}), int_literal(3, DType::kInt32))};
                    },
                    "T", {"i"});
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(primary_of(T[1].op()), T[0].op());
  EXPECT_EQ(T[0].name(), "T.v0");
  EXPECT_EQ(T[1].name(), "T.v1");
  auto s = create_schedule({T[0].op()});
  EXPECT_EQ((*s)[T[1]].node(), (*s)[T[0]].node());
  EXPECT_EQ(to_string(lower(*s, {A, T[0], T[1]}, "two")),
            "func two(A: int32[4], T.v0: int32[4], T.v1: int32[4]) {\n"
            "  // produce T\n"
            "  for (i, 0, 4) {\n"
            "    T.v0[i] = (A[i] + 1)\n"
            "    T.v1[i] = (A[i] * 3)\n"
            "  }\n"
            "}\n");
}

// argmax: every new value is computed from the old ones (lets) before any is stored.
TEST(MultiOutput, TupleReductionUpdatesAllValuesTogether) {
  Tensor A = placeholder({3, 5}, DType::kInt32, "A");
  IterVar k = reduce_axis(0, 5, "k");
  std::vector<Var> x{Var("x0", DType::kInt32), Var("x1", DType::kInt32)};
  std::vector<Var> y{Var("y0", DType::kInt32), Var("y1", DType::kInt32)};
  Expr keep = binary_op(ExprKind::kGE, x[1], y[1]);
  CommReducer argmax =
      comm_reducer("argmax", x, y, {select(keep, x[0], y[0]), select(keep, x[1], y[1])},
                   {int_literal(-1, DType::kInt32), int_literal(-100, DType::kInt32)});
  std::vector<Tensor> T =
      compute_multi({3},
                    [&](const std::vector<Var>& i) {
                      return comm_reduce(argmax, {k->var, A({i[0], k->var})}, {k});
                    },
                    "T", {"i"});
  auto s = create_schedule({T[0].op()});
  EXPECT_EQ(
      to_string(lower(*s, {A, T[0], T[1]}, "argmax")),
      "func argmax(A: int32[3, 5], T.v0: int32[3], T.v1: int32[3]) {\n"
      "  // produce T\n"
      "  for (i, 0, 3) {\n"
      "    T.v0[i] = -1\n"
      "    T.v1[i] = -100\n"
      "    for (k, 0, 5) {\n"
      "      let argmax_v0 = select((T.v1[i] >= A[(k + (i * 5))]), T.v0[i], k)\n"
      "      let argmax_v1 = select((T.v1[i] >= A[(k + (i * 5))]), T.v1[i], A[(k + (i * 5))])\n"
      "      T.v0[i] = argmax_v0\n"
      "      T.v1[i] = argmax_v1\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST(MultiOutput, ReducerWhoseIdentityHasTheWrongArityIsRejected) {
  std::vector<Var> x{Var("x0", DType::kInt32), Var("x1", DType::kInt32)};
  std::vector<Var> y{Var("y0", DType::kInt32), Var("y1", DType::kInt32)};
  EXPECT_THROW(
      {
        try {
          comm_reducer("pair", x, y, {Expr(x[0]), Expr(y[1])}, {int_literal(0, DType::kInt32)});
        } catch (const ExprError& e) {
          EXPECT_NE(std::string(e.what()).find("comm_reducer 'pair': fidentity returns 1 value(s)"),
                    std::string::npos);
          throw;
        }
      },
      ExprError);
}

}  // namespace
}  // namespace tessera
