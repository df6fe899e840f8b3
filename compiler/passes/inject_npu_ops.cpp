#include "compiler/passes/inject_npu_ops.h"

#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/npu_rules.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool on_chip(const Buffer& b) { return b->scope == "sram" || b->scope == "acc"; }

// How far e moves per step of v, when e is affine in v (the expressions here are simplified).
std::optional<int64_t> stride_of(const Expr& e, const Var& v) { return linear_coef(e, v); }
// Is e affine in v with a stride s > 0 that `ok` accepts?
template <typename F>
bool positive_stride(const Expr& e, const Var& v, F&& ok) {
  std::optional<int64_t> c = stride_of(e, v);
  return c && *c > 0 && ok(*c);
}

Expr at(const Expr& e, const VarMap& m) { return simplify(substitute(e, m)); }

// One bound of the valid region along a loop variable, from a padding condition.
struct Bounds {
  Expr lo;  // first valid index (may be < 0)
  Expr hi;  // one past the last valid index
};

class Injector : public IRMutator {
 public:
  explicit Injector(const npu::Target& target) : target_(target), lanes_(target.block()) {}
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
  void check_onchip(const Buffer& b) const {
    if (std::string why = onchip_problem(b, target_, false); !why.empty()) fail(why);
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
    if (stride_of(dst, lane->var) != int64_t{1}) return Stmt();
    const Expr& v = store->value;
    bool dst_chip = on_chip(store->buffer);
    if (dst_chip) check_onchip(store->buffer);
    const BufferLoadNode* load = v.as<BufferLoadNode>();
    const SelectNode* sel = v.as<SelectNode>();
    if (sel && dst_chip) {
      const auto* l = sel->true_value.as<BufferLoadNode>();
      if (l && !on_chip(l->buffer) &&
          is_const_int(simplify(make_cast(kIndexType, sel->false_value)), 0)) {
        return dma(loops, store, l, sel->cond);
      }
    }
    if (load && dst_chip != on_chip(load->buffer)) {
      if (!dst_chip) check_onchip(load->buffer);
      return dma(loops, store, load, Expr());
    }
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
    if (stride_of(chip_idx, lane->var) != int64_t{1} ||
        stride_of(ddr_idx, lane->var) != int64_t{1}) {
      std::optional<int64_t> d = stride_of(ddr_idx, lane->var);
      fail(str("a DMA of a non-contiguous region the hardware cannot express: the ", lanes_,
               " lanes of '", chip->name, "' must be ", lanes_, " consecutive elements of '",
               ddr->name, "' (DDR moves by ",
               d ? std::to_string(*d) + " per lane" : std::string("a non-affine step per lane"),
               "); put the ", lanes_, "-lane dimension innermost in both layouts"));
    }
    // cols: consecutive units on chip and contiguous in DDR; rows: anything affine.
    size_t used = 1;
    const ForNode* cols = nullptr;
    const ForNode* rows = nullptr;
    auto is_row_stride = [&](int64_t c) { return c % lanes_ == 0; };
    auto any = [](int64_t) { return true; };
    if (n >= 2 && stride_of(chip_idx, loops[n - 2]->var) == lanes_ &&
        stride_of(ddr_idx, loops[n - 2]->var) == lanes_) {
      cols = loops[n - 2];
      ++used;
    }
    if (n > used) {
      const ForNode* r = loops[n - 1 - used];
      if (positive_stride(chip_idx, r->var, is_row_stride) &&
          positive_stride(ddr_idx, r->var, any)) {
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
    int64_t chip_rs = rows ? *stride_of(chip_idx, rows->var) : 0;
    int64_t ddr_rs = rows ? *stride_of(ddr_idx, rows->var) : 0;
    // A tail guard that only ends the rows early (whole rows of full columns, as a tile of
    // whole-width rows has in its last tile) still lets the rows merge into the columns: the
    // region is then the first rows_end * C columns. Nothing further merges after it.
    Expr merged_cols_end;
    Expr rows_guard;  // the own guard of a rows loop found after merging (a bound on it alone)
    if (guard.defined() && !cond.defined() && cols && rows && chip_rs == C * lanes_ &&
        ddr_rs == C * lanes_) {
      Bounds grb{make_int(0), make_int(R)}, gcb{make_int(0), make_int(C)};
      pad_bounds(guard, rows, cols, grb, gcb, lane);
      if (is_const_int(simplify(grb.lo), 0) && is_const_int(simplify(gcb.lo), 0) &&
          is_const_int(simplify(gcb.hi), C)) {
        merged.push_back(rows);
        merged_cols_end = simplify(max(min(grb.hi, make_int(R)), make_int(0)) * make_int(C));
        C *= R;
        rows = nullptr;
        R = 1;
        // A new rows loop, which the rows' end does not use; its own guard must bound it alone.
        if (n > used && !uses_var(merged_cols_end, loops[n - 1 - used]->var)) {
          const ForNode* r = loops[n - 1 - used];
          Expr own = guards_at(n - used);
          if (positive_stride(chip_idx, r->var, is_row_stride) &&
              positive_stride(ddr_idx, r->var, any) && (!own.defined() || bounds_loop(own, r))) {
            rows = r;
            R = extent_of(r);
            rows_guard = own;
            ++used;
          }
        }
      }
    }
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
        if (stride_of(chip_idx, r->var) == C * lanes_ && stride_of(ddr_idx, r->var) == C * lanes_) {
          merged.push_back(r);
          C *= extent_of(r);
          ++used;
        } else {
          break;
        }
      }
      // A loop that continues the columns but whose guard ends it early (the tail of a split)
      // merges too, as the first block does: the region is then the first end * C columns, and
      // nothing further merges after it.
      if (n > used) {
        const ForNode* r = loops[n - 1 - used];
        Expr own = guards_at(n - used);
        if (own.defined() && stride_of(chip_idx, r->var) == C * lanes_ &&
            stride_of(ddr_idx, r->var) == C * lanes_ && bounds_loop(own, r)) {
          const int64_t E = extent_of(r);
          Bounds grb{make_int(0), make_int(E)}, gcb{make_int(0), make_int(C)};
          pad_bounds(own, r, nullptr, grb, gcb, lane);
          if (is_const_int(simplify(grb.lo), 0)) {
            merged.push_back(r);
            merged_cols_end = simplify(max(min(grb.hi, make_int(E)), make_int(0)) * make_int(C));
            guard = own;  // a tile past the end moves nothing (the has_data guard below)
            C *= E;
            ++used;
          }
        }
      }
      // A new rows loop, which the columns' end does not use; a guard of its own (the tail of a
      // split, whose last tile has fewer rows) must bound it alone, and becomes the rows' end.
      if (n > used && !(merged_cols_end.defined() &&
                        uses_var(merged_cols_end, loops[n - 1 - used]->var))) {
        const ForNode* r = loops[n - 1 - used];
        Expr own = guards_at(n - used);
        if (positive_stride(chip_idx, r->var, is_row_stride) &&
            positive_stride(ddr_idx, r->var, any) && (!own.defined() || bounds_loop(own, r))) {
          rows = r;
          R = extent_of(r);
          rows_guard = own;
          ++used;
        }
      }
    }
    Bounds rb{make_int(0), make_int(R)}, cb{make_int(0), make_int(C)};  // the guarded region
    if (merged_cols_end.defined()) {
      cb.hi = merged_cols_end;
    } else if (guard.defined()) {
      pad_bounds(guard, rows, cols, rb, cb, lane);
    }
    if (rows_guard.defined()) {
      pad_bounds(rows_guard, rows, nullptr, rb, cb, lane);
      guard = guard.defined() ? (guard && rows_guard) : rows_guard;
    }
    Bounds drb = rb, dcb = cb;  // the data: the region less the padding
    if (cond.defined()) pad_bounds(cond, rows, cols, drb, dcb, lane);
    const int64_t chip_row_stride = rows ? *stride_of(chip_idx, rows->var) / lanes_ : 1;
    const int64_t ddr_row_stride = rows ? *stride_of(ddr_idx, rows->var) : C * lanes_;
    VarMap origin{{lane->var, make_int(0)}};
    if (rows) origin[rows->var] = make_int(0);
    if (cols) origin[cols->var] = make_int(0);
    for (const ForNode* f : merged) origin[f->var] = make_int(0);
    Expr chip_base = simplify(at(chip_idx, origin) / make_int(lanes_));
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
    Expr chip_row = simplify(chip_base + top * make_int(chip_row_stride) + left);
    Expr n_rows = simplify(dbottom_end - dtop), n_cols = simplify(dright_end - dleft);
    VarMap first{{lane->var, make_int(0)}};
    if (rows) first[rows->var] = dtop;
    if (cols) first[cols->var] = dleft;
    for (const ForNode* f : merged) first[f->var] = make_int(0);
    Expr ddr_offset = at(ddr_idx, first);
    Stmt result = is_load ? make_npu_dma(true, chip, chip_row, chip_row_stride, ddr, ddr_offset,
                                         ddr_row_stride, n_rows, n_cols, simplify(dtop - top),
                                         simplify(bottom_end - dbottom_end), simplify(dleft - left),
                                         simplify(right_end - dright_end))
                          : make_npu_dma(false, chip, chip_row, chip_row_stride, ddr, ddr_offset,
                                         ddr_row_stride, n_rows, n_cols);
    Expr has_data = simplify((n_rows > make_int(0)) && (n_cols > make_int(0)));
    if (is_load && cond.defined()) {
      // A region that lies wholly in the padding has nothing to load (a DMA moves at least one
      // unit): the vector unit fills it with zeros instead.
      Var r("pad_r"), c("pad_c");
      Expr row = simplify(chip_row + r * make_int(chip_row_stride) + c);
      Stmt fill = make_npu_vector(npu::VecOp::kClip, chip, row, chip, row);
      Stmt zero =
          make_for(r, make_int(0), simplify(bottom_end - top), ForKind::kSerial,
                   make_for(c, make_int(0), simplify(right_end - left), ForKind::kSerial, fill));
      result = simplify(make_if(has_data, result, zero));
    } else if (guard.defined()) {
      // A region the guards exclude wholly (a tile past the end) moves nothing.
      result = simplify(make_if(has_data, result));
    }
    return rewrap(loops, n - used, result);
  }

  // The guards directly inside loops[depth - 1] (not deeper).
  Expr guards_at(size_t depth) const {
    Expr c;
    for (size_t g = 0; g < guards_.size(); ++g) {
      if (guard_depth_[g] == depth) c = c.defined() ? (c && guards_[g]) : guards_[g];
    }
    return c;
  }

  // Whether `cond` is a conjunction of comparisons each of which bounds `loop`'s variable with
  // coefficient 1 or -1 (what pad_bounds turns into the rows' start and end without failing).
  bool bounds_loop(const Expr& cond, const ForNode* loop) const {
    std::vector<Expr> todo{cond};
    while (!todo.empty()) {
      Expr e = todo.back();
      todo.pop_back();
      const auto* b = e.as<BinaryNode>();
      if (!b) return false;
      if (b->kind == ExprKind::kAnd) {
        todo.push_back(b->a);
        todo.push_back(b->b);
        continue;
      }
      if (b->kind != ExprKind::kGE && b->kind != ExprKind::kGT && b->kind != ExprKind::kLE &&
          b->kind != ExprKind::kLT) {
        return false;
      }
      std::optional<int64_t> k = stride_of(simplify(b->a - b->b), loop->var);
      if (!k || (*k != 1 && *k != -1)) return false;
    }
    return true;
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
      if (stride_of(f, lane->var) != int64_t{0}) {
        fail(str("the DMA's padding or tail condition '", to_string(c), "' depends on the ", lanes_,
                 " lanes; pad whole units (pad channels in the layout instead)"));
      }
      bool placed = false;
      for (auto [loop, bounds] : {std::pair<const ForNode*, Bounds*>{rows, &rb}, {cols, &cb}}) {
        if (!loop) continue;
        std::optional<int64_t> kk = stride_of(f, loop->var);
        if (!kk) {
          fail(str("the DMA's padding or tail condition '", to_string(c),
                   "' is not affine in a copied loop; the DMA pads rectangular borders only"));
        }
        int64_t k = *kk;
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
    if (!l || !on_chip(l->buffer) || linear_coef(l->indices[0], lane->var) != int64_t{1}) {
      return nullptr;
    }
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
    const Buffer& dst = store->buffer;
    Expr dst_row = row_of(store->indices[0]);
    Expr v = store->value;
    std::vector<Stmt> extra;
    // max(x, 0) after the rest: relu.
    if (const auto* b = v.as<BinaryNode>();
        b && b->kind == ExprKind::kMax && is_const_int(simplify(make_cast(kIndexType, b->b)), 0) &&
        !row_load(b->a, lane)) {
      extra.push_back(make_npu_vector(npu::VecOp::kRelu, dst, dst_row, dst, dst_row));
      v = b->a;
    }
    // A saturating int8 result: int8(min(max(x, -128), 127)) is what the hardware does anyway.
    if (const auto* c = v.as<CastNode>(); c && dst->scope == "sram") {
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
    Stmt op;
    Expr v64 = simplify(make_cast(DType::kInt64, v));  // kept alive: k points into it
    if (const int64_t* k = as_const_int(v64)) {
      // A constant fill (a reduction's identity): clip anything to [k, k].
      op = make_npu_vector(npu::VecOp::kClip, dst, dst_row, dst, dst_row, nullptr, Expr(),
                           NpuVectorImm{*k, *k, 0, 0});
    } else if (const auto* l = row_load(strip(v), lane)) {
      op = make_npu_vector(npu::VecOp::kAdd, dst, dst_row, l->buffer, row_of(l->indices[0]));
    } else if (const auto* call = v.as<CallNode>(); call && call->name == "requantize") {
      const auto* l = row_load(call->args[0], lane);
      if (!l) return Stmt();
      NpuVectorImm q{*as_const_int(call->args[1]), 0, *as_const_int(call->args[2]),
                     *as_const_int(call->args[3])};
      op = make_npu_vector(npu::VecOp::kRequantize, dst, dst_row, l->buffer, row_of(l->indices[0]),
                           nullptr, Expr(), q);
    } else if (const auto* b = v.as<BinaryNode>()) {
      static const std::pair<ExprKind, npu::VecOp> kOps[] = {{ExprKind::kAdd, npu::VecOp::kAdd},
                                                             {ExprKind::kSub, npu::VecOp::kSub},
                                                             {ExprKind::kMul, npu::VecOp::kMul},
                                                             {ExprKind::kMin, npu::VecOp::kMin},
                                                             {ExprKind::kMax, npu::VecOp::kMax}};
      const npu::VecOp* vop = nullptr;
      for (const auto& [k, o] : kOps) {
        if (b->kind == k) vop = &o;
      }
      const auto* l = row_load(strip(b->a), lane);
      if (!vop || !l) return Stmt();
      if (const auto* r = row_load(strip(b->b), lane)) {
        op = make_npu_vector(*vop, dst, dst_row, l->buffer, row_of(l->indices[0]), r->buffer,
                             row_of(r->indices[0]));
      } else if (Expr b64 = simplify(make_cast(DType::kInt64, b->b));
                 const int64_t* k = as_const_int(b64)) {
        op = make_npu_vector(*vop, dst, dst_row, l->buffer, row_of(l->indices[0]), nullptr, Expr(),
                             NpuVectorImm{*k, 0, 0, 0});
      } else {
        return Stmt();
      }
    } else {
      return Stmt();
    }
    // Each row op gets its own copy of the loops, so that codegen can fold each into one
    // instruction (two statements in one body would force the loops to unroll).
    auto wrap = [&](Stmt s) {
      if (row_guard.defined()) s = make_if(row_guard, s);
      return rewrap(loops, loops.size() - 1, s);
    };
    std::vector<Stmt> seq{wrap(op)};
    for (const Stmt& e : extra) seq.push_back(wrap(e));
    return make_seq(seq);
  }

  const npu::Target& target_;
  int64_t lanes_;  // elements of one on-chip row: the target's block
  std::string stage_;
  std::vector<const ForNode*> loops_;
  std::vector<Expr> guards_;
  std::vector<size_t> guard_depth_;
};

// What is left after injection must all be NPU statements in on-chip buffers; anything else is a
// schedule the NPU cannot run, reported here by stage (verify would call it a compiler bug).
class CheckInjected : public IRVisitor {
 public:
  explicit CheckInjected(const npu::Target& t) : target_(t) {}
  using IRVisitor::visit;

 protected:
  void visit_AttrStmt(const AttrStmtNode* op, const Stmt& s) override {
    bool produce = op->key == "produce";
    if (produce) stages_.push_back(op->value);
    IRVisitor::visit_AttrStmt(op, s);
    if (produce) stages_.pop_back();
  }
  void visit_Allocate(const AllocateNode* op, const Stmt& s) override {
    if (std::string why = onchip_problem(op->buffer, target_); !why.empty()) {
      throw LowerError(str("stage '", stage(op->buffer->name), "': ", why));
    }
    IRVisitor::visit_Allocate(op, s);
  }
  void visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    throw LowerError(str("stage '", stage("<top level>"), "': ", elementwise_store_problem(op)));
  }

 private:
  std::string stage(const std::string& otherwise) const {
    return stages_.empty() ? otherwise : stages_.back();
  }
  const npu::Target& target_;
  std::vector<std::string> stages_;
};

}  // namespace

Stmt inject_npu_ops(const Stmt& s, const npu::Target& target) {
  Injector in(target);
  Stmt out = in.mutate(s);
  CheckInjected check(target);
  check.visit(out);
  return out;
}

}  // namespace tessera
