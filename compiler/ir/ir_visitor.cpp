#include "compiler/ir/ir_visitor.h"

#include "runtime/base/error.h"

namespace tessera {

void IRVisitor::visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e.kind()) {
#define TESSERA_EXPR_KIND(kind, node) \
  case ExprKind::k##kind:             \
    return visit_##kind(static_cast<const node*>(e.get()), e);
#include "compiler/ir/ir.def"
  }
}
void IRVisitor::visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
#define TESSERA_STMT_KIND(kind, node) \
  case StmtKind::k##kind:             \
    return visit_##kind(static_cast<const node*>(s.get()), s);
#include "compiler/ir/ir.def"
  }
}

void IRVisitor::visit_IntImm(const IntImmNode*, const Expr&) {}
void IRVisitor::visit_FloatImm(const FloatImmNode*, const Expr&) {}
void IRVisitor::visit_Var(const VarNode*, const Expr&) {}
void IRVisitor::visit_Cast(const CastNode* op, const Expr&) { visit(op->value); }
#define TESSERA_BINARY_VISIT(kind)                                  \
  void IRVisitor::visit_##kind(const BinaryNode* op, const Expr&) { \
    visit(op->a);                                                   \
    visit(op->b);                                                   \
  }
TESSERA_BINARY_VISIT(Add)
TESSERA_BINARY_VISIT(Sub)
TESSERA_BINARY_VISIT(Mul)
TESSERA_BINARY_VISIT(Div) TESSERA_BINARY_VISIT(Mod) TESSERA_BINARY_VISIT(Min)
    TESSERA_BINARY_VISIT(Max) TESSERA_BINARY_VISIT(EQ) TESSERA_BINARY_VISIT(NE)
        TESSERA_BINARY_VISIT(LT) TESSERA_BINARY_VISIT(LE) TESSERA_BINARY_VISIT(GT)
            TESSERA_BINARY_VISIT(GE) TESSERA_BINARY_VISIT(And) TESSERA_BINARY_VISIT(Or)
#undef TESSERA_BINARY_VISIT
                void IRVisitor::visit_Not(const NotNode* op, const Expr&) {
  visit(op->a);
}
void IRVisitor::visit_Select(const SelectNode* op, const Expr&) {
  visit(op->cond);
  visit(op->true_value);
  visit(op->false_value);
}
void IRVisitor::visit_Call(const CallNode* op, const Expr&) {
  for (const Expr& a : op->args) visit(a);
}
void IRVisitor::visit_ProducerLoad(const ProducerLoadNode* op, const Expr&) {
  for (const Expr& i : op->indices) visit(i);
}
void IRVisitor::visit_BufferLoad(const BufferLoadNode* op, const Expr&) {
  for (const Expr& i : op->indices) visit(i);
}
void IRVisitor::visit_Reduce(const ReduceNode* op, const Expr&) {
  visit(op->source);
  visit(op->condition);
  visit(op->init);
}
void IRVisitor::visit_For(const ForNode* op, const Stmt&) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit_BufferStore(const BufferStoreNode* op, const Stmt&) {
  for (const Expr& i : op->indices) visit(i);
  visit(op->value);
}
void IRVisitor::visit_Allocate(const AllocateNode* op, const Stmt&) { visit(op->body); }
void IRVisitor::visit_Seq(const SeqNode* op, const Stmt&) {
  for (const Stmt& s : op->stmts) visit(s);
}
void IRVisitor::visit_IfThenElse(const IfThenElseNode* op, const Stmt&) {
  visit(op->cond);
  visit(op->then_case);
  visit(op->else_case);
}
void IRVisitor::visit_LetStmt(const LetStmtNode* op, const Stmt&) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit_AttrStmt(const AttrStmtNode* op, const Stmt&) { visit(op->body); }
void IRVisitor::visit_Tensorize(const TensorizeNode* op, const Stmt&) { visit(op->body); }
void IRVisitor::visit_NpuDma(const NpuDmaNode* op, const Stmt&) {
  for (const Expr* e : {&op->chip_row, &op->ddr_offset, &op->rows, &op->cols, &op->pad_top,
                        &op->pad_bottom, &op->pad_left, &op->pad_right}) {
    visit(*e);
  }
}
void IRVisitor::visit_NpuGemm(const NpuGemmNode* op, const Stmt&) {
  visit(op->acc_row);
  visit(op->inp_row);
  visit(op->wgt_row);
}
void IRVisitor::visit_NpuVector(const NpuVectorNode* op, const Stmt&) {
  visit(op->dst_row);
  visit(op->src_row);
  visit(op->src2_row);
}
void IRVisitor::visit_ExternCall(const ExternCallNode* op, const Stmt&) {
  for (const ExternCallArg& a : op->args) visit(a.value);
}

// ---- mutator ------------------------------------------------------------------------------------

Expr IRMutator::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
#define TESSERA_EXPR_KIND(kind, node) \
  case ExprKind::k##kind:             \
    return mutate_##kind(static_cast<const node*>(e.get()), e);
#include "compiler/ir/ir.def"
  }
  return e;
}
Stmt IRMutator::mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s.kind()) {
#define TESSERA_STMT_KIND(kind, node) \
  case StmtKind::k##kind:             \
    return mutate_##kind(static_cast<const node*>(s.get()), s);
#include "compiler/ir/ir.def"
  }
  return s;
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v, bool* changed) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const Expr& e : v) {
    out.push_back(mutate(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

Expr IRMutator::mutate_IntImm(const IntImmNode*, const Expr& e) { return e; }
Expr IRMutator::mutate_FloatImm(const FloatImmNode*, const Expr& e) { return e; }
Expr IRMutator::mutate_Var(const VarNode*, const Expr& e) { return e; }
Expr IRMutator::mutate_Cast(const CastNode* op, const Expr& e) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? e : make_cast(op->dtype, v);
}
#define TESSERA_BINARY_MUTATE(kind)                                    \
  Expr IRMutator::mutate_##kind(const BinaryNode* op, const Expr& e) { \
    Expr a = mutate(op->a), b = mutate(op->b);                         \
    if (a.same_as(op->a) && b.same_as(op->b)) return e;                \
    return make_binary(ExprKind::k##kind, a, b);                       \
  }
TESSERA_BINARY_MUTATE(Add)
TESSERA_BINARY_MUTATE(Sub)
TESSERA_BINARY_MUTATE(Mul)
TESSERA_BINARY_MUTATE(Div) TESSERA_BINARY_MUTATE(Mod) TESSERA_BINARY_MUTATE(Min)
    TESSERA_BINARY_MUTATE(Max) TESSERA_BINARY_MUTATE(EQ) TESSERA_BINARY_MUTATE(NE)
        TESSERA_BINARY_MUTATE(LT) TESSERA_BINARY_MUTATE(LE) TESSERA_BINARY_MUTATE(GT)
            TESSERA_BINARY_MUTATE(GE) TESSERA_BINARY_MUTATE(And) TESSERA_BINARY_MUTATE(Or)
#undef TESSERA_BINARY_MUTATE
                Expr IRMutator::mutate_Not(const NotNode* op, const Expr& e) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? e : make_not(a);
}
Expr IRMutator::mutate_Select(const SelectNode* op, const Expr& e) {
  Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
  return make_select(c, t, f);
}
Expr IRMutator::mutate_Call(const CallNode* op, const Expr& e) {
  bool changed = false;
  auto args = mutate_all(op->args, &changed);
  return changed ? make_call(op->dtype, op->name, args) : e;
}
Expr IRMutator::mutate_ProducerLoad(const ProducerLoadNode* op, const Expr& e) {
  bool changed = false;
  auto idx = mutate_all(op->indices, &changed);
  if (!changed) return e;
  return Expr(std::make_shared<ProducerLoadNode>(op->dtype, op->op, idx));
}
Expr IRMutator::mutate_BufferLoad(const BufferLoadNode* op, const Expr& e) {
  bool changed = false;
  auto idx = mutate_all(op->indices, &changed);
  return changed ? make_buffer_load(op->buffer, idx) : e;
}
Expr IRMutator::mutate_Reduce(const ReduceNode* op, const Expr& e) {
  Expr s = mutate(op->source), c = mutate(op->condition), i = mutate(op->init);
  if (s.same_as(op->source) && c.same_as(op->condition) && i.same_as(op->init)) return e;
  return make_reduce(op->combiner, s, op->axis, c, i, op->reducer, op->value_index);
}
Stmt IRMutator::mutate_For(const ForNode* op, const Stmt& s) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return s;
  return make_for(op->var, mn, ext, op->for_kind, body);
}
Stmt IRMutator::mutate_BufferStore(const BufferStoreNode* op, const Stmt& s) {
  bool changed = false;
  auto idx = mutate_all(op->indices, &changed);
  Expr v = mutate(op->value);
  if (!changed && v.same_as(op->value)) return s;
  return make_store(op->buffer, idx, v);
}
Stmt IRMutator::mutate_Allocate(const AllocateNode* op, const Stmt& s) {
  Stmt body = mutate(op->body);
  return body.same_as(op->body) ? s : make_allocate(op->buffer, body);
}
Stmt IRMutator::mutate_Seq(const SeqNode* op, const Stmt& s) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& x : op->stmts) {
    out.push_back(mutate(x));
    if (!out.back().same_as(x)) changed = true;
  }
  return changed ? make_seq(out) : s;
}
Stmt IRMutator::mutate_IfThenElse(const IfThenElseNode* op, const Stmt& s) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), f = mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
  return make_if(c, t, f);
}
Stmt IRMutator::mutate_LetStmt(const LetStmtNode* op, const Stmt& s) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return s;
  return make_let(op->var, v, b);
}
Stmt IRMutator::mutate_AttrStmt(const AttrStmtNode* op, const Stmt& s) {
  Stmt b = mutate(op->body);
  return b.same_as(op->body) ? s : make_attr(op->key, op->value, b);
}

Stmt IRMutator::mutate_Tensorize(const TensorizeNode* op, const Stmt& s) {
  Stmt b = mutate(op->body);
  return b.same_as(op->body) ? s : make_tensorize(op->intrin, op->stage, op->axis, b);
}

Stmt IRMutator::mutate_NpuDma(const NpuDmaNode* op, const Stmt& s) {
  Expr f[8] = {op->chip_row, op->ddr_offset, op->rows,     op->cols,
               op->pad_top,  op->pad_bottom, op->pad_left, op->pad_right};
  bool changed = false;
  for (Expr& e : f) {
    Expr m = mutate(e);
    changed |= !m.same_as(e);
    e = m;
  }
  if (!changed) return s;
  return make_npu_dma(op->load, op->chip, f[0], op->chip_row_stride, op->ddr, f[1],
                      op->ddr_row_stride, f[2], f[3], f[4], f[5], f[6], f[7]);
}
Stmt IRMutator::mutate_NpuGemm(const NpuGemmNode* op, const Stmt& s) {
  Expr a = mutate(op->acc_row), i = mutate(op->inp_row), w = mutate(op->wgt_row);
  if (a.same_as(op->acc_row) && i.same_as(op->inp_row) && w.same_as(op->wgt_row)) return s;
  return make_npu_gemm(op->reset, op->acc, a, op->inp, i, op->wgt, w);
}
Stmt IRMutator::mutate_NpuVector(const NpuVectorNode* op, const Stmt& s) {
  Expr d = mutate(op->dst_row), x = mutate(op->src_row), y = mutate(op->src2_row);
  if (d.same_as(op->dst_row) && x.same_as(op->src_row) && y.same_as(op->src2_row)) return s;
  return make_npu_vector(op->op, op->dst, d, op->src, x, op->src2, y,
                         NpuVectorImm{op->imm, op->imm_hi, op->shift, op->zero_point});
}
Stmt IRMutator::mutate_ExternCall(const ExternCallNode* op, const Stmt& s) {
  std::vector<ExternCallArg> args = op->args;
  bool changed = false;
  for (ExternCallArg& a : args) {
    Expr m = mutate(a.value);
    changed |= !m.same_as(a.value);
    a.value = m;
  }
  return changed ? make_extern_call(op->func, op->ret, std::move(args), op->stage) : s;
}

namespace {
class FnVisitor : public IRVisitor {
 public:
  explicit FnVisitor(const std::function<void(const Expr&)>& f) : f_(f) {}
  using IRVisitor::visit;
  void visit(const Expr& e) override {
    if (!e.defined()) return;
    IRVisitor::visit(e);
    f_(e);
  }

 private:
  const std::function<void(const Expr&)>& f_;
};
}  // namespace

void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& f) {
  FnVisitor v(f);
  v.visit(e);
}

}  // namespace tessera
