// verify, the last pass of lower(): malformed lowered functions (what a buggy earlier pass could
// produce) are InternalErrors naming the stage and the rule; a correct one, including a transfer
// whose range only its guard keeps inside the buffer, passes.
#include "compiler/passes/verify.h"

#include <gtest/gtest.h>

#include <chrono>

#include "runtime/base/error.h"

namespace tessera {
namespace {

Stmt produce(const std::string& stage, Stmt body) { return make_attr("produce", stage, body); }

LoweredFunc func(const Buffer& arg, Stmt body) {
  LoweredFunc f;
  f.name = "f";
  f.args = {arg};
  f.body = std::move(body);
  return f;
}

std::string internal_error_of(const LoweredFunc& f, const Target& t) {
  try {
    verify(f, t);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

const Target kNpu = Target("npu");

TEST(Verify, element_wise_store_left_in_npu_code_is_an_internal_error) {
  Buffer C = make_buffer("C", DType::kInt8, {16});
  Var i("i");
  Stmt body = produce("C", make_for(i, make_int(0), make_int(16), ForKind::kSerial,
                                    make_store(C, {i}, make_int(0, DType::kInt8))));
  std::string m = internal_error_of(func(C, body), kNpu);
  EXPECT_CONTAINS(m, "verify (npu-v1): function 'f', stage 'C': an element-wise store is left");
  EXPECT_CONTAINS(m, "statement: C[i] = int8(0)");
}

TEST(Verify, gemm_weight_tile_past_its_buffer_is_an_internal_error) {
  Buffer X = make_buffer("X", DType::kInt8, {16, 16});
  Buffer Ws = make_buffer("W.sram", DType::kInt8, {16, 16}, "sram");  // one 16-row tile
  Buffer Xs = make_buffer("X.sram", DType::kInt8, {1, 16}, "sram");
  Buffer Ca = make_buffer("C.acc", DType::kInt32, {1, 16}, "acc");
  Stmt g = make_npu_gemm(true, Ca, make_int(0), Xs, make_int(0), Ws, make_int(1));
  Stmt body = make_allocate(Ws, make_allocate(Xs, make_allocate(Ca, produce("C.acc", g))));
  std::string m = internal_error_of(func(X, body), kNpu);
  EXPECT_CONTAINS(m,
                  "stage 'C.acc': the GEMM weight tile touches rows [1, 17) of 'W.sram', which "
                  "has 16 rows, for some iteration of the loops around it (1..17)");
}

TEST(Verify, dma_past_the_end_of_its_argument_in_one_iteration_is_an_internal_error) {
  Buffer X = make_buffer("X", DType::kInt8, {2, 16});
  Buffer Xs = make_buffer("X.sram", DType::kInt8, {1, 16}, "sram");
  Var i("i");
  Stmt dma = make_npu_dma(true, Xs, make_int(0), 1, X, Expr(i) * 16, 16, make_int(1), make_int(1));
  Stmt body = make_allocate(
      Xs, produce("X.sram", make_for(i, make_int(0), make_int(3), ForKind::kSerial, dma)));
  std::string m = internal_error_of(func(X, body), kNpu);
  EXPECT_CONTAINS(m,
                  "the DMA source touches elements [(i * 16), ((i * 16) + 16)) of 'X', which "
                  "has 32 elements, for some iteration of the loops around it (32..48 with "
                  "i = 2)");
  // Guarded to the iterations that fit, the same transfer is fine (checked by running the loop).
  Stmt guarded =
      make_allocate(Xs, produce("X.sram", make_for(i, make_int(0), make_int(3), ForKind::kSerial,
                                                   make_if(Expr(i) < make_int(2), dma))));
  EXPECT_EQ(internal_error_of(func(X, guarded), kNpu), "");
}

TEST(Verify, a_loop_whose_range_depends_on_an_outer_loop_is_bounded_without_running_it) {
  // A tail tile (tighten_loop_bounds): for io in [0, 5): for ii in [0, min(48, rows - 48*io)):
  // a vector op on row 48*io + ii of a 200-row accumulator buffer, inside a loop of 2^20
  // iterations that the range does not depend on. The nest's bounds prove it in range; running
  // the loops would take seconds.
  Buffer X = make_buffer("X", DType::kInt8, {16});
  Buffer A = make_buffer("A.acc", DType::kInt32, {200, 16}, "acc");
  Var io("io"), ii("ii"), j("j");
  auto nest = [&](int64_t rows) {
    Expr row = Expr(io) * 48 + Expr(ii);
    Stmt op = make_npu_vector(npu::VecOp::kAdd, A, row, A, row, A, row);
    Stmt inner = make_for(ii, make_int(0), min(make_int(48), make_int(rows) - Expr(io) * 48),
                          ForKind::kSerial, op);
    Stmt outer = make_for(io, make_int(0), make_int(5), ForKind::kSerial, inner);
    return make_allocate(
        A, produce("A.acc", make_for(j, make_int(0), make_int(1 << 20), ForKind::kSerial, outer)));
  };
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(internal_error_of(func(X, nest(200)), kNpu), "");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  std::string m = internal_error_of(func(X, nest(240)), kNpu);
  EXPECT_CONTAINS(m, "touches rows");
  EXPECT_CONTAINS(m, "which has 200 rows");
}

TEST(Verify, a_loop_that_only_shifts_the_range_is_checked_at_every_iteration) {
  // for k in [0, 8): for o in [0, 4): a DMA of elements [k*64 + o*16 - min(o*16, 40), +16).
  // Interval arithmetic loses the correlation of o*16 and the clamp, so the range is run; k only
  // shifts it (the exact check decides k's iterations at once). The last iteration ends at 472.
  Var k("k"), o("o");
  auto nest = [&](int64_t elements) {
    Buffer X = make_buffer("X", DType::kInt8, {elements});
    Buffer Xs = make_buffer("X.sram", DType::kInt8, {1, 16}, "sram");
    Expr first = Expr(k) * 64 + (Expr(o) * 16 - min(Expr(o) * 16, make_int(40)));
    Stmt dma = make_npu_dma(true, Xs, make_int(0), 1, X, first, 16, make_int(1), make_int(1));
    Stmt loops = make_for(k, make_int(0), make_int(8), ForKind::kSerial,
                          make_for(o, make_int(0), make_int(4), ForKind::kSerial, dma));
    return func(X, make_allocate(Xs, produce("X.sram", loops)));
  };
  EXPECT_EQ(internal_error_of(nest(472), kNpu), "");
  std::string m = internal_error_of(nest(471), kNpu);
  EXPECT_CONTAINS(m,
                  "which has 471 elements, for some iteration of the loops around it (456..472 "
                  "with k = 7, o = 3)");
}

TEST(Verify, a_row_through_a_let_is_bounded_by_the_lets_value) {
  // for i in [0, 8): let r = i * 3 in a vector op on rows r and r + 2 of a 24-row buffer: in
  // range (the box proof sees r in [0, 21]); with 23 rows, the last iteration is out.
  Buffer X = make_buffer("X", DType::kInt8, {16});
  Var i("i"), r("r");
  auto nest = [&](int64_t rows) {
    Buffer A = make_buffer("A.acc", DType::kInt32, {rows, 16}, "acc");
    Stmt op = make_npu_vector(npu::VecOp::kAdd, A, Expr(r), A, Expr(r) + 2, A, Expr(r));
    Stmt let = make_let(r, Expr(i) * 3, op);
    return make_allocate(
        A, produce("A.acc", make_for(i, make_int(0), make_int(8), ForKind::kSerial, let)));
  };
  EXPECT_EQ(internal_error_of(func(X, nest(24)), kNpu), "");
  std::string m = internal_error_of(func(X, nest(23)), kNpu);
  EXPECT_CONTAINS(m,
                  "the vector source touches rows [(r + 2), (r + 3)) of 'A.acc', which has 23 "
                  "rows, for some iteration of the loops around it (23..24 with i = 7, r = 21)");
}

TEST(Verify, on_chip_operand_outside_its_allocation_is_an_internal_error) {
  Buffer X = make_buffer("X", DType::kInt8, {16});
  Buffer Ys = make_buffer("Y.sram", DType::kInt8, {16}, "sram");
  Stmt v = make_npu_vector(npu::VecOp::kRelu, Ys, make_int(0), Ys, make_int(0));
  std::string m = internal_error_of(func(X, produce("Y.sram", v)), kNpu);
  EXPECT_CONTAINS(m, "the vector destination 'Y.sram' is not allocated around its use");
}

TEST(Verify, npu_statement_on_the_c_target_is_an_internal_error) {
  Buffer X = make_buffer("X", DType::kInt8, {16});
  Buffer Ys = make_buffer("Y.sram", DType::kInt8, {16}, "sram");
  Stmt body =
      make_allocate(Ys, make_npu_vector(npu::VecOp::kRelu, Ys, make_int(0), Ys, make_int(0)));
  std::string m = internal_error_of(func(X, body), Target::c());
  EXPECT_CONTAINS(m,
                  "verify (c): function 'f', stage '<top level>': an NPU statement reached a "
                  "target that is not an NPU");
}

TEST(Verify, multi_dimensional_access_left_for_c_is_an_internal_error) {
  Buffer A = make_buffer("A", DType::kFloat32, {4, 4});
  Stmt body = make_store(A, {make_int(1), make_int(2)}, make_float(0.0));
  std::string m = internal_error_of(func(A, body), Target::c());
  EXPECT_CONTAINS(m, "an access of 'A' has 2 indices");
}

}  // namespace
}  // namespace tessera
