// true_work(): the work of a function of tensor expressions, computed from the expression (or
// taken from the operators' declarations). Expected figures are counted by hand from the shapes.
#include "compiler/te/true_work.h"

#include <gtest/gtest.h>

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_depthwise_conv2d.h"
#include "autotune/templates/npu_max_pool2d.h"
#include "compiler/lower.h"
#include "compiler/te/te.h"

namespace tessera {
namespace {

Expr mul(const Expr& a, const Expr& b) { return binary_op(ExprKind::kMul, a, b); }

TEST(TrueWork, a_sum_of_products_counts_output_elements_times_reduction_points_as_macs) {
  // C[m, n] = sum_k A[m, k] * B[k, n], then D = C + 1: 24*40*56 MACs and 24*40 vector ops.
  Tensor A = placeholder({24, 56}, DType::kInt8, "A");
  Tensor B = placeholder({56, 40}, DType::kInt8, "B");
  IterVar k = reduce_axis(0, 56, "k");
  Tensor C = compute(
      {24, 40},
      [&](const std::vector<Var>& i) {
        return sum(
            mul(cast(DType::kInt32, A({i[0], k->var})), cast(DType::kInt32, B({k->var, i[1]}))),
            {k});
      },
      "C");
  Tensor D = compute(
      {24, 40},
      [&](const std::vector<Var>& i) {
        return binary_op(ExprKind::kAdd, C({i[0], i[1]}), int_literal(1, DType::kInt32));
      },
      "D");
  Work w = true_work({A, B, D});
  EXPECT_EQ(w.macs, 24u * 40 * 56);
  EXPECT_EQ(w.vector_ops, 24u * 40);
  EXPECT_EQ(w.min_ddr_bytes, 24u * 56 + 56 * 40 + 4 * 24 * 40);  // D is int32
}

TEST(TrueWork, only_the_part_of_an_input_the_expression_reads_counts_as_ddr_traffic) {
  // A 1 MiB input of which the expression reads one 16-byte row.
  Tensor X = placeholder({65536, 16}, DType::kInt8, "X");
  Tensor Y = compute(
      {16},
      [&](const std::vector<Var>& i) {
        return X({make_int(100), i[0]});
      },
      "Y");
  Work w = true_work({X, Y});
  EXPECT_EQ(w.min_ddr_bytes, 16u + 16);
  EXPECT_EQ(w.vector_ops, 0u) << "a copy computes nothing";
  EXPECT_EQ(w.macs, 0u);
}

TEST(TrueWork, a_zero_padded_stage_is_a_copy_and_its_input_is_read_once_in_full) {
  // P = zero-padded X (select), Z[c, h, w] = max over a 3x3 window of P: 9 maxes per output.
  Tensor X = placeholder({2, 6, 6}, DType::kInt8, "X");
  Tensor P = compute(
      {2, 8, 8},
      [&](const std::vector<Var>& v) {
        Expr in = binary_op(ExprKind::kAnd, v[1] >= make_int(1), v[1] < make_int(7));
        return select(in, X({v[0], v[1] - make_int(1), v[2] - make_int(1)}),
                      int_literal(0, DType::kInt8));
      },
      "P");
  IterVar r = reduce_axis(0, 3, "r"), s = reduce_axis(0, 3, "s");
  Tensor Z = compute(
      {2, 6, 6},
      [&](const std::vector<Var>& v) {
        return max_reduce(P({v[0], v[1] + r->var, v[2] + s->var}), {r, s});
      },
      "Z");
  Work w = true_work({X, Z});
  EXPECT_EQ(w.vector_ops, 2u * 6 * 6 * 9);
  EXPECT_EQ(w.min_ddr_bytes, 2u * 6 * 6 * 2);
}

TEST(TrueWork, declared_work_of_every_output_replaces_the_padded_expression) {
  // conv2d with 3 input channels: the expression multiplies 16 padded channels.
  Conv2dShape sh{3, 8, 8, 20, 3, 3, 1, 1};
  NpuOp op = npu_conv2d(npu::default_target(), sh, Requant{});
  Work w = true_work(op.args);
  EXPECT_EQ(w.macs, uint64_t(20 * 8 * 8 * 3 * 3 * 3));
  EXPECT_EQ(w.min_ddr_bytes, uint64_t(3 * 8 * 8 + 20 * 3 * 3 * 3 + 20 * 8 * 8));
  EXPECT_EQ(w.vector_ops, uint64_t(20 * 8 * 8));
  // Lowering carries the declaration (the expression would count 32 x 16 padded lanes).
  EXPECT_EQ(lower(*op.schedule, op.args, "conv", "npu").work, std::optional<Work>(w));
}

TEST(TrueWork, depthwise_counts_one_mac_per_tap_and_channel) {
  Conv2dShape sh{24, 10, 10, 24, 5, 5, 2, 2};  // OH = OW = 5
  NpuOp op = npu_depthwise_conv2d(npu::default_target(), sh, Requant{});
  Work w = true_work(op.args);
  EXPECT_EQ(w.macs, uint64_t(24 * 5 * 5 * 25));
  EXPECT_EQ(w.min_ddr_bytes, uint64_t(24 * 10 * 10 + 24 * 25 + 24 * 5 * 5));
}

TEST(TrueWork, padded_max_pooling_counts_only_window_elements_inside_the_image) {
  // 3x3, stride 2, pad 1 on 4x4: outputs 2x2; rows covered per output row: 2 (rows -1..1 -> 2)
  // and 3 (rows 1..3), the same for columns: (2 + 3) * (2 + 3) = 25 maxes per channel.
  NpuOp op = npu_max_pool2d(npu::default_target(), Pool2dShape{5, 4, 4, 3, 3, 2, 1});
  Work w = true_work(op.args);
  EXPECT_EQ(w.vector_ops, uint64_t(5 * 25));
  EXPECT_EQ(w.min_ddr_bytes, uint64_t(5 * 16 + 5 * 4));
}

}  // namespace
}  // namespace tessera
