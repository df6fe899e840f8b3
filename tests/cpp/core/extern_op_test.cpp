// Extern stages (TVM's te.extern): golden lowered IR, the C unit's layout, and the checks that
// name the user's stage.
#include <gtest/gtest.h>

#include "codegen/c/codegen_c.h"
#include "compiler/lower.h"
#include "compiler/te/extern_op.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"
#include "schedule/schedule.h"

namespace tessera {
namespace {

const char* kSource = "int32_t twice(const int32_t* a, int32_t* b, int32_t n) {\n"
                      "  for (int32_t i = 0; i < n; ++i) b[i] = 2 * a[i];\n  return 0;\n}\n";

ExternCall twice_call(int64_t n) {
  ExternCall c;
  c.func = "twice";
  c.args = {ExternArg{0, false, Expr()}, ExternArg{-1, true, Expr()},
            ExternArg{-1, false, make_int(n)}};
  c.source = kSource;
  return c;
}

// A -> B (compute) -> E (extern) -> C (compute): the call sits between the two loop nests.
TEST(ExternOp, CallBetweenTwoComputeStages) {
  Tensor A = placeholder({4}, DType::kInt32, "A");
  Tensor B = compute(
      {4},
      [&](const std::vector<Var>& i) {
        return binary_op(ExprKind::kAdd, A({i[0]}), int_literal(1, DType::kInt32));
      },
      "B", {"i"});
  Tensor E = extern_op({make_int(4)}, DType::kInt32, {B}, twice_call(4), "E");
  EXPECT_TRUE(is_extern(E.op()));
  Tensor C = compute(
      {4},
      [&](const std::vector<Var>& i) {
        return binary_op(ExprKind::kMul, E({i[0]}), int_literal(3, DType::kInt32));
      },
      "C", {"i"});
  auto s = create_schedule({C.op()});
  LoweredFunc f = lower(*s, {A, C}, "f");
  EXPECT_EQ(to_string(f),
            "func f(A: int32[4], C: int32[4]) {\n"
            "  allocate B[int32 * 4] in global {\n"
            "    allocate E[int32 * 4] in global {\n"
            "      // produce B\n"
            "      for (i, 0, 4) {\n"
            "        B[i] = (A[i] + 1)\n"
            "      }\n"
            "      // produce E\n"
            "      call_extern int32 twice(B, E, 4)  // stage E\n"
            "      // produce C\n"
            "      for (i_1, 0, 4) {\n"
            "        C[i_1] = (E[i_1] * 3)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  ASSERT_EQ(f.extern_sources.size(), 1u);
  std::string src = codegen_c(f);
  // The user's source comes before the kernel, which checks the status.
  EXPECT_LT(src.find(kSource), src.find("int32_t f(void** args) {"));
  EXPECT_NE(src.find("if (__atomic_load_n(&tsr_status, __ATOMIC_RELAXED) == 0 && twice(B, E, 4) "
                     "!= 0) {"),
            std::string::npos);
  // The metadata names the call, so that a failure can name the function and the stage.
  EXPECT_NE(src.find("externs\\\":[{\\\"function\\\":\\\"twice\\\""), std::string::npos);
}

TEST(ExternOp, SplitOfAnExternStageNamesIt) {
  Tensor A = placeholder({4}, DType::kInt32, "A");
  Tensor E = extern_op({make_int(4)}, DType::kInt32, {A}, twice_call(4), "E");
  auto s = create_schedule({E.op()});
  IterVar other = make_iter_var("i", 0, 4, IterKind::kDataPar);
  try {
    (*s)[E].split(other, 2);
    FAIL() << "split of an extern stage was accepted";
  } catch (const ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find("stage 'E': split: 'E' is an extern stage"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExternOp, AnInputIndexOutOfRangeNamesTheStage) {
  Tensor A = placeholder({4}, DType::kInt32, "A");
  ExternCall c = twice_call(4);
  c.args[0].input = 3;
  try {
    extern_op({make_int(4)}, DType::kInt32, {A}, c, "E");
    FAIL() << "a missing input was accepted";
  } catch (const ExprError& e) {
    EXPECT_NE(std::string(e.what()).find("te.extern 'E': argument 0 of 'twice' is input buffer 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExternOp, OnTheNpuIsATargetError) {
  Tensor A = placeholder({16}, DType::kInt32, "A");
  Tensor E = extern_op({make_int(16)}, DType::kInt32, {A}, twice_call(16), "E");
  auto s = create_schedule({E.op()});
  EXPECT_THROW(lower(*s, {A, E}, "f", Target("npu")), TargetError);
}

}  // namespace
}  // namespace tessera
