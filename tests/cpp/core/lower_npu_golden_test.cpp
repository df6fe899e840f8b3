// Golden lowered-IR tests of the NPU passes, like lower_golden_test.cpp: a schedule, the IR a pass
// receives (before) and the IR it must produce (expected), on npu-v1 (16 x 16) and on the 8 x 8
// target. Each expected text was checked by hand against the rule in the test's comment.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/ir/ir_printer.h"
#include "compiler/lower.h"
#include "compiler/te/te.h"
#include "schedule/schedule.h"

namespace tessera {
namespace {

npu::Target target_8x8() {
  return npu::load_target(std::string(TESSERA_SOURCE_DIR) + "/runtime/npu/targets/npu-8x8.json");
}

// The IR after each pass of lower().
struct Trace {
  std::map<std::string, std::string> after;
  std::string before_inject;  // after simplify: what inject_npu_ops receives
  LowerOptions options() {
    LowerOptions o;
    o.after_pass = [this](const std::string& pass, const Stmt& body) {
      after[pass] = to_string(body);
      if (pass == "simplify") before_inject = after[pass];
    };
    return o;
  }
};

// A stage's produce block of printed IR: the line "// produce <stage>" and the lines after it up
// to the next stage's produce comment at the same depth or the end of the enclosing block,
// re-indented to column 0.
std::string block(const std::string& text, const std::string& head) {
  std::istringstream in(text);
  std::string line, out;
  size_t indent = std::string::npos;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    if (indent == std::string::npos) {
      if (line.compare(first, std::string::npos, head) == 0) {
        indent = first;
        out += line.substr(indent) + "\n";
      }
      continue;
    }
    if (first < indent || (first == indent && line.compare(first, 11, "// produce ") == 0)) break;
    out += line.substr(indent) + "\n";
  }
  return out;
}

// acc[m, nb, o] = sum over kb, i of int32(X[m, kb, i]) * int32(W[nb, kb, o, i]), X and W cached in
// SRAM, the sum computed in the accumulator (acc.acc) with its loops in `order`
// (a permutation of m, nb, kb, o, i by name) and tensorized at o.
struct Dense {
  Tensor X, W, acc;
  std::shared_ptr<Schedule> s;
};
Dense dense(const npu::Target& t, const std::vector<std::string>& order) {
  const int64_t B = t.block(), M = 2, KB = 2, NB = 2;
  Dense d;
  d.X = placeholder({M, KB, B}, DType::kInt8, "X");
  d.W = placeholder({NB, KB, B, B}, DType::kInt8, "W");
  IterVar kb = reduce_axis(0, KB, "kb"), i = reduce_axis(0, B, "i");
  d.acc = compute({M, NB, B},
                  [&](const std::vector<Var>& v) {
                    return sum(
                        binary_op(ExprKind::kMul, cast(DType::kInt32, d.X({v[0], kb->var, i->var})),
                                  cast(DType::kInt32, d.W({v[1], kb->var, v[2], i->var}))),
                        {kb, i});
                  },
                  "acc", {"m", "nb", "o"});
  d.s = create_schedule({d.acc.op()});
  d.s->cache_read(d.X, "sram", {d.acc.op()});
  d.s->cache_read(d.W, "sram", {d.acc.op()});
  Tensor a = d.s->cache_write(d.acc, "acc");
  std::vector<IterVar> all = a.op()->axis;
  all.insert(all.end(), a.op()->reduce_axis.begin(), a.op()->reduce_axis.end());
  std::vector<IterVar> leaves;
  for (const std::string& n : order) {
    for (const IterVar& iv : all) {
      if (iv->var.name() == n) leaves.push_back(iv);
    }
  }
  (*d.s)[a].reorder(leaves);
  (*d.s)[a].tensorize(a.op()->axis[2], npu_gemm_intrin(t));
  return d;
}

// Reduction loop kb outermost, two data-parallel loops (m, nb) between it and the intrinsic: the
// first kb step is the reset form and the init nest goes. Rows: acc.acc[m, nb, o] is row
// 2m + nb; X.sram[m, kb, i] row 2m + kb; the weight tile W.sram[nb, kb] starts at row
// B (2 nb + kb) (B rows per tile).
TEST(TensorizeGolden, gemm_under_an_outer_reduction_resets_on_its_first_step) {
  for (const npu::Target& t : {npu::default_target(), target_8x8()}) {
    Dense d = dense(t, {"kb", "m", "nb", "o", "i"});
    Trace trace;
    lower(*d.s, {d.X, d.W, d.acc}, "dense", t, trace.options());
    std::string B = std::to_string(t.block()), intrin = "npu.gemm" + B + "x" + B;
    EXPECT_EQ(
        block(trace.after.at("schedule_ops"), "// produce acc.acc"),
        "// produce acc.acc\n"
        "// reduce_init acc.acc\n"
        "for (m, 0, 2) {\n"
        "  for (nb, 0, 2) {\n"
        "    for (o, 0, " +
            B +
            ") {\n"
            "      acc.acc[m, nb, o] = 0\n"
            "    }\n"
            "  }\n"
            "}\n"
            "for (kb, 0, 2) {\n"
            "  for (m, 0, 2) {\n"
            "    for (nb, 0, 2) {\n"
            "      tensorize " +
            intrin +
            " at o {  // stage acc.acc\n"
            "        for (o, 0, " +
            B +
            ") {\n"
            "          for (i, 0, " +
            B +
            ") {\n"
            "            acc.acc[m, nb, o] = (acc.acc[m, nb, o] + (int32(X.sram[((0 + m) - 0), "
            "((0 + kb) - 0), ((0 + i) - 0)]) * int32(W.sram[((0 + nb) - 0), ((0 + kb) - 0), "
            "((0 + o) - 0), ((0 + i) - 0)])))\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n")
        << t.name;
    std::string rows =
        "acc.acc.row[((m * 2) + nb)] %s X.sram.row[(kb + (m * 2))] x W.sram.row[((kb * " + B +
        ") + (nb * " + std::to_string(2 * t.block()) + "))]";
    auto gemm = [&](const char* op) {
      std::string r = rows;
      r.replace(r.find("%s"), 2, op);
      return r;
    };
    EXPECT_EQ(block(trace.after.at("tensorize"), "// produce acc.acc"),
              "// produce acc.acc\n"
              "for (kb, 0, 2) {\n"
              "  if (kb == 0) {\n"
              "    for (m, 0, 2) {\n"
              "      for (nb, 0, 2) {\n"
              "        npu.gemm.reset " +
                  gemm("=") +
                  "\n"
                  "      }\n"
                  "    }\n"
                  "  } else {\n"
                  "    for (m, 0, 2) {\n"
                  "      for (nb, 0, 2) {\n"
                  "        npu.gemm " +
                  gemm("+=") +
                  "\n"
                  "      }\n"
                  "    }\n"
                  "  }\n"
                  "}\n")
        << t.name;
  }
}

// The reduction loop kb just outside the intrinsic (one of the two loops codegen folds around
// it): no reset form, the init nest stays (unmarked) and every step accumulates.
TEST(TensorizeGolden, gemm_with_the_reduction_next_to_it_keeps_the_init) {
  for (const npu::Target& t : {npu::default_target(), target_8x8()}) {
    Dense d = dense(t, {"m", "nb", "kb", "o", "i"});
    Trace trace;
    lower(*d.s, {d.X, d.W, d.acc}, "dense", t, trace.options());
    std::string B = std::to_string(t.block());
    EXPECT_EQ(block(trace.after.at("tensorize"), "// produce acc.acc"),
              "// produce acc.acc\n"
              "for (m, 0, 2) {\n"
              "  for (nb, 0, 2) {\n"
              "    for (o, 0, " +
                  B +
                  ") {\n"
                  "      acc.acc[m, nb, o] = 0\n"
                  "    }\n"
                  "    for (kb, 0, 2) {\n"
                  "      npu.gemm acc.acc.row[((m * 2) + nb)] += X.sram.row[(kb + (m * 2))] x "
                  "W.sram.row[((kb * " +
                  B + ") + (nb * " + std::to_string(2 * t.block()) +
                  "))]\n"
                  "    }\n"
                  "  }\n"
                  "}\n")
        << t.name;
  }
}

// acc[h, w, l] = sum over r, s of int32(X[h + r, w + s, l]) * int32(K[r, s, l]): a depthwise
// convolution, loops (r, s, h, w, l), tensorized at the lane loop l with the vector MAC.
TEST(TensorizeGolden, vector_mac_resets_on_the_first_tap_and_accumulates_the_others) {
  for (const npu::Target& t : {npu::default_target(), target_8x8()}) {
    const int64_t B = t.block();
    Tensor X = placeholder({3, 3, B}, DType::kInt8, "X");
    Tensor K = placeholder({2, 2, B}, DType::kInt8, "K");
    IterVar r = reduce_axis(0, 2, "r"), q = reduce_axis(0, 2, "s");
    Tensor acc = compute({2, 2, B},
                         [&](const std::vector<Var>& v) {
                           Expr x = cast(DType::kInt32, X({v[0] + r->var, v[1] + q->var, v[2]}));
                           Expr k = cast(DType::kInt32, K({r->var, q->var, v[2]}));
                           return sum(binary_op(ExprKind::kMul, x, k), {r, q});
                         },
                         "acc", {"h", "w", "l"});
    auto s = create_schedule({acc.op()});
    s->cache_read(X, "sram", {acc.op()});
    s->cache_read(K, "sram", {acc.op()});
    Tensor a = s->cache_write(acc, "acc");
    const auto& ax = a.op()->axis;
    const auto& rax = a.op()->reduce_axis;
    (*s)[a].reorder({rax[0], rax[1], ax[0], ax[1], ax[2]});
    (*s)[a].tensorize(ax[2], npu_vmac_intrin(t));
    Trace trace;
    lower(*s, {X, K, acc}, "depthwise", t, trace.options());
    std::string Bs = std::to_string(B);
    EXPECT_EQ(
        block(trace.after.at("schedule_ops"), "// produce acc.acc"),
        "// produce acc.acc\n"
        "// reduce_init acc.acc\n"
        "for (h, 0, 2) {\n"
        "  for (w, 0, 2) {\n"
        "    for (l, 0, " +
            Bs +
            ") {\n"
            "      acc.acc[h, w, l] = 0\n"
            "    }\n"
            "  }\n"
            "}\n"
            "for (r, 0, 2) {\n"
            "  for (s, 0, 2) {\n"
            "    for (h, 0, 2) {\n"
            "      for (w, 0, 2) {\n"
            "        tensorize npu.vmac" +
            Bs +
            " at l {  // stage acc.acc\n"
            "          for (l, 0, " +
            Bs +
            ") {\n"
            "            acc.acc[h, w, l] = (acc.acc[h, w, l] + (int32(X.sram[(((0 + h) + (0 + r)) "
            "- "
            "0), (((0 + w) + (0 + s)) - 0), ((0 + l) - 0)]) * int32(K.sram[((0 + r) - 0), ((0 + s) "
            "- 0), ((0 + l) - 0)])))\n"
            "          }\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n")
        << t.name;
    // Rows: acc.acc[h, w] is row 2h + w, X.sram[h + r, w + s] row 3(h + r) + w + s, K.sram[r, s]
    // row 2r + s; the first tap (r = s = 0) multiplies, the others accumulate.
    EXPECT_EQ(
        block(trace.after.at("tensorize"), "// produce acc.acc"),
        "// produce acc.acc\n"
        "for (r, 0, 2) {\n"
        "  for (s, 0, 2) {\n"
        "    if ((r == 0) && (s == 0)) {\n"
        "      for (h, 0, 2) {\n"
        "        for (w, 0, 2) {\n"
        "          npu.vector.mul acc.acc.row[((h * 2) + w)] = X.sram.row[((((r * 3) + s) + (h "
        "* 3)) + w)], K.sram.row[((r * 2) + s)]\n"
        "        }\n"
        "      }\n"
        "    } else {\n"
        "      for (h, 0, 2) {\n"
        "        for (w, 0, 2) {\n"
        "          npu.vector.mac acc.acc.row[((h * 2) + w)] += X.sram.row[((((r * 3) + s) + (h "
        "* 3)) + w)] x K.sram.row[((r * 2) + s)]\n"
        "        }\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n")
        << t.name;
  }
}

// inject_npu_ops on Y = relu(int8(clamp(A + B))) with A, B cached in SRAM and Y computed there:
// each copy nest of whole rows becomes one DMA (its loops continue each other in both memories,
// so they merge into one DDR row of 4 units), the saturating add one vector add with a tensor
// operand, the relu its own vector op with its own copy of the loops.
TEST(InjectNpuOpsGolden, copies_become_dmas_and_elementwise_ops_vector_ops) {
  for (const npu::Target& t : {npu::default_target(), target_8x8()}) {
    const int64_t Bk = t.block();
    Tensor A = placeholder({2, 2, Bk}, DType::kInt8, "A");
    Tensor Bt = placeholder({2, 2, Bk}, DType::kInt8, "B");
    Tensor Y =
        compute({2, 2, Bk},
                [&](const std::vector<Var>& v) {
                  Expr sum32 = binary_op(ExprKind::kAdd, cast(DType::kInt32, A({v[0], v[1], v[2]})),
                                         cast(DType::kInt32, Bt({v[0], v[1], v[2]})));
                  Expr sat = cast(
                      DType::kInt8,
                      binary_op(ExprKind::kMin,
                                binary_op(ExprKind::kMax, sum32, int_literal(-128, DType::kInt32)),
                                int_literal(127, DType::kInt32)));
                  return binary_op(ExprKind::kMax, sat, int_literal(0, DType::kInt8));
                },
                "Y", {"i", "j", "l"});
    auto s = create_schedule({Y.op()});
    Tensor ys = s->cache_write(Y, "sram");
    s->cache_read(A, "sram", {ys.op()});
    s->cache_read(Bt, "sram", {ys.op()});
    Trace trace;
    lower(*s, {A, Bt, Y}, "add_relu", t, trace.options());
    std::string B = std::to_string(Bk), B2 = std::to_string(2 * Bk), B4 = std::to_string(4 * Bk);
    // A's row (i0, i1) is elements [B (2 i0 + i1), B (2 i0 + i1) + B) in both memories.
    std::string flat = "(((%0 * " + B2 + ") + (%1 * " + B + ")) + %2)";
    auto at = [&](const std::string& a, const std::string& b, const std::string& c) {
      std::string f = flat;
      f.replace(f.find("%0"), 2, a);
      f.replace(f.find("%1"), 2, b);
      f.replace(f.find("%2"), 2, c);
      return f;
    };
    std::string head = "allocate A.sram[int8 * 2 * 2 * " + B +
                       "] in sram {\n"
                       "  allocate B.sram[int8 * 2 * 2 * " +
                       B +
                       "] in sram {\n"
                       "    allocate Y.sram[int8 * 2 * 2 * " +
                       B + "] in sram {\n";
    EXPECT_EQ(trace.before_inject,
              head +
                  "      // produce A.sram\n"
                  "      for (i0, 0, 2) {\n"
                  "        for (i1, 0, 2) {\n"
                  "          for (i2, 0, " +
                  B +
                  ") {\n"
                  "            A.sram[" +
                  at("i0", "i1", "i2") + "] = A[" + at("i0", "i1", "i2") +
                  "]\n"
                  "          }\n"
                  "        }\n"
                  "      }\n"
                  "      // produce B.sram\n"
                  "      for (i0_1, 0, 2) {\n"
                  "        for (i1_1, 0, 2) {\n"
                  "          for (i2_1, 0, " +
                  B +
                  ") {\n"
                  "            B.sram[" +
                  at("i0_1", "i1_1", "i2_1") + "] = B[" + at("i0_1", "i1_1", "i2_1") +
                  "]\n"
                  "          }\n"
                  "        }\n"
                  "      }\n"
                  "      // produce Y.sram\n"
                  "      for (i, 0, 2) {\n"
                  "        for (j, 0, 2) {\n"
                  "          for (l, 0, " +
                  B +
                  ") {\n"
                  "            Y.sram[" +
                  at("i", "j", "l") + "] = max(int8(min(max((int32(A.sram[" + at("i", "j", "l") +
                  "]) + int32(B.sram[" + at("i", "j", "l") +
                  "])), -128), 127)), int8(0))\n"
                  "          }\n"
                  "        }\n"
                  "      }\n"
                  "      // produce Y\n"
                  "      for (i_1, 0, 2) {\n"
                  "        for (j_1, 0, 2) {\n"
                  "          for (l_1, 0, " +
                  B +
                  ") {\n"
                  "            Y[" +
                  at("i_1", "j_1", "l_1") + "] = Y.sram[" + at("i_1", "j_1", "l_1") +
                  "]\n"
                  "          }\n"
                  "        }\n"
                  "      }\n"
                  "    }\n"
                  "  }\n"
                  "}\n")
        << t.name;
    EXPECT_EQ(
        trace.after.at("inject_npu_ops"),
        head +
            "      // produce A.sram\n"
            "      npu.dma_load A.sram.row[0] stride 1 <- A[0] stride " +
            B4 +
            ", 1 x 4 units\n"
            "      // produce B.sram\n"
            "      npu.dma_load B.sram.row[0] stride 1 <- B[0] stride " +
            B4 +
            ", 1 x 4 units\n"
            "      // produce Y.sram\n"
            "      for (i, 0, 2) {\n"
            "        for (j, 0, 2) {\n"
            "          npu.vector.add Y.sram.row[((i * 2) + j)] = A.sram.row[((i * 2) + j)], "
            "B.sram.row[((i * 2) + j)]\n"
            "        }\n"
            "      }\n"
            "      for (i, 0, 2) {\n"
            "        for (j, 0, 2) {\n"
            "          npu.vector.relu Y.sram.row[((i * 2) + j)] = Y.sram.row[((i * 2) + j)]\n"
            "        }\n"
            "      }\n"
            "      // produce Y\n"
            "      npu.dma_store Y.sram.row[0] stride 1 -> Y[0] stride " +
            B4 +
            ", 1 x 4 units\n"
            "    }\n"
            "  }\n"
            "}\n")
        << t.name;
  }
}

}  // namespace
}  // namespace tessera
