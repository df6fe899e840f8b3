#include "compiler/passes/tensorize.h"

#include <optional>

#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/equal.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/flatten_storage.h"
#include "compiler/te/operation.h"
#include "runtime/base/error.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

namespace {

ExprKind combiner_op(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return ExprKind::kAdd;
    case ReduceKind::kMax:
      return ExprKind::kMax;
    case ReduceKind::kMin:
      return ExprKind::kMin;
    case ReduceKind::kCustom:  // no intrinsic computes a user's reducer; the combiner never matches
      return ExprKind::kOr;
  }
  return ExprKind::kAdd;
}

bool commutative(ExprKind k) {
  return k == ExprKind::kAdd || k == ExprKind::kMul || k == ExprKind::kMin || k == ExprKind::kMax ||
         k == ExprKind::kAnd || k == ExprKind::kOr || k == ExprKind::kEQ || k == ExprKind::kNE;
}

std::string count_text(size_t n, const char* what) {
  static const char* kWords[] = {"no", "one", "two", "three", "four", "five", "six"};
  std::string num = n < 7 ? kWords[n] : std::to_string(n);
  return num + " " + what + (n == 1 ? "" : "s");
}

// What the region became: both forms, and what decides between them.
struct Matched {
  Stmt reset, update;
  Expr out_flat;  // the output's flat index (in every enclosing loop variable)
};

// Proves that one Tensorize region computes its intrinsic (the file comment says what that means)
// and builds its two forms.
class Matcher {
 public:
  explicit Matcher(const TensorizeNode& region)
      : region_(region), in_(*region.intrin), iop_(*in_.op) {}

  Matched match() {
    collect_loops();
    const auto* red = iop_.body.as<ReduceNode>();
    TESSERA_ICHECK(red, "intrinsic ", in_.name, " is not a reduction");
    // The update: buf[idx] = combine(buf[idx], source).
    const auto* add = store_->value.as<BinaryNode>();
    const BufferLoadNode* acc = nullptr;
    Expr source;
    if (add && add->kind == combiner_op(red->combiner)) {
      for (auto [self, other] : {std::pair<Expr, Expr>{add->a, add->b}, {add->b, add->a}}) {
        const auto* l = self.as<BufferLoadNode>();
        if (!acc && l && l->buffer == store_->buffer && same_indices(l->indices)) {
          acc = l;
          source = other;
        }
      }
    }
    if (!acc) {
      fail(str("the body is not a ", reduce_kind_name(red->combiner), " accumulated into '",
               store_->buffer->name, "'"));
    }
    source_ = source;
    out_flat_ = simplify(flat_index(store_->buffer, store_->indices));
    pair_loops(red->axis);
    if (store_->buffer->dtype != iop_.dtype) {
      fail(str("wrong dtype: the stage computes ", dtype_name(store_->buffer->dtype),
               ", the intrinsic ", dtype_name(iop_.dtype)));
    }
    inputs_.assign(iop_.inputs.size(), Binding());
    if (std::string why = compare(source_, red->source); !why.empty()) fail(why);
    for (size_t k = 0; k < inputs_.size(); ++k) {
      TESSERA_ICHECK(inputs_[k].buffer, "intrinsic ", in_.name, " input ", k, " is never read");
    }
    // The output moves with the data-parallel loops as the intrinsic's output does.
    std::vector<Expr> out_axes;
    for (const IterVar& iv : iop_.axis) out_axes.push_back(iv->var);
    check_strides(str("the output '", store_->buffer->name, "'"), out_flat_,
                  simplify(flat_index(iop_.shape, out_axes)));
    check_scope(store_->buffer, in_.output_scope, "the output", "writes it in");
    for (size_t k = 0; k < inputs_.size(); ++k) {
      check_scope(inputs_[k].buffer, in_.input_scopes[k], "the input", "reads it from");
    }
    IntrinOperand out{store_->buffer,
                      row(out_flat_, str("the output '", store_->buffer->name, "'"))};
    std::vector<IntrinOperand> ins;
    for (const Binding& b : inputs_) {
      ins.push_back({b.buffer, row(b.flat, str("the input '", b.buffer->name, "'"))});
    }
    return Matched{in_.emit(true, out, ins), in_.emit(false, out, ins), out_flat_};
  }

 private:
  struct Binding {
    Buffer buffer;
    Expr flat;  // its flat index in the region's loop variables
  };

  [[noreturn]] void fail(const std::string& why) const {
    std::string body = source_.defined() ? "sum(" + to_string(simplify(source_)) + ")"
                                         : to_string(region_.body, 0);
    body += " over loops";
    for (const ForNode* f : loops_) body += " " + f->var.name() + "[" + to_string(f->extent) + "]";
    throw ScheduleError(str("stage '", region_.stage, "': tensorize at axis '", region_.axis,
                            "' with '", in_.name, "': ", why, "\n  loop body: ", body,
                            "\n  intrinsic: ", in_.to_string()));
  }

  bool same_indices(const std::vector<Expr>& idx) const {
    if (idx.size() != store_->indices.size()) return false;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (!structural_equal(idx[d], store_->indices[d])) return false;
    }
    return true;
  }

  // The perfect nest under the region and its update.
  void collect_loops() {
    Stmt s = region_.body;
    while (const auto* f = s.as<ForNode>()) {
      if (!as_const_int(f->extent)) fail(str("loop '", f->var.name(), "' has no constant extent"));
      loops_.push_back(f);
      s = f->body;
    }
    if (const auto* g = s.as<IfThenElseNode>()) {
      // For the message: the accumulated value under the guard, when it is one.
      Stmt in = g->then_case;
      while (const auto* f = in.as<ForNode>()) in = f->body;
      if (const auto* st = in.as<BufferStoreNode>()) {
        if (const auto* add = st->value.as<BinaryNode>()) source_ = add->b;
      }
      fail(str("a guard ", to_string(simplify(g->cond)),
               " sits inside the tensorized loops: a split under the axis that does not divide "
               "its extent; the intrinsic covers whole loops"));
    }
    store_ = s.as<BufferStoreNode>();
    if (!store_) {
      fail(
          "the loops under the axis hold more than the update (a stage computed inside them?); "
          "compute other stages outside the tensorized loops");
    }
  }

  // Reduction loops are those the output index does not use; each kind pairs in order with the
  // intrinsic's axes of that kind.
  void pair_loops(const std::vector<IterVar>& reduce_axes) {
    std::vector<const ForNode*> data, reduce;
    for (const ForNode* f : loops_) {
      std::optional<int64_t> c = linear_coef(out_flat_, f->var);
      if (!c) fail(str("the output index is not affine in loop '", f->var.name(), "'"));
      (*c == 0 ? reduce : data).push_back(f);
    }
    const auto& axes = iop_.axis;
    auto names = [](const std::vector<IterVar>& v) {
      std::string s;
      for (const IterVar& iv : v) s += (s.empty() ? "" : ", ") + iv->var.name();
      return s;
    };
    if (loops_.size() != axes.size() + reduce_axes.size()) {
      std::string all =
          names(axes) + (axes.empty() || reduce_axes.empty() ? "" : ", ") + names(reduce_axes);
      fail(str("the intrinsic covers ", axes.size() + reduce_axes.size(), " loops (", all, ") but ",
               loops_.size(), " loop(s) are under the axis"));
    }
    if (data.size() != axes.size() || reduce.size() != reduce_axes.size()) {
      auto with = [&](size_t n, const char* what, const std::vector<IterVar>& v) {
        return count_text(n, what) + (v.empty() ? "" : " (" + names(v) + ")");
      };
      fail(str(reduce.size() < reduce_axes.size() ? "missing reduction: " : "",
               "the loops under the axis must be ", with(axes.size(), "data-parallel loop", axes),
               " and ", with(reduce_axes.size(), "reduction loop", reduce_axes)));
    }
    auto pair = [&](const std::vector<const ForNode*>& loops, const std::vector<IterVar>& ivs) {
      for (size_t k = 0; k < loops.size(); ++k) {
        int64_t e = *as_const_int(loops[k]->extent);
        if (e != ivs[k]->extent) {
          fail(str("loop '", loops[k]->var.name(), "' has extent ", e, "; the intrinsic's loop '",
                   ivs[k]->var.name(), "' has extent ", ivs[k]->extent));
        }
        pairs_.push_back({loops[k]->var, ivs[k]->var});
      }
    };
    pair(data, axes);
    pair(reduce, reduce_axes);
  }

  // Compares the loop body `e` with the intrinsic's `want`; returns why they differ ("" if equal).
  std::string compare(const Expr& e, const Expr& want) {
    auto differ = [&] {
      return str("the body computes ", to_string(e), " where the intrinsic computes ",
                 to_string(want));
    };
    if (const auto* p = want.as<ProducerLoadNode>()) return compare_read(e, *p);
    if (e.dtype() != want.dtype() || e.kind() != want.kind()) return differ();
    switch (want.kind()) {
      case ExprKind::kCast:
        return compare(e.as<CastNode>()->value, want.as<CastNode>()->value);
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
        return structural_equal(e, want) ? "" : differ();
      default:
        break;
    }
    const auto* b = want.as<BinaryNode>();
    TESSERA_ICHECK(b, "tensorize: the computation of '", in_.name, "' uses ", to_string(want),
                   ", which the matcher does not compare");
    const auto* x = e.as<BinaryNode>();
    std::vector<Binding> saved = inputs_;
    std::string why = compare(x->a, b->a);
    if (why.empty()) why = compare(x->b, b->b);
    if (why.empty() || !commutative(b->kind)) return why;
    std::vector<Binding> first = inputs_;
    inputs_ = saved;
    std::string swapped = compare(x->a, b->b);
    if (swapped.empty()) swapped = compare(x->b, b->a);
    if (swapped.empty()) return "";
    inputs_ = first;
    return why;
  }

  // A read of intrinsic input `p`: one buffer of its dtype, moving as p's dense index does.
  std::string compare_read(const Expr& e, const ProducerLoadNode& p) {
    size_t k = 0;
    while (k < iop_.inputs.size() && iop_.inputs[k] != p.op) ++k;
    TESSERA_ICHECK(k < iop_.inputs.size(), "intrinsic ", in_.name, " reads a non-input");
    const auto* l = e.as<BufferLoadNode>();
    if (!l) {
      return str("the body computes ", to_string(e), " where the intrinsic reads its input '",
                 p.op->name, "'");
    }
    if (l->buffer->dtype != p.dtype) {
      return str("wrong dtype: '", l->buffer->name, "' is ", dtype_name(l->buffer->dtype),
                 ", the intrinsic's input '", p.op->name, "' is ", dtype_name(p.dtype));
    }
    if (inputs_[k].buffer && inputs_[k].buffer != l->buffer) {
      return str("the intrinsic's input '", p.op->name, "' is read from both '",
                 inputs_[k].buffer->name, "' and '", l->buffer->name, "'");
    }
    Expr flat = simplify(flat_index(l->buffer, l->indices));
    std::string why =
        stride_mismatch(str("'", l->buffer->name, "' (the intrinsic's '", p.op->name, "')"), flat,
                        simplify(flat_index(p.op->shape, p.indices)));
    if (!why.empty()) return why;
    inputs_[k] = Binding{l->buffer, flat};
    return "";
  }

  // Does `flat` move with every region loop as `want` (the intrinsic's dense index) moves with
  // the paired axis?
  std::string stride_mismatch(const std::string& what, const Expr& flat, const Expr& want) const {
    std::string got, need, loops;
    for (const auto& [loop, axis] : pairs_) {
      std::optional<int64_t> c = linear_coef(flat, loop), w = linear_coef(want, axis);
      TESSERA_ICHECK(w, "intrinsic ", in_.name, ": index not affine in ", axis.name());
      if (!c) return str(what, " is not read affinely in loop '", loop.name(), "'");
      if (*c == *w) continue;
      bool first = got.empty();
      got += str(first ? "" : " and ", *c, first ? " element(s)" : "", " per step of '",
                 loop.name(), "'");
      need += str(first ? "" : " and ", *w);
    }
    if (got.empty()) return "";
    return str("wrong stride: ", what, " moves by ", got, ", the intrinsic needs ", need);
  }
  void check_strides(const std::string& what, const Expr& flat, const Expr& want) const {
    if (std::string why = stride_mismatch(what, flat, want); !why.empty()) fail(why);
  }

  void check_scope(const Buffer& b, const std::string& scope, const char* what,
                   const char* verb) const {
    if (b->scope != scope) {
      fail(str(what, " '", b->name, "' is in scope '", b->scope, "'; the intrinsic ", verb, " '",
               scope, "' (use cache_read/cache_write/set_scope)"));
    }
  }

  // The first on-chip row an operand touches: its flat index with the region's loops at 0, which
  // must be a whole number of rows.
  Expr row(const Expr& flat, const std::string& what) const {
    VarMap zero;
    for (const ForNode* f : loops_) zero[f->var] = f->min;
    Expr base = simplify(substitute(flat, zero));
    LinearForm form = linear_form(base);
    bool aligned = form.constant % in_.row_elems == 0;
    for (const LinearTerm& t : form.terms) aligned = aligned && t.coef % in_.row_elems == 0;
    if (!aligned) {
      fail(str(what, " does not start on a ", in_.row_elems, "-element row (flat index ",
               to_string(base), ")"));
    }
    return simplify(base / make_int(in_.row_elems));
  }

  const TensorizeNode& region_;
  const TensorIntrinNode& in_;
  const OperationNode& iop_;
  std::vector<const ForNode*> loops_;
  const BufferStoreNode* store_ = nullptr;
  Expr source_, out_flat_;
  std::vector<std::pair<Var, Var>> pairs_;  // region loop variable -> intrinsic axis
  std::vector<Binding> inputs_;             // per intrinsic input
};

// Replaces one statement (by identity) everywhere below.
class Replace : public IRMutator {
 public:
  Replace(const StmtNode* target, Stmt with) : target_(target), with_(std::move(with)) {}
  using IRMutator::mutate;
  Stmt mutate(const Stmt& s) override { return s.get() == target_ ? with_ : IRMutator::mutate(s); }

 private:
  const StmtNode* target_;
  Stmt with_;
};
Stmt replace(const Stmt& in, const StmtNode* target, const Stmt& with) {
  Replace r(target, with);
  return r.mutate(in);
}

// Drops (or only unwraps) the stage's "reduce_init" nests, not looking into other stages.
class StripInit : public IRMutator {
 public:
  explicit StripInit(bool drop) : drop_(drop) {}
  using IRMutator::mutate;

 protected:
  Stmt mutate_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    if (op->key == "produce") return s;
    if (op->key == "reduce_init") return drop_ ? Stmt() : op->body;
    return IRMutator::mutate_AttrStmt(op, s);
  }
  Stmt mutate_Seq(const SeqNode* op, const Stmt& s) override {
    bool changed = false;
    std::vector<Stmt> out;
    for (const Stmt& x : op->stmts) {
      Stmt m = mutate(x);
      changed |= !m.same_as(x);
      out.push_back(m);
    }
    return changed ? make_seq(out) : s;
  }

 private:
  bool drop_;
};

// The first Tensorize region in a stage's body (not in other stages' produce blocks) and the
// stage's loops around it, outermost first.
class FindRegion : public IRVisitor {
 public:
  using IRVisitor::visit;
  const TensorizeNode* region = nullptr;
  std::vector<const ForNode*> loops;

 protected:
  void visit_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    if (op->key != "produce" && !region) IRVisitor::visit_AttrStmt(op, s);
  }
  void visit_For(const ForNode* op, const Stmt& s) override {
    if (region) return;
    stack_.push_back(op);
    IRVisitor::visit_For(op, s);
    stack_.pop_back();
  }
  void visit_Tensorize(const TensorizeNode* op, const Stmt&) override {
    if (region) return;
    region = op;
    loops = stack_;
  }

 private:
  std::vector<const ForNode*> stack_;
};

class Tensorizer : public IRMutator {
 public:
  explicit Tensorizer(const Target& target) : target_(target) {}
  using IRMutator::mutate;

 protected:
  Stmt mutate_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    if (op->key != "produce") return IRMutator::mutate_AttrStmt(op, s);
    Stmt body = op->body;
    for (const TensorizeNode* done = nullptr;;) {
      FindRegion find;
      find.visit(body);
      if (!find.region) break;
      TESSERA_ICHECK(find.region != done, "tensorize: the region of stage '", find.region->stage,
                     "' was not replaced");
      done = find.region;
      body = rewrite(body, *find.region, find.loops);
    }
    body = mutate(body);  // other stages' produce blocks inside
    return body.same_as(op->body) ? s : make_attr(op->key, op->value, body);
  }
  Stmt mutate_Tensorize(const TensorizeNode* op, const Stmt&) override {
    throw InternalError(
        str("tensorize: the region of stage '", op->stage, "' lies outside its produce block"));
  }

 private:
  void check_target(const TensorizeNode& r) const {
    if (!target_.is_npu()) {
      throw TargetError(str("stage '", r.stage, "': tensorize with '", r.intrin->name,
                            "' needs an NPU target; target '", target_.name(),
                            "' has no MAC array (build for an NPU, or drop the tensorize)"));
    }
    const npu::Target& t = target_.npu();
    if (r.intrin->row_elems != t.block()) {
      throw TargetError(str("stage '", r.stage, "': tensorize with '", r.intrin->name,
                            "', declared for a target whose block (MAC-array side) is ",
                            r.intrin->row_elems, ", but target '", t.name, "' has block ",
                            t.block(), " (a ", t.mac_out, "x", t.mac_in,
                            " array); declare the intrinsic for this target (npu_gemm_intrin("
                            "target), npu_vmac_intrin(target))"));
    }
  }

  Stmt rewrite(const Stmt& body, const TensorizeNode& region,
               const std::vector<const ForNode*>& loops) const {
    check_target(region);
    Matched m = Matcher(region).match();
    // The stage's reduction loops outside the region: those the output index does not use.
    std::vector<size_t> reduce;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (linear_coef(m.out_flat, loops[i]->var) == int64_t{0}) reduce.push_back(i);
    }
    bool use_reset = true;
    for (size_t i : reduce) use_reset = use_reset && i + 2 < loops.size();
    if (!use_reset) return replace(StripInit(false).mutate(body), &region, m.update);
    Stmt out = StripInit(true).mutate(body);
    if (reduce.empty()) return replace(out, &region, m.reset);
    // The first iteration of every outer reduction loop resets; the choice is made just inside
    // the last of those loops, so that the loops below stay a perfect nest around the intrinsic.
    Expr first;
    for (size_t i : reduce) {
      Expr at_start = make_binary(ExprKind::kEQ, loops[i]->var, loops[i]->min);
      first = first.defined() ? (first && at_start) : at_start;
    }
    const ForNode* last = loops[reduce.back()];
    Stmt split = make_if(first, replace(last->body, &region, m.reset),
                         replace(last->body, &region, m.update));
    return replace(out, last, make_for(last->var, last->min, last->extent, last->for_kind, split));
  }

  const Target& target_;
};

}  // namespace

Stmt tensorize(const Stmt& body, const Target& target) {
  Tensorizer t(target);
  return t.mutate(body);
}

}  // namespace tessera
