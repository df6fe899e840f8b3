#include "compiler/passes/inject_npu_ops.h"

#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool on_chip(const Buffer& b) { return b->scope == "sram" || b->scope == "acc"; }

int64_t coef_of(const Expr& e, const Var& v) {
  for (const LinearTerm& t : linear_form(e).terms) {
    if (t.atom.same_as(v)) return t.coef;
  }
  return 0;
}

Expr at(const Expr& e, const VarMap& m) { return simplify(substitute(e, m)); }

// One bound of the valid region along a loop variable, from a padding condition.
struct Bounds {
  Expr lo;  // first valid index (may be < 0)
  Expr hi;  // one past the last valid index
};

class Injector : public IRMutator {
 public:
  explicit Injector(const npu::Target& target) : lanes_(target.block()) {}
  using IRMutator::mutate;

 protected:
  Stmt mutate_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    if (op->key != "produce") return IRMutator::mutate_AttrStmt(op, s);
    std::string saved = stage_;
    stage_ = op->value;
    Stmt r = IRMutator::mutate_AttrStmt(op, s);
    stage_ = saved;
    return r;
  }

  Stmt mutate_For(const ForNode* op, const Stmt& s) override {
    // Collect the nest under this loop: loops, and the guards between them (an `if` without
    // else whose body is the rest of the nest). guard_depth[g] = loops outside guard g.
    loops_ = {op};
    guards_.clear();
    guard_depth_.clear();
    Stmt body = op->body;
    while (true) {
      if (const auto* f = body.as<ForNode>()) {
        loops_.push_back(f);
        body = f->body;
      } else if (const auto* g = body.as<IfThenElseNode>(); g && !g->else_case.defined()) {
        guards_.push_back(g->cond);
        guard_depth_.push_back(loops_.size());
        body = g->then_case;
      } else {
        break;
      }
    }
    const auto* store = body.as<BufferStoreNode>();
    if (!store) return IRMutator::mutate_For(op, s);
    Stmt unit;  // keeps a 1-lane target's lane loop alive while matching
    if (lanes_ == 1 && !is_lane_loop(loops_.back())) store = with_unit_lane(store, &unit);
    Stmt inner = match(loops_, store);
    if (!inner.defined()) return IRMutator::mutate_For(op, s);
    return inner;
  }

  // A store outside every loop: a row op only on a 1-lane target.
  Stmt mutate_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    if (lanes_ != 1) return s;
    loops_.clear();
    guards_.clear();
    guard_depth_.clear();
    Stmt unit;
    Stmt inner = match(loops_, with_unit_lane(op, &unit));
    return inner.defined() ? inner : s;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw LowerError(str("stage '", stage_, "': ", why));
  }

  // On a 1-lane target every element is a row, and simplify has removed the lane loops (extent
  // 1). Puts one back: `for lane in [0, 1)` around the store, the lane added to every index, so
  // that the nest matches like any other. `*keep` owns the loop; it is pushed onto loops_.
  const BufferStoreNode* with_unit_lane(const BufferStoreNode* store, Stmt* keep) {
    Var lane("lane");
    class AddLane : public IRMutator {
     public:
      explicit AddLane(const Var& l) : l_(l) {}
      using IRMutator::mutate;

     protected:
      Expr mutate_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
        return make_buffer_load(op->buffer, {op->indices[0] + l_});
      }

     private:
      Var l_;
    } add(lane);
    Stmt st = make_store(store->buffer, {store->indices[0] + lane}, add.mutate(store->value));
    *keep = make_for(lane, make_int(0), make_int(1), ForKind::kSerial, st);
    loops_.push_back(keep->as<ForNode>());
    return keep->as<ForNode>()->body.as<BufferStoreNode>();
  }

  // Wraps `inner` in loops[0 .. keep) and the guards that sit among them.
  Stmt rewrap(const std::vector<const ForNode*>& loops, size_t keep, Stmt inner) const {
    for (size_t k = keep; k >= 1; --k) {
      for (size_t g = guards_.size(); g-- > 0;) {
        if (guard_depth_[g] == k) inner = make_if(guards_[g], inner);
      }
      const ForNode* f = loops[k - 1];
      inner = make_for(f->var, f->min, f->extent, f->for_kind, inner);
    }
    return inner;
  }

  // The guards inside loops[keep ..): they constrain the matched loops.
  Expr inner_guards(size_t keep) const {
    Expr c;
    for (size_t g = 0; g < guards_.size(); ++g) {
      if (guard_depth_[g] > keep) c = c.defined() ? (c && guards_[g]) : guards_[g];
    }
    return c;
  }

  bool is_lane_loop(const ForNode* f) const {
    return is_const_int(f->min, 0) && is_const_int(f->extent, lanes_);
  }

  Stmt match(const std::vector<const ForNode*>& loops, const BufferStoreNode* store) {
    const ForNode* lane = loops.back();
    if (!is_lane_loop(lane)) return Stmt();
    Expr dst = store->indices[0];
    if (coef_of(dst, lane->var) != 1) return Stmt();
    const Expr& v = store->value;
    bool dst_chip = on_chip(store->buffer);
    const BufferLoadNode* load = v.as<BufferLoadNode>();
    const SelectNode* sel = v.as<SelectNode>();
    if (sel && dst_chip) {
      const auto* l = sel->true_value.as<BufferLoadNode>();
      if (l && !on_chip(l->buffer) &&
          is_const_int(simplify(make_cast(kIndexType, sel->false_value)), 0)) {
        return dma(loops, store, l, sel->cond);
      }
    }
    if (load && dst_chip != on_chip(load->buffer)) return dma(loops, store, load, Expr());
    if (dst_chip) return vector(loops, store);
    return Stmt();
  }

  // ---- DMA ----------------------------------------------------------------------------------

  Stmt dma(const std::vector<const ForNode*>& loops, const BufferStoreNode* store,
           const BufferLoadNode* load, const Expr& cond) {
    bool is_load = on_chip(store->buffer);
    Buffer chip = is_load ? store->buffer : load->buffer;
    Buffer ddr = is_load ? load->buffer : store->buffer;
    Expr chip_idx = is_load ? store->indices[0] : load->indices[0];
    Expr ddr_idx = is_load ? load->indices[0] : store->indices[0];
    size_t n = loops.size();
    const ForNode* lane = loops[n - 1];
    if (coef_of(chip_idx, lane->var) != 1 || coef_of(ddr_idx, lane->var) != 1) {
      fail(str("a DMA of a non-contiguous region the hardware cannot express: the ", lanes_,
               " lanes of '", chip->name, "' must be ", lanes_, " consecutive elements of '",
               ddr->name, "' (DDR moves by ", coef_of(ddr_idx, lane->var), " per lane); put the ",
               lanes_, "-lane dimension innermost in both layouts"));
    }
    // cols: consecutive units on chip and contiguous in DDR; rows: anything affine.
    size_t used = 1;
    const ForNode* cols = nullptr;
    const ForNode* rows = nullptr;
    if (n >= 2 && coef_of(chip_idx, loops[n - 2]->var) == lanes_ &&
        coef_of(ddr_idx, loops[n - 2]->var) == lanes_) {
      cols = loops[n - 2];
      ++used;
    }
    if (n > used) {
      const ForNode* r = loops[n - 1 - used];
      int64_t cc = coef_of(chip_idx, r->var), dc = coef_of(ddr_idx, r->var);
      if (cc > 0 && cc % lanes_ == 0 && dc > 0) {
        rows = r;
        ++used;
      }
    }
    auto extent_of = [](const ForNode* f) { return f ? *as_const_int(f->extent) : int64_t{1}; };
    int64_t R = extent_of(rows), C = extent_of(cols);
    // Guards inside the matched loops (split tails, regions that overhang the domain) limit the
    // region: nothing reads what they exclude, so neither a load nor a store moves it. The
    // padding condition of a load (select(cond, X[..], 0)) limits the data within that region;
    // the rest of the region is padding, written as zeros.
    Expr guard = inner_guards(n - used);
    Expr all = guard;
    if (cond.defined()) all = all.defined() ? (all && cond) : cond;
    // Without padding or guards, loops that continue a dimension contiguously merge into it:
    // fewer, longer transfers (each DMA pays its request latency).
    std::vector<const ForNode*> merged;
    int64_t chip_rs = rows ? coef_of(chip_idx, rows->var) : 0;
    int64_t ddr_rs = rows ? coef_of(ddr_idx, rows->var) : 0;
    if (!all.defined() && cols && rows && chip_rs == C * lanes_ && ddr_rs == C * lanes_) {
      // rows continue cols: fold rows into cols, then look for a new rows loop.
      merged.push_back(rows);
      C *= R;
      rows = nullptr;
      R = 1;
      // A loop with a guard inside it is not merged (its guard would have to limit the region).
      auto unguarded = [&] { return !inner_guards(n - used - 1).defined(); };
      while (n > used && unguarded()) {
        const ForNode* r = loops[n - 1 - used];
        int64_t cc = coef_of(chip_idx, r->var), dc = coef_of(ddr_idx, r->var);
        if (cc == C * lanes_ && dc == C * lanes_) {
          merged.push_back(r);
          C *= extent_of(r);
          ++used;
        } else {
          break;
        }
      }
      if (n > used && unguarded()) {
        const ForNode* r = loops[n - 1 - used];
        int64_t cc = coef_of(chip_idx, r->var), dc = coef_of(ddr_idx, r->var);
        if (cc > 0 && cc % lanes_ == 0 && dc > 0) {
          rows = r;
          R = extent_of(r);
          ++used;
        }
      }
    }
    Bounds rb{make_int(0), make_int(R)}, cb{make_int(0), make_int(C)};  // the guarded region
    if (guard.defined()) pad_bounds(guard, rows, cols, rb, cb, lane);
    Bounds drb = rb, dcb = cb;  // the data: the region less the padding
    if (cond.defined()) pad_bounds(cond, rows, cols, drb, dcb, lane);
    auto node = std::make_shared<NpuDmaNode>();
    node->load = is_load;
    node->chip = chip;
    node->ddr = ddr;
    node->chip_row_stride = rows ? coef_of(chip_idx, rows->var) / lanes_ : 1;
    node->ddr_row_stride = rows ? coef_of(ddr_idx, rows->var) : C * lanes_;
    VarMap origin{{lane->var, make_int(0)}};
    if (rows) origin[rows->var] = make_int(0);
    if (cols) origin[cols->var] = make_int(0);
    for (const ForNode* f : merged) origin[f->var] = make_int(0);
    Expr chip_base = at(chip_idx, origin);
    node->chip_row = simplify(chip_base / make_int(lanes_));
    // The region [top, bottom_end) x [left, right_end) of the loops' ranges; within it the data
    // [dtop, dbottom_end) x [dleft, dright_end); both clamped, the data inside the region.
    auto clamp = [](const Expr& lo, const Expr& hi, const Expr& from, const Expr& to) {
      Expr a = simplify(min(max(lo, from), to));
      return std::pair<Expr, Expr>{a, simplify(max(min(hi, to), a))};
    };
    auto [top, bottom_end] = clamp(rb.lo, rb.hi, make_int(0), make_int(R));
    auto [left, right_end] = clamp(cb.lo, cb.hi, make_int(0), make_int(C));
    auto [dtop, dbottom_end] = clamp(drb.lo, drb.hi, top, bottom_end);
    auto [dleft, dright_end] = clamp(dcb.lo, dcb.hi, left, right_end);
    // The on-chip block starts at the region's first row and column.
    node->chip_row = simplify(node->chip_row + top * make_int(node->chip_row_stride) + left);
    node->rows = simplify(dbottom_end - dtop);
    node->cols = simplify(dright_end - dleft);
    if (is_load) {
      node->pad_top = simplify(dtop - top);
      node->pad_bottom = simplify(bottom_end - dbottom_end);
      node->pad_left = simplify(dleft - left);
      node->pad_right = simplify(right_end - dright_end);
    }
    VarMap first{{lane->var, make_int(0)}};
    if (rows) first[rows->var] = dtop;
    if (cols) first[cols->var] = dleft;
    for (const ForNode* f : merged) first[f->var] = make_int(0);
    node->ddr_offset = at(ddr_idx, first);
    Stmt result(node);
    if (is_load && cond.defined()) {
      // A region that lies wholly in the padding has nothing to load (a DMA moves at least one
      // unit): the vector unit fills it with zeros instead.
      Var r("pad_r"), c("pad_c");
      Expr row = simplify(node->chip_row + r * make_int(node->chip_row_stride) + c);
      auto fill_node = std::make_shared<NpuVectorNode>();
      fill_node->op = "clip";
      fill_node->dst = chip;
      fill_node->dst_row = row;
      fill_node->src = chip;
      fill_node->src_row = row;
      Stmt fill(fill_node);
      Stmt zero =
          make_for(r, make_int(0), simplify(bottom_end - top), ForKind::kSerial,
                   make_for(c, make_int(0), simplify(right_end - left), ForKind::kSerial, fill));
      Expr has_data = simplify((node->rows > make_int(0)) && (node->cols > make_int(0)));
      result = simplify(make_if(has_data, result, zero));
    } else if (guard.defined()) {
      // A region the guards exclude wholly (a tile past the end) moves nothing.
      result = simplify(make_if((node->rows > make_int(0)) && (node->cols > make_int(0)), result));
    }
    return rewrap(loops, n - used, result);
  }

  // Turns a conjunction of linear conditions on the rows/cols loop variables into bounds.
  void pad_bounds(const Expr& cond, const ForNode* rows, const ForNode* cols, Bounds& rb,
                  Bounds& cb, const ForNode* lane) const {
    std::vector<Expr> conj;
    std::vector<Expr> todo{cond};
    while (!todo.empty()) {
      Expr e = todo.back();
      todo.pop_back();
      const auto* b = e.as<BinaryNode>();
      if (b && b->kind == ExprKind::kAnd) {
        todo.push_back(b->a);
        todo.push_back(b->b);
      } else {
        conj.push_back(e);
      }
    }
    for (const Expr& c : conj) {
      const auto* b = c.as<BinaryNode>();
      // f >= 0 with f = lhs - rhs (- 1 for strict).
      Expr f;
      if (b && (b->kind == ExprKind::kGE || b->kind == ExprKind::kGT)) {
        f = b->a - b->b - make_int(b->kind == ExprKind::kGT ? 1 : 0);
      } else if (b && (b->kind == ExprKind::kLE || b->kind == ExprKind::kLT)) {
        f = b->b - b->a - make_int(b->kind == ExprKind::kLT ? 1 : 0);
      } else {
        fail(str("the DMA's padding or tail condition '", to_string(c),
                 "' is not a bound on a loop; the DMA pads "
                 "rectangular borders only"));
      }
      f = simplify(f);
      if (coef_of(f, lane->var) != 0) {
        fail(str("the DMA's padding or tail condition '", to_string(c), "' depends on the ", lanes_,
                 " lanes; pad whole units (pad channels in the layout instead)"));
      }
      bool placed = false;
      for (auto [loop, bounds] : {std::pair<const ForNode*, Bounds*>{rows, &rb}, {cols, &cb}}) {
        if (!loop) continue;
        int64_t k = coef_of(f, loop->var);
        if (k == 0) continue;
        Expr g = simplify(substitute(f, {{loop->var, make_int(0)}}));  // f = k * v + g >= 0
        if (k == 1) {
          bounds->lo = simplify(max(bounds->lo, make_int(0) - g));
        } else if (k == -1) {
          bounds->hi = simplify(min(bounds->hi, g + make_int(1)));
        } else {
          fail(str("the DMA's padding or tail condition '", to_string(c),
                   "' scales a copied loop by ", k,
                   "; a DMA covers rectangular regions only (compute the cache stage at the tile "
                   "loop so "
                   "that its region is one rectangle)"));
        }
        placed = true;
      }
      if (!placed) {
        fail(str("the DMA's padding or tail condition '", to_string(c),
                 "' is not a bound on the copied rows or "
                 "columns; the DMA pads rectangular borders only"));
      }
    }
  }

  // ---- vector ops ---------------------------------------------------------------------------

  // An on-chip row read whose lanes move with the lane loop, or nullptr.
  const BufferLoadNode* row_load(const Expr& e, const ForNode* lane) const {
    const auto* l = e.as<BufferLoadNode>();
    if (!l || !on_chip(l->buffer) || coef_of(l->indices[0], lane->var) != 1) return nullptr;
    return l;
  }

  Stmt vector(const std::vector<const ForNode*>& loops, const BufferStoreNode* store) {
    const ForNode* lane = loops.back();
    // A guard inside the lane loop that does not use the lane (a reduction's `where`) guards
    // the whole row op; one that does would pick single lanes, which a row op cannot.
    Expr row_guard = inner_guards(loops.size() - 1);
    if (row_guard.defined() && uses_var(row_guard, lane->var)) return Stmt();
    VarMap origin{{lane->var, make_int(0)}};
    auto row_of = [&](const Expr& idx) { return simplify(at(idx, origin) / make_int(lanes_)); };
    auto node = std::make_shared<NpuVectorNode>();
    node->dst = store->buffer;
    node->dst_row = row_of(store->indices[0]);
    Expr v = store->value;
    std::vector<Stmt> extra;
    // max(x, 0) after the rest: relu.
    if (const auto* b = v.as<BinaryNode>();
        b && b->kind == ExprKind::kMax && is_const_int(simplify(make_cast(kIndexType, b->b)), 0) &&
        !row_load(b->a, lane)) {
      auto relu = std::make_shared<NpuVectorNode>();
      relu->op = "relu";
      relu->dst = store->buffer;
      relu->dst_row = node->dst_row;
      relu->src = store->buffer;
      relu->src_row = node->dst_row;
      extra.push_back(Stmt(relu));
      v = b->a;
    }
    // A saturating int8 result: int8(min(max(x, -128), 127)) is what the hardware does anyway.
    if (const auto* c = v.as<CastNode>(); c && store->buffer->scope == "sram") {
      const auto* mn = c->value.as<BinaryNode>();
      const auto* mx = mn && mn->kind == ExprKind::kMin ? mn->a.as<BinaryNode>() : nullptr;
      if (mx && mx->kind == ExprKind::kMax && is_const_int(mn->b, 127) &&
          is_const_int(mx->b, -128)) {
        v = mx->a;
      }
    }
    auto strip = [](const Expr& e) {
      const auto* c = e.as<CastNode>();
      return c && c->dtype == DType::kInt32 ? c->value : e;
    };
    if (const int64_t* k = as_const_int(simplify(make_cast(DType::kInt64, v)))) {
      // A constant fill (a reduction's identity): clip anything to [k, k].
      node->op = "clip";
      node->src = store->buffer;
      node->src_row = node->dst_row;
      node->imm = *k;
      node->imm_hi = *k;
    } else if (const auto* l = row_load(strip(v), lane)) {
      node->op = "add";
      node->src = l->buffer;
      node->src_row = row_of(l->indices[0]);
      node->imm = 0;
    } else if (const auto* call = v.as<CallNode>(); call && call->name == "requantize") {
      const auto* l = row_load(call->args[0], lane);
      if (!l) return Stmt();
      node->op = "requantize";
      node->src = l->buffer;
      node->src_row = row_of(l->indices[0]);
      node->imm = *as_const_int(call->args[1]);
      node->shift = *as_const_int(call->args[2]);
      node->zero_point = *as_const_int(call->args[3]);
    } else if (const auto* b = v.as<BinaryNode>()) {
      static const std::pair<ExprKind, const char*> kOps[] = {{ExprKind::kAdd, "add"},
                                                              {ExprKind::kSub, "sub"},
                                                              {ExprKind::kMul, "mul"},
                                                              {ExprKind::kMin, "min"},
                                                              {ExprKind::kMax, "max"}};
      for (const auto& [k, name] : kOps) {
        if (b->kind == k) node->op = name;
      }
      const auto* l = row_load(strip(b->a), lane);
      if (node->op.empty() || !l) return Stmt();
      node->src = l->buffer;
      node->src_row = row_of(l->indices[0]);
      if (const auto* r = row_load(strip(b->b), lane)) {
        node->src2 = r->buffer;
        node->src2_row = row_of(r->indices[0]);
      } else if (const int64_t* k = as_const_int(simplify(make_cast(DType::kInt64, b->b)))) {
        node->imm = *k;
      } else {
        return Stmt();
      }
    } else {
      return Stmt();
    }
    // Each row op gets its own copy of the loops, so that codegen can fold each into one
    // instruction (two statements in one body would force the loops to unroll).
    auto wrap = [&](Stmt op) {
      if (row_guard.defined()) op = make_if(row_guard, op);
      return rewrap(loops, loops.size() - 1, op);
    };
    std::vector<Stmt> seq{wrap(Stmt(node))};
    for (const Stmt& e : extra) seq.push_back(wrap(e));
    return make_seq(seq);
  }

  int64_t lanes_;  // elements of one on-chip row: the target's block
  std::string stage_;
  std::vector<const ForNode*> loops_;
  std::vector<Expr> guards_;
  std::vector<size_t> guard_depth_;
};

}  // namespace

Stmt inject_npu_ops(const Stmt& s, const npu::Target& target) {
  Injector in(target);
  return in.mutate(s);
}

}  // namespace tessera
