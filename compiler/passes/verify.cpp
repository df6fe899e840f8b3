#include "compiler/passes/verify.h"

#include <memory>
#include <set>

#include "compiler/arith/box_bounds.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/int_program.h"
#include "compiler/arith/interval.h"
#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/npu_rules.h"
#include "compiler/te/operation.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool reads_a_buffer(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    found |= x.kind() == ExprKind::kBufferLoad || x.kind() == ExprKind::kProducerLoad;
  });
  return found;
}

// What encloses a statement: loops, guards (and which branch), lets; outermost first.
// A scope's expressions compiled for the exact check (int_program.h), once per scope: every range
// checked inside it runs them.
struct ScopeCode {
  IntProgram a, b;
  int slot;  // the scope variable's, or -1
};

struct Scope {
  enum Kind { kLoop, kIf, kLet } kind;
  Var var;
  Expr a, b;         // loop: min, extent; if: condition; let: value
  bool then = true;  // if: the statement is in the then branch
  // Compiled at the first exact check inside the scope.
  std::unique_ptr<ScopeCode> code = nullptr;
};

class Verifier : public IRVisitor {
 public:
  Verifier(const LoweredFunc& f, const Target& target) : f_(f), target_(target) {
    for (const Buffer& b : f.args) args_.insert(b.get());
  }
  using IRVisitor::visit;

 protected:
  void visit_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    bool produce = op->key == "produce";
    if (produce) stages_.push_back(op->value);
    IRVisitor::visit_AttrStmt(op, s);
    if (produce) stages_.pop_back();
  }
  void visit_Allocate(const AllocateNode* op, const Stmt& s) override {
    if (args_.count(op->buffer.get())) fail(s, "an argument buffer is allocated");
    if (npu()) {
      std::string why = onchip_problem(op->buffer, target_.npu());
      if (!why.empty()) fail(s, why);
    }
    live_.insert(op->buffer.get());
    IRVisitor::visit_Allocate(op, s);
    live_.erase(op->buffer.get());
  }
  void visit_For(const ForNode* op, const Stmt& s) override {
    if (npu() && (reads_a_buffer(op->min) || reads_a_buffer(op->extent))) {
      fail(s, "a loop bound reads a buffer; NPU loop bounds are decided when the loops unroll");
    }
    push_loop_range(op);
    scopes_.push_back({Scope::kLoop, op->var, op->min, op->extent});
    IRVisitor::visit_For(op, s);
    scopes_.pop_back();
    box_.pop();
  }
  void visit_IfThenElse(const IfThenElseNode* op, const Stmt& s) override {
    if (npu() && reads_a_buffer(op->cond)) {
      fail(s, "a condition reads a buffer; NPU conditions are decided when the loops unroll");
    }
    visit(op->cond);
    scopes_.push_back({Scope::kIf, Var(), op->cond, Expr(), true});
    visit(op->then_case);
    scopes_.back().then = false;
    visit(op->else_case);
    scopes_.pop_back();
  }
  void visit_LetStmt(const LetStmtNode* op, const Stmt& s) override {
    visit(op->value);
    // The let's variable ranges over its value's bounds (a superset of the values it takes).
    std::optional<BoxRange> v = op->value.dtype() == op->var.dtype() ? box_bounds(op->value, box_)
                                                                     : std::optional<BoxRange>();
    if (v) {
      box_.push(op->var.node(), v->min, v->max);
    } else {
      box_.push_unbounded(op->var.node());
    }
    scopes_.push_back({Scope::kLet, op->var, op->value, Expr()});
    visit(op->body);
    scopes_.pop_back();
    box_.pop();
  }
  void visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    if (npu()) {
      fail(s, "an element-wise store is left; NPU code holds DMA, GEMM and vector statements");
    }
    access(s, op->buffer, op->indices.size());
    IRVisitor::visit_BufferStore(op, s);
  }
  void visit_Tensorize(const TensorizeNode* op, const Stmt& s) override {
    fail(s, "a tensorize region is left (the tensorize pass replaces every one)");
  }
  void visit_NpuDma(const NpuDmaNode* op, const Stmt& s) override { npu_leaf(s); }
  void visit_NpuGemm(const NpuGemmNode* op, const Stmt& s) override { npu_leaf(s); }
  void visit_NpuVector(const NpuVectorNode* op, const Stmt& s) override { npu_leaf(s); }

  void visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    if (!current_.defined()) return IRVisitor::visit_BufferLoad(op, e);
    access(current_, op->buffer, op->indices.size());
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    fail(current_, str("a read of tensor '", op->op->name, "' was not lowered to a buffer"));
  }
  void visit_Reduce(const ReduceNode* op, const Expr& e) override {
    fail(current_, "a reduction expression was not lowered to loops");
  }

 public:
  void run() { walk(f_.body); }

 private:
  bool npu() const { return target_.is_npu(); }

  // Visits statements keeping the one being checked (for messages of expression checks).
  void walk(const Stmt& s) { visit(s); }
  void visit(const Stmt& s) override {
    if (!s.defined()) return;
    Stmt saved = current_;
    current_ = s;
    IRVisitor::visit(s);
    current_ = saved;
  }

  [[noreturn]] void fail(const Stmt& s, const std::string& why) const {
    std::string stmt = s.defined() ? to_string(s, 0) : std::string("<none>");
    if (stmt.size() > 300) stmt = stmt.substr(0, 300) + " ...";
    while (!stmt.empty() && stmt.back() == '\n') stmt.pop_back();
    throw InternalError(str("verify (", target_.name(), "): function '", f_.name, "', stage '",
                            stages_.empty() ? std::string("<top level>") : stages_.back(),
                            "': ", why, "\n  statement: ", stmt));
  }

  void access(const Stmt& s, const Buffer& b, size_t indices) {
    if (indices != 1) fail(s, str("an access of '", b->name, "' has ", indices, " indices"));
    if (!args_.count(b.get()) && !live_.count(b.get())) {
      fail(s, str("buffer '", b->name, "' is used outside its allocation"));
    }
  }

  void npu_leaf(const Stmt& s) {
    if (!npu()) fail(s, "an NPU statement reached a target that is not an NPU");
    const npu::Target& t = target_.npu();
    for (const NpuTouch& r : npu_touches(s, t)) {
      int64_t limit;
      if (r.ddr) {
        if (!args_.count(r.buffer.get())) {
          fail(s, str("a DMA moves data of '", r.buffer->name, "', which is not an argument"));
        }
        limit = r.buffer->num_elements();
      } else {
        if (!live_.count(r.buffer.get())) {
          fail(s, str("the ", r.role, " '", r.buffer->name, "' is not allocated around its use"));
        }
        limit = onchip_rows(r.buffer, t);
      }
      if (!within(r, limit)) {
        fail(s, str("the ", r.role, " touches ", r.ddr ? "elements" : "rows", " [",
                    to_string(simplify(r.first)), ", ", to_string(simplify(r.end)), ") of '",
                    r.buffer->name, "', which has ", limit, r.ddr ? " elements" : " rows",
                    ", for some iteration of the loops around it", witness_));
      }
    }
  }

  // The loop variable's range for the box proof: [min, min + extent - 1] over the enclosing box
  // (for a tail tile, the largest extent any enclosing iteration gives); none when its bounds are
  // not bounded there or the loop never runs (the general path decides those).
  void push_loop_range(const ForNode* op) {
    std::optional<BoxRange> mn = box_bounds(op->min, box_);
    std::optional<BoxRange> ext = box_bounds(op->extent, box_);
    int64_t hi;
    if (mn && ext && ext->max > 0 && !__builtin_add_overflow(mn->max, ext->max - 1, &hi)) {
      box_.push(op->var.node(), mn->min, hi);
    } else {
      box_.push_unbounded(op->var.node());
    }
  }

  // Does [first, end) lie in [0, limit) for every iteration of the enclosing loops (and guards)?
  bool within(const NpuTouch& r, int64_t limit) {
    // The box proof first: with every enclosing loop and let variable anywhere in its range (a
    // superset of the iterations that run; guards only remove some), by interval arithmetic. What
    // it does not prove is decided below, as before.
    if (box_range_within(r.first, r.end, limit, box_)) return true;
    // Lets, innermost first, substituted into the range.
    Expr first = r.first, end = r.end;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->kind != Scope::kLet) continue;
      first = substitute(first, {{it->var, it->a}});
      end = substitute(end, {{it->var, it->a}});
    }
    // Few iterations: running them by integer evaluation is cheaper than simplifying the range
    // and bounding it. In range at every point is the answer the general path below gives too (a
    // bound proof or the same exact run); anything else is left to that path, as before.
    if (exact_check(first, end, limit, kQuickBudget) == Outcome::kIn) return true;
    first = simplify(first);
    end = simplify(end);
    VarRanges ranges;
    bool constant_loops = true;
    for (const Scope& sc : scopes_) {
      if (sc.kind != Scope::kLoop) continue;
      const int64_t* ext = as_const_int(sc.b);
      if (ext && *ext <= 0) return true;  // never runs
      // A loop whose range depends on enclosing loops (a tail tile: tighten_loop_bounds) has that
      // range, in their variables; const bounds follow the nest (const_bounds.h).
      if (!as_const_int(sc.a) || !ext) {
        std::optional<int64_t> lo = const_lower_bound(sc.a, ranges);
        std::optional<int64_t> hi = const_upper_bound(sc.a + sc.b, ranges);
        if (!lo || !hi) {
          constant_loops = false;
          continue;
        }
        if (*hi <= *lo) return true;  // never runs for any value of the enclosing loops
        ranges[sc.var] = Interval{sc.a, simplify(sc.a + sc.b - make_int(1, sc.b.dtype()))};
        continue;
      }
      ranges[sc.var] = Interval::range(*as_const_int(sc.a), *ext);
    }
    if (constant_loops) {
      std::optional<int64_t> lo = const_lower_bound(first, ranges);
      std::optional<int64_t> hi = const_upper_bound(end, ranges);
      if (lo && hi && *lo >= 0 && *hi <= limit) return true;
    }
    // Not provably in range from the loop ranges alone: run the loops and guards (too many
    // iterations to check here count as in range: codegen checks each instance).
    return exact_check(first, end, limit, kExactBudget) != Outcome::kOut;
  }

  enum class Outcome { kIn, kOut, kGaveUp };
  // The loops and guards' expressions, compiled for one check.
  struct Exact {
    explicit Exact(IntEnv& e) : env(e) {}
    IntEnv& env;       // the verifier's: every binding is restored when a check ends
    IntProgram range;  // first and end, compiled together
    std::vector<const IntProgram*> a, b;
    std::vector<int> slot;
    // Per scope: does anything below it (a later scope's expressions, the range) use its
    // variable? A loop whose variable nothing uses gives every iteration the same outcome.
    std::vector<bool> used;
    int64_t limit = 0;
    // Per scope: a loop whose variable only shifts the range (a plain term of first and of end,
    // with these coefficients) and that no later scope uses. Its iterations differ only in the
    // range, by cf * k and ce * k at the k-th, so while `affine` is on, the leaf decides every
    // iteration of such loops at once from the range at their first iteration (below).
    std::vector<bool> shifts;
    std::vector<int64_t> cf, ce;
    struct Span {
      int64_t cf, ce, last;  // coefficients; the last iteration's offset from the first
    };
    std::vector<Span> spans;  // the shifting loops being decided at once, outermost first
    bool affine = false;
    bool undecided = false;  // a leaf could not decide its shifting loops at once
  };

  Outcome exact_check(const Expr& first, const Expr& end, int64_t limit, int64_t budget) {
    Exact x(env_);
    x.range = IntProgram(std::vector<Expr>{first, end}, &x.env);
    x.a.reserve(scopes_.size());
    x.b.reserve(scopes_.size());
    for (Scope& sc : scopes_) {
      if (!sc.code) {
        sc.code.reset(new ScopeCode{IntProgram(sc.a, &env_), IntProgram(sc.b, &env_),
                                    sc.var.defined() ? env_.slot(sc.var) : -1});
      }
      x.a.push_back(&sc.code->a);
      x.b.push_back(&sc.code->b);
      x.slot.push_back(sc.code->slot);
    }
    std::set<const VarNode*> below, in_scopes;
    auto note = [&](const Expr& e, std::set<const VarNode*>* more) {
      if (e.defined()) {
        post_order_visit(e, [&](const Expr& v) {
          if (const auto* n = v.as<VarNode>()) {
            below.insert(n);
            if (more) more->insert(n);
          }
        });
      }
    };
    note(first, nullptr);
    note(end, nullptr);
    x.used.assign(scopes_.size(), true);
    x.shifts.assign(scopes_.size(), false);
    x.cf.assign(scopes_.size(), 0);
    x.ce.assign(scopes_.size(), 0);
    bool any_shift = false;
    bool index_range = (first.dtype() == DType::kInt32 || first.dtype() == DType::kInt64) &&
                       (end.dtype() == DType::kInt32 || end.dtype() == DType::kInt64);
    LinearForm ff, fe;
    if (index_range) {
      ff = linear_form(first);
      fe = linear_form(end);
    }
    for (size_t i = scopes_.size(); i-- > 0;) {
      const Scope& sc = scopes_[i];
      if (sc.var.defined()) {
        const auto* v = static_cast<const VarNode*>(sc.var.get());
        x.used[i] = below.count(v) > 0;
        if (index_range && x.used[i] && sc.kind == Scope::kLoop && !in_scopes.count(v)) {
          std::optional<int64_t> a = linear_coef(ff, sc.var), b = linear_coef(fe, sc.var);
          if (a && b) {
            x.shifts[i] = true;
            x.cf[i] = *a;
            x.ce[i] = *b;
            any_shift = true;
          }
        }
      }
      note(sc.a, &in_scopes);
      note(sc.b, &in_scopes);
    }
    x.limit = limit;
    if (any_shift) {
      // Decides the shifting loops at once; anything but "in range" or "gave up" (which the
      // budget, charged as if every iteration ran, reaches exactly when the full run would) is
      // decided again by running every iteration, so a failure reports the iteration it did.
      x.affine = true;
      budget_ = budget;
      witness_.clear();
      Outcome o = exact(0, x, first, end);
      if (!x.undecided && (o == Outcome::kIn || o == Outcome::kGaveUp)) return o;
      x.affine = false;
      x.undecided = false;
      x.spans.clear();
    }
    budget_ = budget;
    witness_.clear();
    return exact(0, x, first, end);
  }

  // With the shifting loops x.spans at their first iteration and the range [fa, eb) there: is
  // the range in [0, limit) at every iteration of them? The range moves by sum(cf * k) and
  // sum(ce * k), so the extremes are at the corners; when they stay inside the range types, no
  // value wrapped, and the evaluated range is that affine function exactly.
  static bool shifted_in(const Exact& x, int64_t fa, int64_t eb, DType tf, DType te) {
    int64_t flo = fa, fhi = fa, elo = eb, ehi = eb, d;
    if (__builtin_sub_overflow(eb, fa, &d)) return false;
    for (const Exact::Span& s : x.spans) {
      int64_t a, b, c, dc;
      if (__builtin_mul_overflow(s.cf, s.last, &a) || __builtin_mul_overflow(s.ce, s.last, &b) ||
          __builtin_sub_overflow(s.ce, s.cf, &dc) || __builtin_mul_overflow(dc, s.last, &c)) {
        return false;
      }
      if (__builtin_add_overflow(a < 0 ? flo : fhi, a, a < 0 ? &flo : &fhi) ||
          __builtin_add_overflow(b < 0 ? elo : ehi, b, b < 0 ? &elo : &ehi) ||
          (c < 0 && __builtin_add_overflow(d, c, &d))) {
        return false;
      }
    }
    return int_fits(flo, tf) && int_fits(fhi, tf) && int_fits(elo, te) && int_fits(ehi, te) &&
           flo >= 0 && ehi <= x.limit && d >= 0;
  }

  // Runs the loops and guards from scopes_[i] on, with x.env binding the enclosing ones. Values are
  // integer evaluations (int_program.h: the constant simplify(substitute(e, env)) folds to) where
  // they decide, else the simplifier's.
  Outcome exact(size_t i, Exact& x, const Expr& first, const Expr& end) {
    if (--budget_ < 0) return Outcome::kGaveUp;
    auto value = [&](const Expr& e) { return simplify(substitute(e, x.env.var_map())); };
    int64_t limit = x.limit;
    if (i == scopes_.size()) {
      std::optional<int64_t> range[2];
      x.range.eval_all(x.env, range);
      const std::optional<int64_t>&fa = range[0], &eb = range[1];
      if (!x.spans.empty()) {
        if (fa && eb && shifted_in(x, *fa, *eb, first.dtype(), end.dtype())) return Outcome::kIn;
        x.undecided = true;
        return Outcome::kOut;
      }
      if (fa && eb && *fa >= 0 && *eb <= limit && *fa <= *eb) return Outcome::kIn;
      VarMap env = x.env.var_map();
      Expr fv = simplify(substitute(first, env)), ev = simplify(substitute(end, env));
      const int64_t* a = as_const_int(fv);
      const int64_t* b = as_const_int(ev);
      if (a && b && *a >= 0 && *b <= limit && *a <= *b) return Outcome::kIn;
      witness_ = str(" (", to_string(fv), "..", to_string(ev), env.empty() ? "" : " with");
      std::string sep = " ";
      for (const auto& [v, val] : env) {
        witness_ += str(sep, v.name(), " = ", to_string(val));
        sep = ", ";
      }
      witness_ += ")";
      return Outcome::kOut;
    }
    const Scope& sc = scopes_[i];
    int slot = x.slot[i];
    // Binds sc.var for the rest of the scopes, then restores what it was.
    auto with = [&](auto bind) {
      IntEnv::Saved saved = x.env.save(slot);
      bind();
      Outcome o = exact(i + 1, x, first, end);
      x.env.restore(slot, saved);
      return o;
    };
    switch (sc.kind) {
      case Scope::kLet: {
        if (std::optional<int64_t> v = x.a[i]->eval(x.env)) {
          DType t = sc.a.dtype();
          return with([&] { x.env.bind(slot, wrap_int(*v, t), t); });
        }
        Expr v = value(sc.a);
        return with([&] { x.env.bind_expr(slot, v); });
      }
      case Scope::kIf: {
        std::optional<int64_t> fast = x.a[i]->eval(x.env);
        Expr cv = fast ? Expr() : value(sc.a);
        const int64_t* c = fast ? &*fast : as_const_int(cv);
        if (c && (*c != 0) != sc.then) return Outcome::kIn;  // this branch does not run here
        return exact(i + 1, x, first, end);
      }
      case Scope::kLoop: {
        std::optional<int64_t> mn = x.a[i]->eval(x.env), ext = x.b[i]->eval(x.env);
        if (!mn || !ext) {
          Expr mv = value(sc.a), xv = value(sc.b);
          if (!as_const_int(mv) || !as_const_int(xv)) return Outcome::kOut;
          mn = *as_const_int(mv);
          ext = *as_const_int(xv);
        }
        DType t = sc.var.dtype();
        if (!x.used[i] && *ext > 1) {
          // Every iteration takes the steps and has the outcome of the first: run it once and
          // charge the budget for the others, as running them would.
          int64_t before = budget_;
          if (!is_int(t) && t != DType::kBool) make_int(*mn, t);
          Outcome o = with([&] { x.env.bind(slot, *mn, t); });
          if (o != Outcome::kIn) return o;
          int64_t steps = before - budget_, rest = *ext - 1;
          if (rest > budget_ / steps) return Outcome::kGaveUp;
          budget_ -= rest * steps;
          return Outcome::kIn;
        }
        if (x.affine && x.shifts[i] && *ext > 1) {
          // Every iteration takes the steps of the first (nothing below but the range uses the
          // variable); the leaf decides them all.
          int64_t before = budget_;
          if (!is_int(t) && t != DType::kBool) make_int(*mn, t);
          x.spans.push_back({x.cf[i], x.ce[i], *ext - 1});
          Outcome o = with([&] { x.env.bind(slot, *mn, t); });
          x.spans.pop_back();
          if (o != Outcome::kIn) return o;
          int64_t steps = before - budget_, rest = *ext - 1;
          if (rest > budget_ / steps) return Outcome::kGaveUp;
          budget_ -= rest * steps;
          return Outcome::kIn;
        }
        for (int64_t v = *mn; v < *mn + *ext; ++v) {
          if (!is_int(t) && t != DType::kBool) make_int(v, t);  // make_int's check, as before
          Outcome o = with([&] { x.env.bind(slot, v, t); });
          if (o != Outcome::kIn) return o;
        }
        return Outcome::kIn;
      }
    }
    return Outcome::kOut;
  }

  // Steps of the exact check tried before bounding the range. A step is one iteration of the
  // loops that are run (loops that only shift the range are decided at once but charged in
  // full), so a few thousand steps cost about what simplifying and bounding a range costs
  // (callgrind on the fixed ResNet-18 sets: raising it from a few hundred to 4096 took verify
  // from 40M to 22M instructions on the npu-v1 set).
  // Which check proves a range never changes the answer: an exact "in range" within this budget
  // is also the full check's.
  static constexpr int64_t kQuickBudget = 4096;
  static constexpr int64_t kExactBudget = 1 << 20;

  const LoweredFunc& f_;
  const Target& target_;
  std::set<const BufferNode*> args_, live_;  // lookup only
  std::vector<std::string> stages_;
  std::vector<Scope> scopes_;
  Box box_;     // the enclosing loop and let variables' ranges, for the box proof
  IntEnv env_;  // the exact check's variable slots (unbound between checks)
  Stmt current_;
  int64_t budget_ = 0;
  std::string witness_;  // the iteration that broke the last exact check
};

}  // namespace

void verify(const LoweredFunc& f, const Target& target) {
  Verifier v(f, target);
  v.run();
}

}  // namespace tessera
