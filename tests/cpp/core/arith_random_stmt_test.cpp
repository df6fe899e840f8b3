// Randomised check of statement simplification: random loop nests (constant and symbolic extents,
// extents 0 and 1, guards, lets) are run by a tiny interpreter before and after simplify(); the
// sequence of stores (buffer index and value) must be identical. Seeds are fixed.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"

namespace tessera {
namespace {

int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

using Env = std::map<uint64_t, int64_t>;

int64_t eval(const Expr& e, const Env& env) {
  if (const auto* i = e.as<IntImmNode>()) return i->value;
  if (const auto* v = e.as<VarNode>()) return env.at(v->id);
  if (const auto* s = e.as<SelectNode>()) {
    return eval(s->cond, env) ? eval(s->true_value, env) : eval(s->false_value, env);
  }
  if (const auto* n = e.as<NotNode>()) return !eval(n->a, env);
  const auto* op = e.as<BinaryNode>();
  if (!op) ADD_FAILURE() << "unexpected node " << to_string(e);
  if (!op) return 0;
  int64_t a = eval(op->a, env), b = eval(op->b, env);
  switch (e.kind()) {
    case ExprKind::kAdd:
      return a + b;
    case ExprKind::kSub:
      return a - b;
    case ExprKind::kMul:
      return a * b;
    case ExprKind::kDiv:
      return fdiv(a, b);
    case ExprKind::kMod:
      return a - fdiv(a, b) * b;
    case ExprKind::kMin:
      return std::min(a, b);
    case ExprKind::kMax:
      return std::max(a, b);
    case ExprKind::kEQ:
      return a == b;
    case ExprKind::kNE:
      return a != b;
    case ExprKind::kLT:
      return a < b;
    case ExprKind::kLE:
      return a <= b;
    case ExprKind::kGT:
      return a > b;
    case ExprKind::kGE:
      return a >= b;
    case ExprKind::kAnd:
      return a && b;
    case ExprKind::kOr:
      return a || b;
    default:
      ADD_FAILURE() << "unexpected kind";
      return 0;
  }
}

using Trace = std::vector<std::pair<int64_t, int64_t>>;

void run(const Stmt& s, Env& env, Trace* trace) {
  if (!s.defined()) return;
  if (const auto* f = s.as<ForNode>()) {
    int64_t mn = eval(f->min, env), ext = eval(f->extent, env);
    for (int64_t i = mn; i < mn + ext; ++i) {
      env[f->var.id()] = i;
      run(f->body, env, trace);
    }
    env.erase(f->var.id());
  } else if (const auto* q = s.as<SeqNode>()) {
    for (const Stmt& x : q->stmts) run(x, env, trace);
  } else if (const auto* c = s.as<IfThenElseNode>()) {
    run(eval(c->cond, env) ? c->then_case : c->else_case, env, trace);
  } else if (const auto* l = s.as<LetStmtNode>()) {
    env[l->var.id()] = eval(l->value, env);
    run(l->body, env, trace);
    env.erase(l->var.id());
  } else if (const auto* st = s.as<BufferStoreNode>()) {
    trace->push_back({eval(st->indices[0], env), eval(st->value, env)});
  } else {
    ADD_FAILURE() << "unexpected statement";
  }
}

class StmtGen {
 public:
  explicit StmtGen(uint32_t seed) : rng_(seed) {}
  int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % (hi - lo + 1)); }

  Expr leaf() {
    if (vars_.empty() || pick(0, 3) == 0) return Expr(static_cast<int>(pick(-6, 12)));
    return vars_[pick(0, vars_.size() - 1)];
  }
  Expr index(int depth) {
    if (depth == 0) return leaf();
    Expr a = index(depth - 1);
    switch (pick(0, 6)) {
      case 0:
        return a + index(depth - 1);
      case 1:
        return a - index(depth - 1);
      case 2:
        return a * static_cast<int>(pick(-3, 8));
      case 3:
        return a / static_cast<int>(pick(1, 8));
      case 4:
        return a % static_cast<int>(pick(1, 8));
      case 5:
        return min(a, index(depth - 1));
      default:
        return max(a, index(depth - 1));
    }
  }
  Expr cond() {
    Expr a = index(2), b = index(1);
    ExprKind k = static_cast<ExprKind>(static_cast<int>(ExprKind::kEQ) + pick(0, 5));
    Expr c = make_binary(k, a, b);
    if (pick(0, 4) == 0) c = make_binary(ExprKind::kAnd, c, cond());
    return c;
  }

  Stmt stmt(int depth) {
    switch (depth == 0 ? 4 : pick(0, 5)) {
      case 0:
      case 1: {  // a loop: constant, 0/1, or a split-style symbolic extent
        Var v("v" + std::to_string(counter_++));
        Expr mn = pick(0, 3) == 0 ? index(1) : Expr(static_cast<int>(pick(0, 3)));
        Expr ext;
        switch (pick(0, 4)) {
          case 0:
            ext = Expr(static_cast<int>(pick(0, 1)));
            break;
          case 1:
            ext = min(Expr(static_cast<int>(pick(1, 6))), index(1));
            break;
          default:
            ext = Expr(static_cast<int>(pick(2, 5)));
            break;
        }
        vars_.push_back(v);
        Stmt body = stmt(depth - 1);
        vars_.pop_back();
        return make_for(v, mn, ext, ForKind::kSerial, body);
      }
      case 2: {
        Stmt t = stmt(depth - 1);
        return make_if(cond(), t, pick(0, 2) == 0 ? stmt(depth - 1) : Stmt());
      }
      case 3: {
        Var v("l" + std::to_string(counter_++));
        Expr value = index(2);
        vars_.push_back(v);
        Stmt body = stmt(depth - 1);
        vars_.pop_back();
        return make_let(v, value, body);
      }
      case 4:
        return make_store(buf_, {index(2)}, index(2));
      default:
        return make_seq({stmt(depth - 1), stmt(depth - 1)});
    }
  }

 private:
  std::mt19937 rng_;
  std::vector<Var> vars_;
  int counter_ = 0;
  Buffer buf_ = make_buffer("A", DType::kInt32, {1024});
};

TEST(ArithRandomStmt, SimplifiedLoopNestsPerformTheSameStores) {
  int nonempty = 0, changed = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    StmtGen g(seed);
    Stmt s = g.stmt(4);
    Stmt t = simplify(s);
    Env env;
    Trace before, after;
    run(s, env, &before);
    run(t, env, &after);
    ASSERT_EQ(before, after) << to_string(s) << "\n-> simplified to\n" << to_string(t);
    nonempty += !before.empty();
    changed += to_string(s) != to_string(t);
  }
  EXPECT_GT(nonempty, 500);
  EXPECT_GT(changed, 500);
}

}  // namespace
}  // namespace tessera
