// IR nodes live in per-thread pools (ir.cpp): a node built on one thread and dropped on another,
// or outliving the thread that built it, keeps its value, and memory freed by threads that ended
// is reused without corrupting live nodes.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

// ((x * k) + k) for k in [0, n): a few thousand nodes of several sizes.
std::vector<Expr> build(const Var& x, int n) {
  std::vector<Expr> out;
  for (int k = 0; k < n; ++k) {
    out.push_back(make_binary(ExprKind::kAdd, make_binary(ExprKind::kMul, x, make_int(k + 1000)),
                              make_cast(DType::kInt32, make_int(k, DType::kInt64))));
  }
  return out;
}

std::string text(const Var& x, int k) {
  return "((x * " + std::to_string(k + 1000) + ") + int32(int64(" + std::to_string(k) + ")))";
}

TEST(IrNodePool, nodes_built_and_dropped_on_different_threads_keep_their_values) {
  Var x("x");
  const int n = 5000;
  std::vector<Expr> kept;
  for (int round = 0; round < 4; ++round) {
    std::vector<Expr> from_worker;
    std::vector<Expr> from_main = build(x, n);
    std::thread worker([&] {
      from_worker = build(x, n);
      from_main.clear();  // the main thread's nodes are freed here
    });
    worker.join();  // the worker's pool goes to the next thread that needs one
    for (int k = 0; k < n; k += 97) EXPECT_EQ(to_string(from_worker[k]), text(x, k));
    if (round == 1) kept = from_worker;  // outlives its thread and later rounds
  }
  for (int k = 0; k < n; k += 97) EXPECT_EQ(to_string(kept[k]), text(x, k));
}

}  // namespace
}  // namespace tessera
