#include "codegen/npu/select_insns.h"

#include <functional>

#include "codegen/npu/fold_loops.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/eval_int.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/npu_rules.h"
#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"

namespace tessera {
namespace {

using npu::Insn;
using npu::Mem;

constexpr int64_t kMaxU16 = 65535;
constexpr int64_t kMaxU32 = 4294967295LL;

Space space_of(Mem m) { return m == Mem::kSram ? Space::kSram : Space::kAcc; }

// Buffers that a statement writes, not looking into nested "produce" blocks (theirs).
void collect_writes(const Stmt& s, std::vector<const BufferNode*>* out) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::kFor:
      collect_writes(s.as<ForNode>()->body, out);
      break;
    case StmtKind::kSeq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) collect_writes(x, out);
      break;
    case StmtKind::kIfThenElse:
      collect_writes(s.as<IfThenElseNode>()->then_case, out);
      collect_writes(s.as<IfThenElseNode>()->else_case, out);
      break;
    case StmtKind::kLetStmt:
      collect_writes(s.as<LetStmtNode>()->body, out);
      break;
    case StmtKind::kAllocate:
      collect_writes(s.as<AllocateNode>()->body, out);
      break;
    case StmtKind::kAttrStmt:
      if (s.as<AttrStmtNode>()->key != "produce") collect_writes(s.as<AttrStmtNode>()->body, out);
      break;
    case StmtKind::kNpuDma:
      if (s.as<NpuDmaNode>()->load) out->push_back(s.as<NpuDmaNode>()->chip.get());
      break;
    case StmtKind::kNpuGemm:
      out->push_back(s.as<NpuGemmNode>()->acc.get());
      break;
    case StmtKind::kNpuVector:
      out->push_back(s.as<NpuVectorNode>()->dst.get());
      break;
    default:
      break;
  }
}

class Selector {
 public:
  Selector(const OnchipPlan& plan, const DdrLayout& ddr, const npu::Target& t)
      : plan_(plan), ddr_(ddr), target_(t) {}

  void visit(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::kFor:
        visit_for(s);
        break;
      case StmtKind::kSeq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) visit(x);
        break;
      case StmtKind::kAllocate: {
        const auto* op = s.as<AllocateNode>();
        auto it = plan_.buffers.find(op);
        TESSERA_ICHECK(it != plan_.buffers.end(), "allocation missing for ", op->buffer->name);
        const OnchipBuffer* saved = live_[op->buffer.get()];
        live_[op->buffer.get()] = &it->second;
        visit(op->body);
        live_[op->buffer.get()] = saved;
        break;
      }
      case StmtKind::kAttrStmt:
        visit_attr(s.as<AttrStmtNode>());
        break;
      case StmtKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        std::optional<int64_t> v = eval_int(op->value, env_);
        env_[op->var] = v ? make_wrapped_int(*v, op->value.dtype())
                          : simplify(substitute(op->value, env_));
        visit(op->body);
        env_.erase(op->var);
        break;
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (std::optional<int64_t> v = eval_int(op->cond, env_)) {
          visit(*v ? op->then_case : op->else_case);
          break;
        }
        Expr c = simplify(substitute(op->cond, env_));
        const int64_t* v = as_const_int(c);
        if (!v) {
          throw LowerError(str("stage '", stage(), "': the condition ", to_string(op->cond),
                               " is not decided once the loops are unrolled (it became ",
                               to_string(c),
                               "); NPU code needs conditions on loop variables "
                               "only"));
        }
        visit(*v ? op->then_case : op->else_case);
        break;
      }
      case StmtKind::kNpuDma:
        emit_dma(s.as<NpuDmaNode>());
        break;
      case StmtKind::kNpuGemm:
      case StmtKind::kNpuVector:
        emit_compute(s, {});
        break;
      case StmtKind::kBufferStore:
        throw LowerError(
            str("stage '", stage(), "': ", elementwise_store_problem(s.as<BufferStoreNode>())));
      case StmtKind::kTensorize:
        throw LowerError(str("stage '", stage(),
                             "': a tensorize region reached code generation; "
                             "lower() replaces it (run the tensorize pass)"));
    }
  }

  std::vector<SelectedInsn> out;

 private:
  std::string stage() const {
    return stages_.empty() ? std::string("<top level>") : stages_.back();
  }

  // Loop bounds and DMA fields: integer evaluation when it decides (the hot path, the same value
  // as the simplifier's), else the simplifier, which also words the error.
  int64_t const_value(const Expr& e, const char* what) {
    if (std::optional<int64_t> v = eval_int(e, env_)) return *v;
    return const_value_slow(e, what);
  }
  int64_t loop_bound(const Expr& e, const Var& var, const char* which) {
    if (std::optional<int64_t> v = eval_int(e, env_)) return *v;
    return const_value_slow(e, str("the ", which, " of loop '", var.name(), "'"));
  }
  int64_t const_value_slow(const Expr& e, const std::string& what) {
    Expr v = simplify(substitute(e, env_));
    const int64_t* c = as_const_int(v);
    if (!c) {
      throw LowerError(str("stage '", stage(), "': ", what, " ", to_string(e),
                           " is not a constant once the loops are unrolled (it became ",
                           to_string(v), ")"));
    }
    return *c;
  }

  void visit_attr(const AttrStmtNode* op) {
    if (op->key != "produce") return visit(op->body);
    auto it = writes_.find(op);
    if (it == writes_.end()) {
      std::vector<const BufferNode*> w;
      collect_writes(op->body, &w);
      it = writes_.emplace(op, w).first;
    }
    // A new execution of the producer: switch each double-buffered output to its other copy
    // (once per buffer, however many statements write it).
    std::vector<const BufferNode*> done;
    for (const BufferNode* b : it->second) {
      const OnchipBuffer* a = live_[b];
      if (!a || !a->double_buffered || std::find(done.begin(), done.end(), b) != done.end())
        continue;
      done.push_back(b);
      auto p = phase_.find(b);
      phase_[b] = p == phase_.end() ? 0 : (p->second + 1) % 2;
    }
    stages_.push_back(op->value);
    visit(op->body);
    stages_.pop_back();
  }

  void visit_for(const Stmt& s) {
    const auto* op = s.as<ForNode>();
    // The perfect chain below this loop.
    std::vector<FoldLoop> chain;
    Stmt cur = s;
    while (const auto* f = cur.as<ForNode>()) {
      int64_t mn = loop_bound(f->min, f->var, "min");
      int64_t ext = loop_bound(f->extent, f->var, "extent");
      chain.push_back({f->var, mn, ext});
      cur = f->body;
      // Only the first loop's bounds may use enclosing variables safely here; inner bounds that
      // use chain variables are not constant and end the chain.
      if (cur.as<ForNode>()) {
        const auto* inner = cur.as<ForNode>();
        bool uses = false;
        for (const FoldLoop& l : chain)
          uses = uses || uses_var(inner->min, l.var) || uses_var(inner->extent, l.var);
        if (uses) break;
      }
    }
    for (const FoldLoop& l : chain)
      if (l.extent <= 0) return;  // a perfect nest with an empty loop does nothing
    if (cur.as<NpuGemmNode>() || cur.as<NpuVectorNode>()) {
      std::vector<LinearForm> forms;
      std::vector<size_t> pick = choose_fold(chain, cur, env_, &row_forms_, &forms);
      if (!pick.empty()) {
        // Each instruction's addresses then come from these forms by integer arithmetic.
        std::vector<Expr> rows = leaf_rows(cur);
        chain_forms_.clear();
        for (size_t k = 0; k < rows.size(); ++k) chain_forms_.push_back({rows[k].get(), forms[k]});
        unroll_chain(chain, pick, 0, cur);
        chain_forms_.clear();
        return;
      }
    }
    FoldLoop l = chain[0];
    for (int64_t v = l.min; v < l.min + l.extent; ++v) {
      env_[l.var] = make_int(v, l.var.dtype());
      visit(op->body);
    }
    env_.erase(l.var);
  }

  // Unrolls the chain's loops that are not in `pick` (in order) and emits the leaf with the
  // picked ones folded.
  void unroll_chain(const std::vector<FoldLoop>& chain, const std::vector<size_t>& pick, size_t i,
                    const Stmt& leaf) {
    if (i == chain.size()) {
      std::vector<FoldLoop> folded;
      for (size_t k : pick) folded.push_back(chain[k]);
      return emit_compute(leaf, folded);
    }
    if (std::find(pick.begin(), pick.end(), i) != pick.end())
      return unroll_chain(chain, pick, i + 1, leaf);
    const FoldLoop& l = chain[i];
    for (int64_t v = l.min; v < l.min + l.extent; ++v) {
      env_[l.var] = make_int(v, l.var.dtype());
      unroll_chain(chain, pick, i + 1, leaf);
    }
    env_.erase(l.var);
  }

  const OnchipBuffer& onchip(const Buffer& b) {
    auto it = live_.find(b.get());
    if (it == live_.end() || !it->second) {
      throw LowerError(str("stage '", stage(), "': buffer '", b->name, "' (scope '", b->scope,
                           "') is used by an NPU instruction but not allocated on chip here; "
                           "an on-chip operand must be an enclosing Allocate in scope 'sram' or "
                           "'acc'"));
    }
    return *it->second;
  }

  // onchip_mem, checked once per buffer (its verdict depends only on the buffer and the target;
  // a buffer it rejects throws at its first use, as before).
  Mem mem_of(const Buffer& b) {
    auto it = mem_.find(b.get());
    if (it != mem_.end()) return it->second;
    Mem m = onchip_mem(b, stage(), target_);
    mem_.emplace(b.get(), m);
    return m;
  }

  int64_t copy_offset(const Buffer& b, const OnchipBuffer& a) {
    if (!a.double_buffered) return 0;
    auto p = phase_.find(b.get());
    return p == phase_.end() ? 0 : p->second * a.rows;
  }

  // An on-chip operand of a GEMM/vector instruction: physical affine address and its range.
  struct Operand {
    Mem mem;
    npu::Affine addr;
    Access range;
  };
  Operand operand(const Buffer& b, const Expr& row, const std::vector<FoldLoop>& folded,
                  int64_t width, bool write, const char* role) {
    const OnchipBuffer& a = onchip(b);
    Mem want = mem_of(b);
    std::optional<AffineRow> r;
    for (const auto& [node, form] : chain_forms_)
      if (node == row.get() && !r) r = affine_row_from(form, env_, folded);
    if (!r) r = affine_row(row, env_, folded, &row_forms_);
    if (!r) {
      throw LowerError(str("stage '", stage(), "': the ", role, " row ", to_string(row),
                           " of buffer '", b->name,
                           "' is not a constant or an affine function of the folded loops"));
    }
    int64_t last = r->base, ext[2] = {1, 1};
    for (size_t k = 0; k < folded.size(); ++k) ext[k] = folded[k].extent;
    for (int k = 0; k < 2; ++k) {
      if (r->stride[k] < 0 || r->stride[k] > kMaxU16)
        throw LowerError(str("stage '", stage(), "': the ", role, " row ", to_string(row),
                             " has a stride of ", r->stride[k],
                             " rows; NPU strides are in [0, 65535]"));
      last += r->stride[k] * (ext[k] - 1);
    }
    if (r->base < 0 || last + width > a.rows) {
      throw LowerError(str("stage '", stage(), "': the ", role, " accesses rows ", r->base, "..",
                           last + width - 1, " of buffer '", b->name, "', which has ", a.rows,
                           " rows"));
    }
    int64_t base = a.base + copy_offset(b, a);
    if (base + last + width > kMaxU32) throw LowerError("on-chip address beyond 32 bits");
    Operand o;
    o.mem = want;
    o.addr = npu::at(static_cast<uint32_t>(base + r->base), static_cast<uint16_t>(r->stride[0]),
                     static_cast<uint16_t>(r->stride[1]));
    o.range = Access{space_of(want), base + r->base, base + last + width, write};
    return o;
  }

  void emit_compute(const Stmt& s, const std::vector<FoldLoop>& folded) {
    SelectedInsn si;
    Insn& insn = si.insn;
    uint16_t ext0 = folded.size() > 0 ? uint16_t(folded[0].extent) : 1;
    uint16_t ext1 = folded.size() > 1 ? uint16_t(folded[1].extent) : 1;
    if (const auto* g = s.as<NpuGemmNode>()) {
      // The operands' scopes are make_npu_gemm's invariants (acc, sram, sram).
      Operand acc = operand(g->acc, g->acc_row, folded, 1, true, "GEMM accumulator");
      Operand inp = operand(g->inp, g->inp_row, folded, 1, false, "GEMM input");
      Operand wgt = operand(g->wgt, g->wgt_row, folded, target_.mac_out, false, "GEMM weight tile");
      insn.opcode = npu::Opcode::kGemm;
      insn.gemm.reset = g->reset;
      insn.gemm.ext0 = ext0;
      insn.gemm.ext1 = ext1;
      insn.gemm.acc = acc.addr;
      insn.gemm.inp = inp.addr;
      insn.gemm.wgt = wgt.addr;
      si.accesses = {acc.range, inp.range, wgt.range};
    } else {
      // The op and its operand form are make_npu_vector's invariants.
      const auto* v = s.as<NpuVectorNode>();
      const npu::VecOp* op = &v->op;
      Operand dst = operand(v->dst, v->dst_row, folded, 1, true, "vector destination");
      Operand src = operand(v->src, v->src_row, folded, 1, false, "vector source");
      insn.opcode = npu::Opcode::kVector;
      npu::Vector& x = insn.vec;
      x.op = *op;
      x.ext0 = ext0;
      x.ext1 = ext1;
      x.dst_mem = dst.mem;
      x.dst = dst.addr;
      x.src_mem = src.mem;
      x.src = src.addr;
      si.accesses = {dst.range, src.range};
      if (v->src2) {
        Operand s2 = operand(v->src2, v->src2_row, folded, 1, false, "vector operand");
        x.src2_mem = s2.mem;
        x.src2 = s2.addr;
        si.accesses.push_back(s2.range);
      } else {
        x.use_imm = true;
        x.imm = static_cast<int32_t>(*op == npu::VecOp::kRelu ? 0 : v->imm);
        if (*op == npu::VecOp::kClip) x.imm_hi = static_cast<int32_t>(v->imm_hi);
        if (*op == npu::VecOp::kRequantize) {
          x.shift = static_cast<uint8_t>(v->shift);
          x.zero_point = static_cast<int8_t>(v->zero_point);
        }
      }
    }
    out.push_back(std::move(si));
  }

  void emit_dma(const NpuDmaNode* op) {
    auto field = [&](const char* name, int64_t v, int64_t lo, int64_t hi) {
      if (v < lo || v > hi) {
        throw LowerError(str("stage '", stage(), "': DMA ", op->load ? "load" : "store", " of '",
                             op->chip->name, "': ", name, " = ", v, " is outside [", lo, ", ", hi,
                             "], the range of the instruction's field; split the transfer "
                             "into smaller tiles"));
      }
    };
    auto dit = ddr_.find(op->ddr.get());
    if (dit == ddr_.end()) {
      throw LowerError(str("stage '", stage(), "': a DMA moves data of buffer '", op->ddr->name,
                           "', which is not an argument of the function; DMAs connect arguments "
                           "(DDR) with on-chip buffers"));
    }
    const OnchipBuffer& a = onchip(op->chip);
    Mem mem = mem_of(op->chip);  // dtypes agree: make_npu_dma's invariant
    int64_t chip_row = const_value(op->chip_row, "the on-chip row");
    int64_t ddr_elem = const_value(op->ddr_offset, "the DDR offset");
    int64_t rows = const_value(op->rows, "the DMA row count");
    int64_t cols = const_value(op->cols, "the DMA column count");
    int64_t pt = const_value(op->pad_top, "pad_top"),
            pb = const_value(op->pad_bottom, "pad_bottom");
    int64_t pl = const_value(op->pad_left, "pad_left"),
            pr = const_value(op->pad_right, "pad_right");
    field("rows", rows, 1, kMaxU16);
    field("cols", cols, 1, kMaxU16);
    field("pad_top", pt, 0, 255);
    field("pad_bottom", pb, 0, 255);
    field("pad_left", pl, 0, 255);
    field("pad_right", pr, 0, 255);
    if (!op->load) field("padding of a store", pt + pb + pl + pr, 0, 0);
    field("on-chip row stride", op->chip_row_stride, 0, kMaxU32);
    int64_t total_rows = pt + rows + pb;
    int64_t chip_last =
        chip_row + (total_rows - 1) * op->chip_row_stride + pl + cols + pr;  // one past
    if (chip_row < 0 || chip_last > a.rows) {
      throw LowerError(str("stage '", stage(), "': a DMA ", op->load ? "writes" : "reads", " rows ",
                           chip_row, "..", chip_last - 1, " of buffer '", op->chip->name,
                           "', which has ", a.rows, " rows"));
    }
    int64_t ddr_end = ddr_elem + (rows - 1) * op->ddr_row_stride + cols * target_.block();
    if (ddr_elem < 0 || op->ddr_row_stride < 0 || ddr_end > op->ddr->num_elements()) {
      throw LowerError(str("stage '", stage(), "': a DMA ", op->load ? "reads" : "writes",
                           " elements ", ddr_elem, "..", ddr_end - 1, " of argument '",
                           op->ddr->name, "', which has ", op->ddr->num_elements()));
    }
    int64_t eb = dit->second.elem_bytes;
    int64_t ddr_addr = static_cast<int64_t>(dit->second.offset) + ddr_elem * eb;
    field("DDR row stride (bytes)", op->ddr_row_stride * eb, 0, kMaxU32);
    field("DDR address", ddr_addr, 0, kMaxU32);
    int64_t base = a.base + copy_offset(op->chip, a);
    SelectedInsn si;
    Insn& insn = si.insn;
    insn.opcode = op->load ? npu::Opcode::kLoad : npu::Opcode::kStore;
    npu::Dma& d = insn.dma;
    d.mem = mem;
    d.sram_addr = static_cast<uint32_t>(base + chip_row);
    d.sram_stride = static_cast<uint32_t>(op->chip_row_stride);
    d.ddr_addr = static_cast<uint32_t>(ddr_addr);
    d.ddr_stride = static_cast<uint32_t>(op->ddr_row_stride * eb);
    d.rows = static_cast<uint16_t>(rows);
    d.cols = static_cast<uint16_t>(cols);
    d.pad_top = static_cast<uint8_t>(pt);
    d.pad_bottom = static_cast<uint8_t>(pb);
    d.pad_left = static_cast<uint8_t>(pl);
    d.pad_right = static_cast<uint8_t>(pr);
    si.accesses = {Access{space_of(mem), base + chip_row, base + chip_last, op->load},
                   Access{Space::kDdr, ddr_addr, ddr_addr + (ddr_end - ddr_elem) * eb, !op->load}};
    out.push_back(std::move(si));
  }

  const OnchipPlan& plan_;
  const DdrLayout& ddr_;
  const npu::Target& target_;
  VarMap env_;
  RowForms row_forms_;
  // The row forms of the chain being emitted (choose_fold's), by row expression; empty otherwise.
  std::vector<std::pair<const ExprNode*, LinearForm>> chain_forms_;
  std::vector<std::string> stages_;
  // Keyed by node pointers: looked up only, never iterated, so output order does not depend on
  // addresses.
  std::map<const BufferNode*, const OnchipBuffer*> live_;
  std::map<const BufferNode*, int64_t> phase_;
  std::map<const BufferNode*, Mem> mem_;
  std::map<const AttrStmtNode*, std::vector<const BufferNode*>> writes_;
};

}  // namespace

std::vector<SelectedInsn> select_insns(const Stmt& body, const OnchipPlan& plan,
                                       const DdrLayout& ddr, const npu::Target& target) {
  Selector s(plan, ddr, target);
  s.visit(body);
  return std::move(s.out);
}

}  // namespace tessera
