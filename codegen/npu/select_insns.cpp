#include "codegen/npu/select_insns.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "codegen/npu/chain_template.h"
#include "codegen/npu/collect_writes.h"
#include "codegen/npu/fold_loops.h"
#include "codegen/npu/loop_template.h"
#include "codegen/npu/npu_insns.h"
#include "codegen/npu/row_forms.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/int_program.h"
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
        const int b = buffer_index(op->buffer.get());
        const OnchipBuffer* saved = bufs_[b].live;
        bufs_[b].live = &it->second;
        visit(op->body);
        bufs_[b].live = saved;
        break;
      }
      case StmtKind::kAttrStmt:
        visit_attr(s.as<AttrStmtNode>());
        break;
      case StmtKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        int slot = env_.slot(op->var);
        if (std::optional<int64_t> v = eval(op->value)) {
          DType t = op->value.dtype();
          env_.bind(slot, wrap_int(*v, t), t);
        } else {
          probe_.fail();
          env_.bind_expr(slot, simplify(substitute(op->value, env_.var_map())));
        }
        visit(op->body);
        env_.unbind(slot);
        break;
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (std::optional<int64_t> v = eval(op->cond)) {
          visit(*v ? op->then_case : op->else_case);
          break;
        }
        probe_.fail();
        Expr c = simplify(substitute(op->cond, env_.var_map()));
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
      case StmtKind::kNpuVector: {
        Leaf& leaf = leaf_of(s);
        if (emit_plain(leaf)) break;
        no_fold_.clear();
        emit_compute(leaf, nullptr, no_fold_);
        break;
      }
      case StmtKind::kBufferStore:
        throw LowerError(
            str("stage '", stage(), "': ", elementwise_store_problem(s.as<BufferStoreNode>())));
      case StmtKind::kTensorize:
        throw LowerError(str("stage '", stage(),
                             "': a tensorize region reached code generation; "
                             "lower() replaces it (run the tensorize pass)"));
      case StmtKind::kExternCall:
        throw LowerError(str("stage '", stage(),
                             "': a te.extern stage (a C function) cannot run on the NPU; "
                             "build it for the C target"));
    }
  }

  std::vector<SelectedInsn> out;

 private:
  std::string stage() const {
    return stages_.empty() ? std::string("<top level>") : stages_.back();
  }

  // A body expression's value by integer evaluation (eval_int's answer, compiled once per
  // expression node: the body outlives the selector, so its nodes are stable keys).
  const IntProgram& program(const Expr& e) {
    auto it = programs_.find(e.get());
    if (it == programs_.end()) it = programs_.emplace(e.get(), IntProgram(e, &env_)).first;
    return it->second;
  }
  // Lets and conditions: in a probe, the same on its whole box (loop_template.h).
  std::optional<int64_t> eval(const Expr& e) {
    const IntProgram& p = program(e);
    std::optional<int64_t> v = p.eval(env_);
    if (v && probe_.active()) probe_.check(p, env_, true);
    return v;
  }

  // Loop bounds and DMA fields: integer evaluation when it decides (the hot path, the same value
  // as the simplifier's), else the simplifier, which also words the error.
  int64_t const_value(const std::optional<int64_t>& v, const Expr& e, const char* what) {
    return v ? *v : const_value_slow(e, what);
  }
  int64_t loop_bound(const IntProgram& p, const Expr& e, const Var& var, const char* which) {
    if (std::optional<int64_t> v = p.eval(env_)) {
      if (probe_.active()) probe_.check(p, env_, true);
      return *v;
    }
    return const_value_slow(e, str("the ", which, " of loop '", var.name(), "'"));
  }
  int64_t const_value_slow(const Expr& e, const std::string& what) {
    probe_.fail();
    Expr v = simplify(substitute(e, env_.var_map()));
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
      // Each buffer once, however many statements write it.
      std::vector<int> idx;
      for (const BufferNode* b : w) {
        int i = buffer_index(b);
        if (std::find(idx.begin(), idx.end(), i) == idx.end()) idx.push_back(i);
      }
      it = writes_.emplace(op, std::move(idx)).first;
    }
    // A new execution of the producer: switch each double-buffered output to its other copy.
    for (int b : it->second) {
      BufState& st = bufs_[b];
      if (!st.live || !st.live->double_buffered) continue;
      st.phase = st.phase < 0 ? 0 : (st.phase + 1) % 2;
    }
    stages_.push_back(op->value);
    visit(op->body);
    stages_.pop_back();
  }

  // A GEMM or vector statement: its rows compiled once.
  struct Leaf {
    Stmt stmt;
    int buf[3] = {-1, -1, -1};  // the operands' buffers (buffer_index), per row
    std::vector<Expr> rows;
    std::vector<RowForm> forms;
    std::vector<RowInstance> chain;  // the rows over the chain being emitted (scratch)
    RowInstance scratch;
    int64_t width[3] = {1, 1, 1};  // rows each operand spans (a GEMM's weight tile: mac_out)
    bool write[3] = {true, false, false};
  };
  Leaf& leaf_of(const Stmt& s) {
    auto it = leaves_.find(s.get());
    if (it != leaves_.end()) return *it->second;
    auto leaf = std::make_unique<Leaf>();
    leaf->stmt = s;
    leaf->rows = leaf_rows(s);
    if (const auto* g = s.as<NpuGemmNode>()) {
      leaf->buf[0] = buffer_index(g->acc.get());
      leaf->buf[1] = buffer_index(g->inp.get());
      leaf->buf[2] = buffer_index(g->wgt.get());
      leaf->width[2] = target_.mac_out;
    } else if (const auto* v = s.as<NpuVectorNode>()) {
      leaf->buf[0] = buffer_index(v->dst.get());
      leaf->buf[1] = buffer_index(v->src.get());
      if (v->src2) leaf->buf[2] = buffer_index(v->src2.get());
    }
    for (const Expr& r : leaf->rows) leaf->forms.emplace_back(r, &env_);
    leaf->chain.resize(leaf->rows.size());
    return *leaves_.emplace(s.get(), std::move(leaf)).first->second;
  }

  // The perfect chain of loops below a For: which loops (structure only), their bounds compiled.
  struct Chain {
    std::vector<const ForNode*> loops;
    std::vector<int> slots;
    std::vector<IntProgram> min, extent;
    // A bound that is a literal, evaluated once (most inner loops: no program run per instance).
    std::vector<std::optional<int64_t>> min_const, extent_const;
    Stmt below;                    // the statement under the chain
    Leaf* leaf = nullptr;          // when that is a GEMM or vector statement
    std::vector<FoldLoop> loop;    // this instance (scratch)
    std::vector<FoldLoop> folded;  // the loops it folds (scratch)
    // The last fold problem of this chain and its choice (the leaf, hence the flags, is fixed).
    FoldProblem problem;
    FoldChoice choice;
    bool decided = false;
    std::unique_ptr<ChainTemplate> tmpl;  // when the leaf's rows allow one (chain_template.h)
  };
  Chain& chain_of(const Stmt& s) {
    auto it = chains_.find(s.get());
    if (it != chains_.end()) return *it->second;
    auto c = std::make_unique<Chain>();
    Stmt cur = s;
    while (const auto* f = cur.as<ForNode>()) {
      c->loops.push_back(f);
      cur = f->body;
      // Only the first loop's bounds may use enclosing variables safely here; inner bounds that
      // use chain variables are not constant and end the chain.
      if (const auto* inner = cur.as<ForNode>()) {
        bool uses = false;
        for (const ForNode* l : c->loops)
          uses = uses || uses_var(inner->min, l->var) || uses_var(inner->extent, l->var);
        if (uses) break;
      }
    }
    for (const ForNode* f : c->loops) {
      c->slots.push_back(env_.slot(f->var));
      c->min.emplace_back(f->min, &env_);
      c->extent.emplace_back(f->extent, &env_);
      // A literal's value does not depend on the environment.
      c->min_const.push_back(as_const_int(f->min) ? c->min.back().eval(env_) : std::nullopt);
      c->extent_const.push_back(as_const_int(f->extent) ? c->extent.back().eval(env_)
                                                        : std::nullopt);
    }
    c->below = cur;
    if (cur.as<NpuGemmNode>() || cur.as<NpuVectorNode>()) {
      c->leaf = &leaf_of(cur);
      std::vector<FoldLoop> loops;
      for (size_t i = 0; i < c->loops.size(); ++i)
        loops.push_back({&c->loops[i]->var, c->slots[i]});
      c->tmpl = std::make_unique<ChainTemplate>(c->leaf->forms, loops);
      if (!c->tmpl->ok()) c->tmpl.reset();
    }
    return *chains_.emplace(s.get(), std::move(c)).first->second;
  }

  // Binds a loop variable; make_int's check for a variable that is not an integer, as before.
  void bind_loop(const Var& var, int slot, int64_t v) {
    DType t = var.dtype();
    if (!is_int(t) && t != DType::kBool) make_int(v, t);
    env_.bind(slot, v, t);
  }

  void visit_for(const Stmt& s) {
    const auto* op = s.as<ForNode>();
    Chain& c = chain_of(s);
    std::vector<FoldLoop>& chain = c.loop;
    chain.clear();
    for (size_t i = 0; i < c.loops.size(); ++i) {
      const ForNode* f = c.loops[i];
      int64_t mn = c.min_const[i] ? *c.min_const[i] : loop_bound(c.min[i], f->min, f->var, "min");
      int64_t ext = c.extent_const[i] ? *c.extent_const[i]
                                      : loop_bound(c.extent[i], f->extent, f->var, "extent");
      chain.push_back({&f->var, c.slots[i], mn, ext});
    }
    for (const FoldLoop& l : chain)
      if (l.extent <= 0) return;  // a perfect nest with an empty loop does nothing
    if (c.tmpl && emit_template(c)) return;
    if (c.leaf) {
      FoldChoice pick = choose(c);
      if (pick.count > 0) {
        std::vector<FoldLoop>& folded = c.folded;
        folded.clear();
        for (int k = 0; k < pick.count; ++k) folded.push_back(chain[pick.loop[k]]);
        // Each instruction's addresses then come from the chain's row instances by integer
        // arithmetic.
        unroll_chain(c, pick, folded, 0);
        return;
      }
    }
    Body body(*this, op);
    emit_loop(body, chain[0].slot, chain[0].min, chain[0].extent, probe_, out, plain_);
    env_.unbind(chain[0].slot);
  }

  // A loop's body for emit_loop (loop_template.h).
  struct Body : LoopBody {
    Selector& s;
    const ForNode* op;
    const int slot;
    Body(Selector& sel, const ForNode* f) : s(sel), op(f), slot(sel.env_.slot(f->var)) {}
    void iterate(int64_t v) override {
      s.bind_loop(op->var, slot, v);
      s.visit(op->body);
    }
    void state(std::vector<int64_t>* st) const override {  // per buffer: live, phase, memory
      st->clear();
      for (const BufState& b : s.bufs_) {
        st->push_back(reinterpret_cast<intptr_t>(b.live));
        st->push_back((b.phase + 1) | (b.mem + 1) << 8);
      }
    }
    void set_state(const std::vector<int64_t>& st) override {
      for (size_t i = 0; i < s.bufs_.size(); ++i) {
        int64_t live = 2 * i < st.size() ? st[2 * i] : 0, v = 2 * i < st.size() ? st[2 * i + 1] : 0;
        s.bufs_[i] = {reinterpret_cast<const OnchipBuffer*>(live), int8_t((v & 255) - 1),
                      int8_t((v >> 8) - 1)};
      }
    }
    void checkpoint(LoopCheckpoint* c) const override {
      c->stages = s.stages_.size();
      c->env.clear();
      for (int i = 0; i < s.env_.size(); ++i) c->env.push_back(s.env_.save(i));
    }
    void rollback(const LoopCheckpoint& c) override {
      s.stages_.resize(c.stages);
      for (int i = 0; i < s.env_.size(); ++i)
        static_cast<size_t>(i) < c.env.size() ? s.env_.restore(i, c.env[i]) : s.env_.unbind(i);
    }
  };

  // The fold choice for this instance of the chain (its loops unbound, enclosing ones bound).
  FoldChoice choose(Chain& c) {
    Leaf& leaf = *c.leaf;
    size_t n = c.loop.size();
    problem_.extent.clear();
    for (const FoldLoop& l : c.loop) problem_.extent.push_back(l.extent);
    problem_.rows = leaf.rows.size();
    problem_.stride.clear();
    for (size_t r = 0; r < leaf.rows.size(); ++r) {
      leaf.forms[r].instance(env_, &leaf.chain[r]);
      for (size_t i = 0; i < n; ++i)
        problem_.stride.push_back(leaf.chain[r].stride(*c.loop[i].var, c.loop[i].slot));
    }
    const auto* gemm = leaf.stmt.as<NpuGemmNode>();
    const auto* vec = leaf.stmt.as<NpuVectorNode>();
    problem_.accumulate = (gemm && !gemm->reset) || (vec && vec->op == npu::VecOp::kMac);
    problem_.reset_gemm = gemm && gemm->reset;
    // The chain's instances mostly pose the same problem (same extents and strides).
    if (c.decided && c.problem.extent == problem_.extent && c.problem.stride == problem_.stride) {
      return c.choice;
    }
    c.problem = problem_;
    c.choice = choose_fold(problem_);
    c.decided = true;
    return c.choice;
  }

  // Unrolls the chain's loops that are not picked (in order) and emits the leaf with the picked
  // ones folded.
  void unroll_chain(Chain& c, const FoldChoice& pick, const std::vector<FoldLoop>& folded,
                    size_t i) {
    if (i == c.loop.size()) return emit_compute(*c.leaf, &c.leaf->chain, folded);
    if (pick.folds(i)) return unroll_chain(c, pick, folded, i + 1);
    const FoldLoop l = c.loop[i];
    for (int64_t v = l.min; v < l.min + l.extent; ++v) {
      bind_loop(*l.var, l.slot, v);
      unroll_chain(c, pick, folded, i + 1);
    }
    env_.unbind(l.slot);
  }

  // The chain instance from its template (chain_template.h): the same fold choice and
  // instructions as choose() and unroll_chain, without row instances or stride queries. An
  // instruction that fails a check goes through emit_compute (the same instruction, or its
  // error). False when the template does not decide this instance (nothing emitted).
  bool emit_template(Chain& c) {
    ChainTemplate& t = *c.tmpl;
    Leaf& leaf = *c.leaf;
    const size_t rows = leaf.rows.size(), n = c.loop.size();
    int64_t constant[3];
    if (!t.constants(env_, constant)) return false;
    bool same = t.decided && t.extent.size() == n;
    for (size_t i = 0; same && i < n; ++i) same = t.extent[i] == c.loop[i].extent;
    if (!same) {
      problem_.extent.clear();
      for (const FoldLoop& l : c.loop) problem_.extent.push_back(l.extent);
      problem_.rows = rows;
      problem_.stride = t.strides();
      const auto* gemm = leaf.stmt.as<NpuGemmNode>();
      const auto* vec = leaf.stmt.as<NpuVectorNode>();
      problem_.accumulate = (gemm && !gemm->reset) || (vec && vec->op == npu::VecOp::kMac);
      problem_.reset_gemm = gemm && gemm->reset;
      t.choice = choose_fold(problem_);
      t.extent = problem_.extent;
      t.decided = true;
      t.plan(t.choice, n);
    }
    const FoldChoice& pick = t.choice;
    if (pick.count == 0) return false;
    std::vector<FoldLoop>& folded = c.folded;
    folded.clear();
    for (int k = 0; k < pick.count; ++k) folded.push_back(c.loop[pick.loop[k]]);
    int64_t from_min[3], stride[3][2], ext[2] = {1, 1}, base[3];
    for (size_t k = 0; k < rows; ++k) {
      from_min[k] = t.from_min(k, folded);
      stride[k][0] = t.stride(k, 0);
      stride[k][1] = t.stride(k, 1);
    }
    for (size_t f = 0; f < folded.size(); ++f) ext[f] = folded[f].extent;
    const std::vector<size_t>& level = t.levels();
    const size_t m = level.size();
    // Per unrolled loop: its variable's value, and that value wrapped to the variable's type
    // (as the environment reads it).
    std::vector<int64_t>& cur = level_cur_;
    std::vector<int64_t>& value = level_value_;
    cur.resize(m);
    value.resize(m);
    auto set = [&](size_t l, int64_t v) {  // bind_loop (the template checked the types)
      const FoldLoop& lp = c.loop[level[l]];
      const DType t = lp.var->dtype();
      cur[l] = v;
      value[l] = wrap_int(v, t);
      env_.bind(lp.slot, v, t);
    };
    for (size_t l = 0; l < m; ++l) set(l, c.loop[level[l]].min);
    if (probe_.active()) {  // the bases affine in the probed loops, for every unrolled value
      int64_t lo[8], hi[8];
      bool fits = m <= 8;
      for (size_t l = 0; fits && l < m; ++l) {
        const FoldLoop& lp = c.loop[level[l]];
        lo[l] = lp.min;
        hi[l] = lp.min + lp.extent - 1;
        fits = wrap_int(lo[l], lp.var->dtype()) == lo[l] && wrap_int(hi[l], lp.var->dtype()) == hi[l];
      }
      if (!fits) probe_.fail();
      probe_.check_with([&](const AffineVar* v, int n) { return t.affine(env_, v, n, lo, hi); });
    }
    while (true) {
      for (size_t k = 0; k < rows; ++k) base[k] = t.base(k, constant[k], value.data(), from_min[k]);
      if (!emit_fast(leaf, base, stride, ext)) {
        // The general way: the rows' instances over the chain (its loops unbound), then the
        // instruction at this iteration.
        for (size_t l = 0; l < m; ++l) env_.unbind(c.loop[level[l]].slot);
        for (size_t k = 0; k < rows; ++k) leaf.forms[k].instance(env_, &leaf.chain[k]);
        for (size_t l = 0; l < m; ++l) set(l, cur[l]);
        emit_compute(leaf, &leaf.chain, folded);
      }
      size_t l = m;  // the innermost unrolled loop with a next iteration, plus one
      while (l > 0 && cur[l - 1] + 1 >= c.loop[level[l - 1]].min + c.loop[level[l - 1]].extent) --l;
      if (l == 0) break;
      set(l - 1, cur[l - 1] + 1);
      for (size_t j = l; j < m; ++j) set(j, c.loop[level[j]].min);  // the loops inside restart
    }
    for (size_t l = 0; l < m; ++l) env_.unbind(c.loop[level[l]].slot);
    return true;
  }

  // A leaf outside any chain whose rows integer arithmetic decides (RowForm::value): emitted
  // by emit_fast; false when a row is not decided so or an operand needs emit_compute's checks.
  bool emit_plain(Leaf& leaf) {
    int64_t base[3], stride[3][2] = {{0, 0}, {0, 0}, {0, 0}}, ext[2] = {1, 1};
    for (size_t k = 0; k < leaf.rows.size(); ++k)
      if (!leaf.forms[k].value(env_, &base[k])) return false;
    if (probe_.active()) {
      probe_.check_with([&](const AffineVar* vars, int n) {
        for (size_t k = 0; k < leaf.rows.size(); ++k)
          if (!leaf.forms[k].value_affine(env_, vars, n)) return false;
        return true;
      });
    }
    return emit_fast(leaf, base, stride, ext);
  }

  // emit_compute with every row's base and strides known: appends the instruction, or returns
  // false without emitting when an operand needs a check that emit_compute words (a buffer not
  // allocated here, a memory not checked yet, a stride or a range out of bounds).
  bool emit_fast(Leaf& leaf, const int64_t* base, const int64_t (*stride)[2], const int64_t* ext) {
    Operand ops[3];
    for (size_t k = 0; k < leaf.rows.size(); ++k) {
      const int bi = leaf.buf[k];
      const BufState& st = bufs_[bi];
      if (!st.live || st.mem < 0) return false;
      const OnchipBuffer& a = *st.live;
      const int64_t s0 = stride[k][0], s1 = stride[k][1], width = leaf.width[k];
      if (s0 < 0 || s0 > kMaxU16 || s1 < 0 || s1 > kMaxU16) return false;
      const int64_t last = base[k] + s0 * (ext[0] - 1) + s1 * (ext[1] - 1);
      if (base[k] < 0 || last + width > a.rows) return false;
      const int64_t b = a.base + copy_offset(bi, a);
      if (b + last + width > kMaxU32) return false;
      Operand& o = ops[k];
      o.mem = static_cast<Mem>(st.mem);
      o.addr.base = static_cast<uint32_t>(b + base[k]);
      o.addr.stride0 = static_cast<uint16_t>(s0);
      o.addr.stride1 = static_cast<uint16_t>(s1);
      o.range = Access{space_of(o.mem), b + base[k], b + last + width, leaf.write[k]};
    }
    out.push_back(
        compute_insn(leaf.stmt, ops, static_cast<uint16_t>(ext[0]), static_cast<uint16_t>(ext[1])));
    return true;
  }

  // The dense index of a buffer node, assigned at first sight (looked up only when a statement is
  // first compiled; per instance the selector indexes bufs_).
  int buffer_index(const BufferNode* b) {
    auto [it, fresh] = buffer_index_.emplace(b, static_cast<int>(bufs_.size()));
    if (fresh) bufs_.emplace_back();
    return it->second;
  }

  const OnchipBuffer& onchip(int i, const Buffer& b) {
    const OnchipBuffer* a = bufs_[i].live;
    if (!a) {
      throw LowerError(str("stage '", stage(), "': buffer '", b->name, "' (scope '", b->scope,
                           "') is used by an NPU instruction but not allocated on chip here; "
                           "an on-chip operand must be an enclosing Allocate in scope 'sram' or "
                           "'acc'"));
    }
    return *a;
  }

  // onchip_mem, checked once per buffer (its verdict depends only on the buffer and the target;
  // a buffer it rejects throws at its first use, as before).
  Mem mem_of(int i, const Buffer& b) {
    if (bufs_[i].mem >= 0) return static_cast<Mem>(bufs_[i].mem);
    Mem m = onchip_mem(b, stage(), target_);
    bufs_[i].mem = static_cast<int8_t>(m);
    return m;
  }

  int64_t copy_offset(int i, const OnchipBuffer& a) {
    if (!a.double_buffered) return 0;
    return bufs_[i].phase < 0 ? 0 : bufs_[i].phase * a.rows;
  }

  // Row k of `leaf`; `chain` holds the rows' instances over the chain being emitted, or is null.
  Operand operand(Leaf& leaf, const std::vector<RowInstance>* chain, size_t k, const Buffer& b,
                  const std::vector<FoldLoop>& folded, int64_t width, bool write,
                  const char* role) {
    const Expr& row = leaf.rows[k];
    const int bi = leaf.buf[k];
    const OnchipBuffer& a = onchip(bi, b);
    Mem want = mem_of(bi, b);
    std::optional<AffineRow> r;
    if (chain) r = affine_row_from((*chain)[k], env_, folded);
    if (!r) r = affine_row(leaf.forms[k], env_, folded, &leaf.scratch);
    if (!r) {
      throw LowerError(str("stage '", stage(), "': the ", role, " row ", to_string(row),
                           " of buffer '", b->name,
                           "' is not a constant or an affine function of the folded loops"));
    }
    int64_t last = r->base, ext[2] = {1, 1};
    for (size_t f = 0; f < folded.size(); ++f) ext[f] = folded[f].extent;
    for (int f = 0; f < 2; ++f) {
      if (r->stride[f] < 0 || r->stride[f] > kMaxU16)
        throw LowerError(str("stage '", stage(), "': the ", role, " row ", to_string(row),
                             " has a stride of ", r->stride[f],
                             " rows; NPU strides are in [0, 65535]"));
      last += r->stride[f] * (ext[f] - 1);
    }
    if (r->base < 0 || last + width > a.rows) {
      throw LowerError(str("stage '", stage(), "': the ", role, " accesses rows ", r->base, "..",
                           last + width - 1, " of buffer '", b->name, "', which has ", a.rows,
                           " rows"));
    }
    int64_t base = a.base + copy_offset(bi, a);
    if (base + last + width > kMaxU32) throw LowerError("on-chip address beyond 32 bits");
    Operand o;
    o.mem = want;
    o.addr = npu::at(static_cast<uint32_t>(base + r->base), static_cast<uint16_t>(r->stride[0]),
                     static_cast<uint16_t>(r->stride[1]));
    o.range = Access{space_of(want), base + r->base, base + last + width, write};
    return o;
  }

  void emit_compute(Leaf& leaf, const std::vector<RowInstance>* chain,
                    const std::vector<FoldLoop>& folded) {
    probe_.fail();  // a path the probes do not cover
    const Stmt& s = leaf.stmt;
    uint16_t ext0 = folded.size() > 0 ? uint16_t(folded[0].extent) : 1;
    uint16_t ext1 = folded.size() > 1 ? uint16_t(folded[1].extent) : 1;
    Operand ops[3];
    if (const auto* g = s.as<NpuGemmNode>()) {
      // The operands' scopes are make_npu_gemm's invariants (acc, sram, sram).
      ops[0] = operand(leaf, chain, 0, g->acc, folded, 1, true, "GEMM accumulator");
      ops[1] = operand(leaf, chain, 1, g->inp, folded, 1, false, "GEMM input");
      ops[2] = operand(leaf, chain, 2, g->wgt, folded, target_.mac_out, false, "GEMM weight tile");
    } else {
      const auto* v = s.as<NpuVectorNode>();
      ops[0] = operand(leaf, chain, 0, v->dst, folded, 1, true, "vector destination");
      ops[1] = operand(leaf, chain, 1, v->src, folded, 1, false, "vector source");
      if (v->src2) ops[2] = operand(leaf, chain, 2, v->src2, folded, 1, false, "vector operand");
    }
    out.push_back(compute_insn(s, ops, ext0, ext1));
  }

  // A DMA's fields compiled once, together (they share their clamps), and its buffers.
  struct Dma {
    IntProgram fields;
    int chip = -1;                   // buffer_index
    const DdrBuffer* ddr = nullptr;  // null when the DDR side is not an argument
  };
  const Dma& dma_of(const NpuDmaNode* op) {
    auto it = dmas_.find(op);
    if (it != dmas_.end()) return it->second;
    std::vector<Expr> fields = {op->chip_row, op->ddr_offset, op->rows,     op->cols,
                                op->pad_top,  op->pad_bottom, op->pad_left, op->pad_right};
    Dma d{IntProgram(fields, &env_), buffer_index(op->chip.get()), nullptr};
    auto dit = ddr_.find(op->ddr.get());
    if (dit != ddr_.end()) d.ddr = &dit->second;
    return dmas_.emplace(op, std::move(d)).first->second;
  }

  void emit_dma(const NpuDmaNode* op) {
    const Dma& dma = dma_of(op);
    if (!dma.ddr) {
      throw LowerError(str("stage '", stage(), "': a DMA moves data of buffer '", op->ddr->name,
                           "', which is not an argument of the function; DMAs connect arguments "
                           "(DDR) with on-chip buffers"));
    }
    const OnchipBuffer& a = onchip(dma.chip, op->chip);
    Mem mem = mem_of(dma.chip, op->chip);  // dtypes agree: make_npu_dma's invariant
    std::optional<int64_t> f[8];
    dma.fields.eval_all(env_, f);
    if (probe_.active()) probe_.check(dma.fields, env_, false);
    DmaValues v;
    v.chip_row = const_value(f[0], op->chip_row, "the on-chip row");
    v.ddr_elem = const_value(f[1], op->ddr_offset, "the DDR offset");
    v.rows = const_value(f[2], op->rows, "the DMA row count");
    v.cols = const_value(f[3], op->cols, "the DMA column count");
    v.pad_top = const_value(f[4], op->pad_top, "pad_top");
    v.pad_bottom = const_value(f[5], op->pad_bottom, "pad_bottom");
    v.pad_left = const_value(f[6], op->pad_left, "pad_left");
    v.pad_right = const_value(f[7], op->pad_right, "pad_right");
    out.push_back(dma_insn(op, v, a, mem, copy_offset(dma.chip, a), *dma.ddr, target_,
                           stages_.empty() ? "<top level>" : stages_.back().c_str()));
  }

  const OnchipPlan& plan_;
  const DdrLayout& ddr_;
  const npu::Target& target_;
  // Variables bound by the enclosing loops and lets (and the other lets' values).
  IntEnv env_;
  // Compiled once per node of the body (which outlives the selector); looked up only, never
  // iterated, so output order does not depend on addresses.
  std::unordered_map<const ExprNode*, IntProgram> programs_;
  std::unordered_map<const StmtNode*, std::unique_ptr<Leaf>> leaves_;
  std::unordered_map<const StmtNode*, std::unique_ptr<Chain>> chains_;
  std::unordered_map<const NpuDmaNode*, Dma> dmas_;
  FoldProblem problem_;                           // scratch of choose()
  std::vector<int64_t> level_cur_, level_value_;  // scratch of emit_template()
  std::vector<FoldLoop> no_fold_;                 // the empty fold of a statement outside any chain
  std::vector<std::string> stages_;
  // Keyed by node pointers: looked up only, never iterated, so output order does not depend on
  // addresses.
  std::unordered_map<const BufferNode*, int> buffer_index_;
  // Per buffer (buffer_index): its live allocation, the copy in use (-1 before its producer first
  // runs) and its memory (-1 until first checked).
  struct BufState {
    const OnchipBuffer* live = nullptr;
    int8_t phase = -1;
    int8_t mem = -1;
  };
  std::vector<BufState> bufs_;
  LoopProbe probe_;                          // the loops being probed (loop_template.h)
  const bool plain_ = plain_loops_requested();  // never extrapolate
  std::unordered_map<const AttrStmtNode*, std::vector<int>> writes_;
};

}  // namespace

std::vector<SelectedInsn> select_insns(const Stmt& body, const OnchipPlan& plan,
                                       const DdrLayout& ddr, const npu::Target& target) {
  Selector s(plan, ddr, target);
  s.visit(body);
  return std::move(s.out);
}

}  // namespace tessera
