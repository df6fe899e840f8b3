#include "compiler/passes/infer_bounds.h"

#include <algorithm>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool reads(const Expr& body, const StageNode& producer) {
  bool found = false;
  post_order_visit(body, [&](const Expr& e) {
    if (const auto* l = e.as<ProducerLoadNode>()) {
      found |= primary_of(l->op) == producer.op || primary_of(l->op) == producer.origin_op;
    }
  });
  return found;
}

// The index lists of every read of `producer` in `body`.
std::vector<std::vector<Expr>> reads_of(const Expr& body, const StageNode& producer) {
  std::vector<std::vector<Expr>> out;
  post_order_visit(body, [&](const Expr& e) {
    if (const auto* l = e.as<ProducerLoadNode>()) {
      const Operation& op = primary_of(l->op);  // any output of a multi-output compute
      if (op == producer.op || op == producer.origin_op) out.push_back(l->indices);
    }
  });
  return out;
}

// The values of the stage's root axes (absolute: region start + relative value).
VarMap root_values(const StageBounds& b) {
  VarMap m;
  for (size_t r = 0; r < b.root_axes.size(); ++r) {
    m[b.root_axes[r]->var] = simplify(b.region_min[r] + b.value.at(b.root_axes[r]->var.id()));
  }
  return m;
}

// Position of `iv` among `y`'s loops.
size_t leaf_position(const StageNode& y, const IterVar& iv) {
  return std::find(y.leaf_iter_vars.begin(), y.leaf_iter_vars.end(), iv) - y.leaf_iter_vars.begin();
}

// The loop of `y` inside which `c` is (transitively) computed, or nullptr when it is not inside y.
IterVar enclosing_loop_of(const StageNode& c, const StageNode& y) {
  const StageNode* s = &c;
  while (s->attach_type == AttachType::kScope) {
    if (s->attach_stage.get() == &y) return s->attach_ivar;
    s = s->attach_stage.get();
  }
  return nullptr;
}

// The region of `st` needed by one iteration of its attach loop: every read by its consumers,
// with the attach stage's loops inside the attach loop, and every loop of a consumer computed
// inside it, ranging over their extents.
void infer_attached_region(const StageNode& st, const Schedule& sch, const BoundMap& bm,
                           const std::vector<const StageNode*>& consumers, StageBounds& b) {
  const StageNode& y = *st.attach_stage;
  const StageBounds& yb = bm.at(&y);
  size_t pos = leaf_position(y, st.attach_ivar);
  VarRanges inner;
  for (size_t i = pos + 1; i < y.leaf_iter_vars.size(); ++i) {
    const IterVar& leaf = y.leaf_iter_vars[i];
    inner[leaf->var] = Interval::range(0, yb.extent.at(leaf->var.id()));
  }
  // Only stages after `st` in topological order can read it (and their bounds are known).
  const auto& stages = sch.stages();
  auto after =
      std::find_if(stages.begin(), stages.end(), [&](const StagePtr& p) { return p.get() == &st; });
  for (auto it = after + 1; it != stages.end(); ++it) {
    const StagePtr& other = *it;
    if (other->attach_type == AttachType::kInline || !enclosing_loop_of(*other, y)) continue;
    for (const IterVar& leaf : other->leaf_iter_vars) {
      inner[leaf->var] = Interval::range(0, bm.at(other.get()).extent.at(leaf->var.id()));
    }
  }
  size_t ndim = st.op->axis.size();
  std::vector<Interval> region(ndim);
  bool first = true;
  for (const StageNode* c : consumers) {
    const StageBounds& cb = bm.at(c);
    VarMap vals = root_values(cb);
    for (const std::vector<Expr>& idx : reads_of(cb.body, st)) {
      for (size_t d = 0; d < ndim; ++d) {
        Interval iv = eval_interval(substitute(idx[d], vals), inner);
        region[d] = first ? iv : interval_union(region[d], iv);
      }
      first = false;
    }
  }
  for (size_t d = 0; d < ndim; ++d) {
    int64_t full = st.op->axis[d]->extent;
    b.region_min[d] = make_int(0);
    b.region_extent[d] = full;
    if (first || !region[d].bounded()) continue;
    Expr lo = simplify(max(region[d].min, make_int(0)));
    Expr hi = simplify(min(region[d].max, make_int(full - 1)));
    std::optional<int64_t> ext = const_upper_bound(simplify(hi - lo + make_int(1)), bm.loop_ranges);
    if (!ext) continue;
    int64_t e = std::max<int64_t>(1, *ext);
    auto align = st.extent_align.find(d);  // align_extent: a multiple of the factor
    if (align != st.extent_align.end()) e = (e + align->second - 1) / align->second * align->second;
    b.region_min[d] = lo;
    b.region_extent[d] = std::min(e, full);
  }
}

// Replays splits and fuses on the region's extents: loop extents, axis values, guards.
void replay_relations(const StageNode& st, StageBounds& b, VarRanges& loop_ranges) {
  for (size_t r = 0; r < b.root_axes.size(); ++r) {
    b.extent[b.root_axes[r]->var.id()] = b.region_extent[r];
  }
  std::vector<bool> exact(st.relations.size(), true);
  for (size_t i = 0; i < st.relations.size(); ++i) {
    const IterVarRelation& rel = st.relations[i];
    if (rel.kind == IterVarRelation::kSplit) {
      int64_t pe = b.extent.at(rel.parent->var.id());
      int64_t inner = std::min(rel.factor, pe);
      int64_t outer = (pe + inner - 1) / inner;
      b.extent[rel.outer->var.id()] = outer;
      b.extent[rel.inner->var.id()] = inner;
      exact[i] = outer * inner == pe;
    } else {
      b.extent[rel.fused->var.id()] =
          b.extent.at(rel.outer->var.id()) * b.extent.at(rel.inner->var.id());
    }
  }
  for (const IterVar& leaf : st.leaf_iter_vars) {
    b.value[leaf->var.id()] = leaf->var;
    loop_ranges[leaf->var] = Interval::range(0, b.extent.at(leaf->var.id()));
  }
  for (size_t i = st.relations.size(); i-- > 0;) {
    const IterVarRelation& rel = st.relations[i];
    if (rel.kind == IterVarRelation::kSplit) {
      Expr v = b.value.at(rel.outer->var.id()) * make_int(b.extent.at(rel.inner->var.id())) +
               b.value.at(rel.inner->var.id());
      b.value[rel.parent->var.id()] = v;
      if (!exact[i]) b.guards.push_back(v < make_int(b.extent.at(rel.parent->var.id())));
    } else {
      Expr f = b.value.at(rel.fused->var.id());
      Expr n = make_int(b.extent.at(rel.inner->var.id()));
      b.value[rel.outer->var.id()] = f / n;
      b.value[rel.inner->var.id()] = f % n;
    }
  }
  // Points outside the operation's domain are never computed (a region may overhang its end).
  for (size_t r = 0; r < b.root_axes.size(); ++r) {
    const IterVar& ax = b.root_axes[r];
    if (b.region_extent[r] == ax->extent && is_const_int(b.region_min[r], ax->min)) continue;
    b.guards.push_back(b.region_min[r] + b.value.at(ax->var.id()) < make_int(ax->min + ax->extent));
  }
  for (Expr& g : b.guards) g = simplify(g);
}

void check_attachment(const StageNode& st, const std::vector<const StageNode*>& consumers) {
  const StageNode& y = *st.attach_stage;
  std::string what = str("stage '", st.name(), "': compute_at '", y.name(), "'");
  if (y.attach_type == AttachType::kInline) {
    throw ScheduleError(str(what, ": stage '", y.name(),
                            "' is inlined and has no loops; compute it at a stage that has loops"));
  }
  if (!y.is_leaf(st.attach_ivar)) {
    throw ScheduleError(str(what, ": axis '", st.attach_ivar->var.name(),
                            "' is no longer a loop of '", y.name(),
                            "' (split or fused after compute_at); compute_at one of its current "
                            "loops"));
  }
  size_t pos = leaf_position(y, st.attach_ivar);
  if (consumers.empty()) {
    throw ScheduleError(str(what, ": nothing reads '", st.name(), "'"));
  }
  for (const StageNode* c : consumers) {
    if (c == &y) continue;
    IterVar loop = enclosing_loop_of(*c, y);
    if (!loop || leaf_position(y, loop) < pos) {
      bool y_reads = std::find(consumers.begin(), consumers.end(), &y) != consumers.end();
      if (!y_reads && consumers.size() == 1) {
        throw ScheduleError(str(what, ": stage '", y.name(), "' does not read '", st.name(),
                                "' and its reader '", c->name(), "' is not computed inside loop '",
                                st.attach_ivar->var.name(),
                                "'; compute_at must target a loop of "
                                "a stage that consumes it, or a loop inside which its readers are "
                                "computed"));
      }
      throw ScheduleError(str(what, ": '", st.name(), "' is also read by stage '", c->name(),
                              "', which is not computed inside loop '", st.attach_ivar->var.name(),
                              "' of '", y.name(),
                              "'; compute that reader inside this loop too, or use compute_root"));
    }
  }
}

}  // namespace

BoundMap infer_bounds(const Schedule& sch, const InlinedBodies& bodies) {
  BoundMap bm;
  const auto& stages = sch.stages();
  for (const StagePtr& st : stages) {
    if (st->attach_type == AttachType::kInline) continue;
    StageBounds& b = bm.stages[st.get()];
    b.body = bodies.at(st.get());
    b.root_axes = st->op->axis;
    b.root_axes.insert(b.root_axes.end(), st->op->reduce_axis.begin(), st->op->reduce_axis.end());
  }
  // Consumers before producers: a producer's region depends on its consumer's loops.
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const StageNode& st = **it;
    if (st.attach_type == AttachType::kInline) continue;
    StageBounds& b = bm.stages.at(&st);
    b.region_min.assign(b.root_axes.size(), make_int(0));
    b.region_extent.clear();
    for (const IterVar& ax : b.root_axes) {
      b.region_min[b.region_extent.size()] = make_int(ax->min);
      b.region_extent.push_back(ax->extent);
    }
    if (st.attach_type == AttachType::kScope) {
      std::vector<const StageNode*> consumers;
      for (const StagePtr& c : stages) {
        if (c->attach_type != AttachType::kInline && reads(bm.at(c.get()).body, st)) {
          consumers.push_back(c.get());
        }
      }
      check_attachment(st, consumers);
      infer_attached_region(st, sch, bm, consumers, b);
    }
    replay_relations(st, b, bm.loop_ranges);
  }
  return bm;
}

std::string to_string(const BoundMap& bounds, const Schedule& sch) {
  std::string s;
  for (const StagePtr& st : sch.stages()) {
    auto it = bounds.stages.find(st.get());
    if (it == bounds.stages.end()) continue;
    const StageBounds& b = it->second;
    s += "  stage " + st->name() + ": region";
    for (size_t r = 0; r < b.root_axes.size(); ++r) {
      s += " " + b.root_axes[r]->var.name() + "[" + to_string(b.region_min[r]) + " +" +
           std::to_string(b.region_extent[r]) + "]";
    }
    s += "; loops";
    for (const IterVar& leaf : st->leaf_iter_vars) {
      s += " " + leaf->var.name() + "[" + std::to_string(b.extent.at(leaf->var.id())) + "]";
    }
    s += "\n";
  }
  return s;
}

}  // namespace tessera
