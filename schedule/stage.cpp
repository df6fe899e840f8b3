// The loop primitives of a Stage: validate, then record.
#include <algorithm>
#include <set>

#include "runtime/base/error.h"
#include "schedule/schedule.h"

namespace tessera {

namespace {

// Loops count in int32 (kIndexType): no loop, and no split's covered range, may exceed it.
constexpr int64_t kMaxLoopExtent = 2147483647;

std::string axis_name(const IterVar& iv) { return iv ? iv->var.name() : "<null>"; }

std::string leaf_list(const StageNode& st) {
  std::string s;
  for (const IterVar& iv : st.leaf_iter_vars) s += (s.empty() ? "" : ", ") + axis_name(iv);
  return s;
}

const IterVarRelation* relation_consuming(const StageNode& st, const IterVar& iv) {
  for (const IterVarRelation& r : st.relations) {
    if (r.kind == IterVarRelation::kSplit && r.parent == iv) return &r;
    if (r.kind == IterVarRelation::kFuse && (r.outer == iv || r.inner == iv)) return &r;
  }
  return nullptr;
}

// The extern stage (te.extern) that reads `st`'s output, or null.
const StageNode* extern_reader(const Schedule& sch, const StageNode& st) {
  for (const StagePtr& other : sch.stages()) {
    if (other->op->kind != OpKind::kExtern) continue;
    for (const Operation& in : other->inputs()) {
      if (primary_of(in) == st.op || primary_of(in) == st.origin_op) return other.get();
    }
  }
  return nullptr;
}

std::string extern_func(const StageNode& st) { return st.op->extern_call->func; }

}  // namespace

void Stage::check_leaf(const IterVar& axis, const char* primitive) const {
  const StageNode& st = *node_;
  if (st.op->kind == OpKind::kExtern) {
    throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": '", st.name(),
                            "' is an extern stage (te.extern calling '", extern_func(st),
                            "'): its loops are inside the C function, so it has no axes to ",
                            "schedule; split, fuse, reorder, annotations and compute_at targets ",
                            "apply to te.compute stages"));
  }
  if (!axis) throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis is None"));
  if (st.is_leaf(axis)) return;
  if (std::find(st.all_iter_vars.begin(), st.all_iter_vars.end(), axis) != st.all_iter_vars.end()) {
    const IterVarRelation* r = relation_consuming(st, axis);
    std::string by = r && r->kind == IterVarRelation::kSplit ? "split" : "fuse";
    throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis '", axis_name(axis),
                            "' was already consumed by ", by,
                            "; use the axes it produced. Current loops: ", leaf_list(st)));
  }
  for (const StagePtr& other : sch_->stages()) {
    if (other == node_) continue;
    if (std::find(other->all_iter_vars.begin(), other->all_iter_vars.end(), axis) !=
        other->all_iter_vars.end()) {
      throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis '", axis_name(axis),
                              "' is an axis of stage '", other->name(),
                              "', not of this stage. Current loops: ", leaf_list(st)));
    }
  }
  throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis '", axis_name(axis),
                          "' is not an axis of this stage (after rfactor, the stage's axes are "
                          "s[T].op.axis). Current loops: ",
                          leaf_list(st)));
}

// TVM's attach legalization (LegalizeInvalidAttach): a stage computed at a loop that is then
// split moves to the split's inner loop, one computed at a loop that is fused moves to the fused
// loop, so the attach point stays a loop of this stage.
void Stage::move_attach_points(const IterVar& from, const IterVar& to) {
  for (const StagePtr& other : sch_->stages()) {
    if (other->attach_type == AttachType::kScope && other->attach_stage == node_ &&
        other->attach_ivar == from) {
      other->attach_ivar = to;
    }
  }
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& axis, int64_t factor) {
  check_leaf(axis, "split");
  if (factor <= 0) {
    throw ScheduleError(str("stage '", name(), "': split: factor ", factor, " for axis '",
                            axis_name(axis), "' must be a positive integer"));
  }
  int64_t outer_extent = (axis->extent + factor - 1) / factor;
  // Lowering computes outer * factor + inner in int32, so the loops may cover at most int32's
  // range (a factor above the extent runs as the extent).
  int64_t covered = outer_extent * std::min(factor, axis->extent);
  if (covered > kMaxLoopExtent) {
    throw ScheduleError(str("stage '", name(), "': split: factor ", factor, " for axis '",
                            axis_name(axis), "' (extent ", axis->extent, ") makes loops covering ",
                            covered, " iterations, beyond the int32 index range (", kMaxLoopExtent,
                            "); use a factor that divides the extent"));
  }
  IterVar outer = make_iter_var(axis_name(axis) + ".outer", 0, outer_extent, axis->kind);
  IterVar inner = make_iter_var(axis_name(axis) + ".inner", 0, factor, axis->kind);
  if (axis->sym_extent.defined()) {  // a symbolic extent: ceil(extent / factor) outer loops
    const Expr& e = axis->sym_extent;
    auto o = std::make_shared<IterVarNode>(*outer);
    o->sym_extent = make_binary(ExprKind::kDiv,
                                make_binary(ExprKind::kAdd, e, make_int(factor - 1, e.dtype())),
                                make_int(factor, e.dtype()));
    outer = o;
  }
  StageNode& st = *node_;
  move_attach_points(axis, inner);
  st.relations.push_back({IterVarRelation::kSplit, axis, outer, inner, nullptr, factor});
  st.all_iter_vars.push_back(outer);
  st.all_iter_vars.push_back(inner);
  auto it = std::find(st.leaf_iter_vars.begin(), st.leaf_iter_vars.end(), axis);
  it = st.leaf_iter_vars.erase(it);
  st.leaf_iter_vars.insert(it, {outer, inner});
  return {outer, inner};
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& axis, int64_t nparts) {
  check_leaf(axis, "split");
  if (nparts <= 0) {
    throw ScheduleError(str("stage '", name(), "': split: nparts ", nparts, " for axis '",
                            axis_name(axis), "' must be a positive integer"));
  }
  // nparts parts of ceil(extent / nparts) each; when that leaves trailing parts empty the outer
  // loop is shorter than nparts (extent 10 in 6 parts of 2 runs 5), which is the same program.
  // A symbolic axis derives the factor when its extent is known (schedule/specialize.h).
  auto parts = split(axis, (axis->extent + nparts - 1) / nparts);
  node_->relations.back().nparts = nparts;
  if (axis->sym_extent.defined()) {
    const Expr& e = axis->sym_extent;
    auto in = std::make_shared<IterVarNode>(*parts.second);
    in->sym_extent = make_binary(ExprKind::kDiv,
                                 make_binary(ExprKind::kAdd, e, make_int(nparts - 1, e.dtype())),
                                 make_int(nparts, e.dtype()));
    auto out = std::make_shared<IterVarNode>(*parts.first);
    out->sym_extent = Expr();
    out->extent = nparts;
    // The stage's records hold the new nodes.
    StageNode& st = *node_;
    IterVarRelation& r = st.relations.back();
    for (auto* v : {&st.all_iter_vars, &st.leaf_iter_vars}) {
      for (IterVar& x : *v) {
        if (x == r.outer) x = out;
        if (x == r.inner) x = in;
      }
    }
    move_attach_points(r.inner, in);
    r.outer = out;
    r.inner = in;
    parts = {out, in};
  }
  return parts;
}

std::vector<IterVar> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor,
                                 int64_t y_factor) {
  check_leaf(x, "tile");
  check_leaf(y, "tile");
  if (x == y) {
    throw ScheduleError(
        str("stage '", name(), "': tile: x and y are the same axis '", axis_name(x), "'"));
  }
  auto [xo, xi] = split(x, x_factor);
  auto [yo, yi] = split(y, y_factor);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  check_leaf(outer, "fuse");
  check_leaf(inner, "fuse");
  StageNode& st = *node_;
  auto io = std::find(st.leaf_iter_vars.begin(), st.leaf_iter_vars.end(), outer);
  auto ii = std::find(st.leaf_iter_vars.begin(), st.leaf_iter_vars.end(), inner);
  if (ii != io + 1) {
    throw ScheduleError(
        str("stage '", name(), "': fuse: axes '", axis_name(outer), "' and '", axis_name(inner),
            "' must be adjacent loops with the outer one first; current loops: ", leaf_list(st)));
  }
  if (outer->kind != inner->kind) {
    throw ScheduleError(str("stage '", name(), "': fuse: cannot fuse data-parallel and reduction ",
                            "axes ('", axis_name(outer), "', '", axis_name(inner),
                            "'); TVM builds one loop over both, tessera keeps the kinds apart: ",
                            "fuse axes of the same kind (reorder the reduction axes inward ",
                            "first), or rfactor the reduction axis to make it data-parallel in a ",
                            "stage of its own"));
  }
  if (outer->extent > kMaxLoopExtent / std::max<int64_t>(1, inner->extent)) {
    throw ScheduleError(str("stage '", name(), "': fuse: axes '", axis_name(outer), "' (extent ",
                            outer->extent, ") and '", axis_name(inner), "' (extent ", inner->extent,
                            ") would make a loop of ", outer->extent * inner->extent,
                            " iterations, beyond the int32 index range loops count in (",
                            kMaxLoopExtent, "); fuse fewer or smaller axes"));
  }
  IterVar fused = make_iter_var(axis_name(outer) + "." + axis_name(inner) + ".fused", 0,
                                outer->extent * inner->extent, outer->kind);
  if (outer->sym_extent.defined() || inner->sym_extent.defined()) {
    auto ext = [](const IterVar& iv) {
      return iv->sym_extent.defined() ? iv->sym_extent : make_int(iv->extent);
    };
    Expr a = ext(outer), b = ext(inner);
    if (a.dtype() != b.dtype()) {
      a = make_cast(DType::kInt64, a);
      b = make_cast(DType::kInt64, b);
    }
    auto f = std::make_shared<IterVarNode>(*fused);
    f->sym_extent = make_binary(ExprKind::kMul, a, b);
    fused = f;
  }
  move_attach_points(outer, fused);
  move_attach_points(inner, fused);
  st.relations.push_back({IterVarRelation::kFuse, nullptr, outer, inner, fused, 0});
  st.all_iter_vars.push_back(fused);
  io = st.leaf_iter_vars.erase(io, io + 2);
  st.leaf_iter_vars.insert(io, fused);
  return fused;
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::set<const IterVarNode*> seen;
  std::vector<size_t> positions;
  StageNode& st = *node_;
  for (const IterVar& iv : order) {
    check_leaf(iv, "reorder");
    if (!seen.insert(iv.get()).second) {
      throw ScheduleError(str("stage '", name(), "': reorder: axis '", axis_name(iv),
                              "' appears twice; list each loop once"));
    }
    positions.push_back(std::find(st.leaf_iter_vars.begin(), st.leaf_iter_vars.end(), iv) -
                        st.leaf_iter_vars.begin());
  }
  std::sort(positions.begin(), positions.end());
  for (size_t i = 0; i < order.size(); ++i) st.leaf_iter_vars[positions[i]] = order[i];
}

namespace {
void annotate(StageNode& st, const IterVar& axis, Annotation a, const char* primitive) {
  if (a != Annotation::kUnroll && axis->kind == IterKind::kReduce) {
    throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis '", axis_name(axis),
                            "' is a reduction axis; ", primitive,
                            " applies to data-parallel axes only (unroll is allowed)"));
  }
  auto it = st.annotations.find(axis->var.id());
  if (it != st.annotations.end() && it->second != a) {
    throw ScheduleError(str("stage '", st.name(), "': ", primitive, ": axis '", axis_name(axis),
                            "' is already marked ", annotation_name(it->second),
                            "; an axis takes one of unroll, vectorize, parallel"));
  }
  st.annotations[axis->var.id()] = a;
}
}  // namespace

void Stage::unroll(const IterVar& axis) {
  check_leaf(axis, "unroll");
  annotate(*node_, axis, Annotation::kUnroll, "unroll");
}
void Stage::vectorize(const IterVar& axis) {
  check_leaf(axis, "vectorize");
  annotate(*node_, axis, Annotation::kVectorize, "vectorize");
}
void Stage::parallel(const IterVar& axis) {
  check_leaf(axis, "parallel");
  annotate(*node_, axis, Annotation::kParallel, "parallel");
}
void Stage::pragma(const IterVar& axis, const std::string& key, const std::string& value) {
  check_leaf(axis, "pragma");
  if (key.empty()) throw ScheduleError(str("stage '", name(), "': pragma: empty key"));
  // TVM maps these two pragmas to the primitives; any other key is recorded as an attribute.
  if (key == "unroll") return annotate(*node_, axis, Annotation::kUnroll, "pragma 'unroll'");
  if (key == "vectorize") {
    return annotate(*node_, axis, Annotation::kVectorize, "pragma 'vectorize'");
  }
  node_->pragmas[axis->var.id()].push_back({key, value});
}

void Stage::compute_at(const Stage& parent, const IterVar& axis) {
  StageNode& st = *node_;
  std::string what = str("stage '", st.name(), "': compute_at");
  if (parent.node_ == node_) {
    throw ScheduleError(what + ": cannot compute a stage at its own loop");
  }
  if (st.is_output) {
    throw ScheduleError(str(what, ": '", st.name(),
                            "' is an output of the schedule; outputs are computed at the root"));
  }
  if (st.op->kind == OpKind::kExtern) {
    throw ScheduleError(str(what, ": '", st.name(), "' is an extern stage (te.extern calling '",
                            extern_func(st), "'); it runs once at the root over whole buffers"));
  }
  if (parent.node_->op->kind == OpKind::kExtern) {
    throw ScheduleError(str(what, ": '", parent.name(), "' is an extern stage (te.extern calling '",
                            extern_func(*parent.node_), "') and has no loops to compute '",
                            st.name(), "' at; compute '", st.name(), "' at the root"));
  }
  if (const StageNode* e = extern_reader(*sch_, st)) {
    throw ScheduleError(str(what, ": '", st.name(), "' is read by extern stage '", e->name(),
                            "', whose C function needs the whole of '", st.name(),
                            "' in a buffer before it runs; keep '", st.name(), "' at the root"));
  }
  const auto& stages = sch_->stages();
  if (std::find(stages.begin(), stages.end(), parent.node_) == stages.end()) {
    throw ScheduleError(str(what, ": stage '", parent.name(),
                            "' belongs to another schedule; compute_at a stage of this schedule ",
                            "(s[", parent.name(), "] with the s that holds '", st.name(), "')"));
  }
  Stage(sch_, parent.node_).check_leaf(axis, "compute_at target");
  if (sch_->consumers_of(st).empty()) {
    throw ScheduleError(str(what, ": nothing reads '", st.name(), "'"));
  }
  // The target stage must read this one, or have its readers computed inside the target loop;
  // readers may be attached after this call, so lowering checks that.
  // No cycles: the parent must not itself be computed inside this stage.
  for (StagePtr p = parent.node_; p;
       p = p->attach_type == AttachType::kScope ? p->attach_stage : nullptr) {
    if (p == node_) {
      throw ScheduleError(str(what, ": stage '", parent.name(), "' is computed inside '", st.name(),
                              "'; attaching back would make a cycle"));
    }
  }
  st.attach_type = AttachType::kScope;
  st.attach_stage = parent.node_;
  st.attach_ivar = axis;
}

void Stage::compute_inline() {
  StageNode& st = *node_;
  std::string what = str("stage '", st.name(), "': compute_inline");
  if (st.is_output) {
    throw ScheduleError(what + ": an output of the schedule cannot be inlined");
  }
  if (st.op->kind == OpKind::kExtern) {
    throw ScheduleError(str(what, ": '", st.name(), "' is an extern stage (te.extern calling '",
                            extern_func(st), "'): a C function has no expression to inline"));
  }
  if (const StageNode* e = extern_reader(*sch_, st)) {
    throw ScheduleError(str(what, ": '", st.name(), "' is read by extern stage '", e->name(),
                            "', whose C function reads it from a buffer; keep '", st.name(),
                            "' at the root"));
  }
  if (num_outputs(st.op) > 1) {
    throw ScheduleError(str(what, ": a multi-output compute (", num_outputs(st.op),
                            " outputs) cannot be inlined (its outputs share one loop nest; TVM "
                            "rejects it too: \"can only inline compute op with 1 output\"); use "
                            "compute_at or compute_root"));
  }
  if (st.op->body.as<ReduceNode>()) {
    throw ScheduleError(what +
                        ": a reduction cannot be inlined into its consumers; "
                        "use compute_at or compute_root");
  }
  if (st.relations.size() || st.annotations.size()) {
    throw ScheduleError(what +
                        ": the stage has loop primitives applied (split, fuse, annotate); "
                        "an inlined stage has no loops of its own");
  }
  for (const StagePtr& other : sch_->stages()) {
    if (other->attach_type == AttachType::kScope && other->attach_stage == node_) {
      throw ScheduleError(str(what, ": stage '", other->name(),
                              "' is computed at one of its loops; move that stage first"));
    }
  }
  st.attach_type = AttachType::kInline;
  st.attach_stage = nullptr;
  st.attach_ivar = nullptr;
}

void Stage::compute_root() {
  node_->attach_type = AttachType::kRoot;
  node_->attach_stage = nullptr;
  node_->attach_ivar = nullptr;
}

void Stage::set_scope(const std::string& scope) {
  if (!is_known_scope(scope)) {
    throw ScheduleError(str("stage '", name(), "': set_scope: unknown scope '", scope,
                            "'; known scopes: global, local (CPU), sram, acc (NPU)"));
  }
  if (node_->is_output && scope != "global") {
    throw ScheduleError(str("stage '", name(), "': set_scope: an output lives in global memory"));
  }
  node_->scope = scope;
}

void Stage::double_buffer() {
  if (node_->scope != "sram" && node_->scope != "acc") {
    throw ScheduleError(str("stage '", name(), "': double_buffer: the stage is in scope '",
                            node_->scope,
                            "'; double buffering applies to on-chip cache stages "
                            "(scope sram or acc)"));
  }
  node_->double_buffer = true;
}

void Stage::align_extent(const IterVar& axis, int64_t factor) {
  const auto& root = node_->op->axis;
  auto it = std::find_if(root.begin(), root.end(), [&](const IterVar& a) { return a == axis; });
  if (it == root.end()) {
    std::string own;
    for (const IterVar& a : root) own += (own.empty() ? "" : ", ") + a->var.name();
    throw ScheduleError(str("stage '", name(), "': align_extent: axis '",
                            axis ? axis->var.name() : std::string("<none>"),
                            "' is not one of the stage's own axes (", own,
                            "); the region is aligned per axis of the computed tensor"));
  }
  if (factor < 1) {
    throw ScheduleError(str("stage '", name(), "': align_extent: factor ", factor, " on axis '",
                            axis->var.name(), "' must be at least 1"));
  }
  node_->extent_align[size_t(it - root.begin())] = factor;
}

void Stage::tensorize(const IterVar& axis, const TensorIntrin& intrin) {
  check_leaf(axis, "tensorize");
  if (!intrin) throw ScheduleError(str("stage '", name(), "': tensorize: no intrinsic given"));
  node_->tensorize_ivar = axis;
  node_->intrin = intrin;
}

}  // namespace tessera
