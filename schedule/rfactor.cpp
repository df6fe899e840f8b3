// Schedule::rfactor (TVM's s.rfactor): a reduction split into partial reductions over one of its
// loops made data-parallel, and the reduction of those partials.
//
//   B[i] = sum(A[i, k], k in [0, K)),  ko, ki = split(k, f),  BF = rfactor(B, ki, 0):
//   BF[ki, i] = sum(A[i, ko * f + ki], ko in [0, ceil(K / f)), where ko * f + ki < K)
//   B[i]      = sum(BF[ki.v, i], ki.v in [0, f))
//
// As TVM: the loop factored may be any reduction loop of the stage (a root reduce axis, a part of
// a split, a fused loop of reduce axes); the loops connected to it through splits and fuses
// (touched) are rebuilt in the partial stage, the other reduce axes are kept whole; the partial
// stage's data axes are the tensor's (BF.op.axis holds B.op.axis), the stage of B gets fresh ones.
#include <algorithm>

#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"
#include "schedule/relations.h"
#include "schedule/schedule.h"

namespace tessera {

namespace {

// The tensors `e` reads, in order of first use.
std::vector<Operation> inputs_of(const Expr& e) {
  std::vector<Operation> out;
  post_order_visit(e, [&](const Expr& x) {
    const auto* l = x.as<ProducerLoadNode>();
    if (l && std::find(out.begin(), out.end(), l->op) == out.end()) out.push_back(l->op);
  });
  return out;
}

std::string loop_list(const StageNode& st) {
  std::string s;
  for (const IterVar& iv : st.leaf_iter_vars) s += (s.empty() ? "" : ", ") + iv->var.name();
  return s;
}

// The checks: what rfactor takes, and what it would lose.
void check_rfactor(const Schedule& sch, const StageNode& st, const std::string& what,
                   const IterVar& axis) {
  if (!axis) throw ScheduleError(what + ": axis is None");
  if (st.op != st.origin_op && !st.op->body.as<ReduceNode>()) {
    throw ScheduleError(str(what, ": stage '", st.name(),
                            "' is cache-written: the reduction is "
                            "computed by its cache stage now; rfactor the cache (CC = "
                            "s.cache_write(",
                            st.name(),
                            ", scope); s.rfactor(CC, ...)), or "
                            "rfactor first and cache_write after"));
  }
  if (!st.op->body.as<ReduceNode>()) {
    throw ScheduleError(str(what, ": '", st.name(), "' is not a reduction"));
  }
  if (!st.is_leaf(axis)) {
    throw ScheduleError(str(what, ": axis '", axis->var.name(), "' is not a loop of stage '",
                            st.name(),
                            "' (TVM: \"Cannot find IterVar in leaf iter vars\"); "
                            "rfactor takes one of its current loops: ",
                            loop_list(st)));
  }
  if (axis->kind != IterKind::kReduce) {
    throw ScheduleError(str(what, ": axis '", axis->var.name(),
                            "' is data-parallel; rfactor "
                            "factors a reduction loop (TVM: \"Can only factor reduction axis\")"));
  }
  bool symbolic_reduce = std::any_of(st.op->reduce_axis.begin(), st.op->reduce_axis.end(),
                                     [](const IterVar& a) { return a->sym_extent.defined(); });
  if (is_symbolic(st.op) || symbolic_reduce) {
    throw ScheduleError(str(what,
                            ": the tensor has a symbolic shape or reduce extent; rfactor "
                            "needs constant extents (TVM factors a symbolic extent; here write the "
                            "reduction with constant extents)"));
  }
  // Both stages restart from their root loops (as in TVM): records on the old loops would go.
  auto name_of = [&](uint64_t id) {
    for (const IterVar& a : st.all_iter_vars) {
      if (a->var.id() == id) return a->var.name();
    }
    return std::string("?");
  };
  if (!st.annotations.empty()) {
    const auto& [id, a] = *st.annotations.begin();
    throw ScheduleError(str(what, ": loop '", name_of(id), "' of stage '", st.name(), "' is ",
                            "annotated ", annotation_name(a),
                            ", but rfactor rebuilds the loops of '", st.name(),
                            "' (TVM drops the annotation); annotate the two stages "
                            "after rfactor"));
  }
  if (!st.pragmas.empty()) {
    throw ScheduleError(str(what, ": loop '", name_of(st.pragmas.begin()->first), "' of stage '",
                            st.name(), "' has a pragma, but rfactor rebuilds the loops of '",
                            st.name(), "'; apply pragmas after rfactor"));
  }
  if (st.intrin) {
    throw ScheduleError(str(what, ": stage '", st.name(),
                            "' is tensorized; tensorize after "
                            "rfactor"));
  }
  for (const StagePtr& other : sch.stages()) {
    if (other->attach_type == AttachType::kScope && other->attach_stage.get() == &st) {
      throw ScheduleError(str(what, ": stage '", other->name(), "' is computed at loop '",
                              other->attach_ivar->var.name(), "' of '", st.name(),
                              "', which rfactor rebuilds; compute_at after rfactor (into "
                              "either stage)"));
    }
  }
}

}  // namespace

std::vector<Tensor> Schedule::rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis) {
  std::string what = str("rfactor of '", tensor.name(), "'");
  StagePtr st = find(tensor.op());
  if (!st) throw ScheduleError(str(what, ": '", tensor.name(), "' has no stage (a placeholder)"));
  check_rfactor(*this, *st, what, axis);
  const Operation old = st->op;
  Expr body = st->body();  // read redirects applied
  const auto* rb = body.as<ReduceNode>();
  const int ndim = static_cast<int>(old->axis.size());
  int fpos = factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
  if (fpos < 0 || fpos > ndim) {
    throw ScheduleError(
        str(what, ": factor_axis ", factor_axis, " must be in [", -(ndim + 1), ", ", ndim, "]"));
  }
  // The loops connected to `axis`; a data axis among them is TVM's "Factor axis touches normal
  // axis" (fuse keeps the kinds apart, so this only guards the invariant).
  std::set<const IterVarNode*> touched = connected_axes(*st, axis);
  for (const IterVar& a : old->axis) {
    if (touched.count(a.get())) {
      throw ScheduleError(str(what, ": loop '", axis->var.name(),
                              "' is connected to the data "
                              "axis '",
                              a->var.name(),
                              "' (TVM: \"Factor axis touches normal "
                              "axis\")"));
    }
  }
  // The partial stage: `axis` a data axis, the other touched loops its reduction loops.
  IterVar v = make_iter_var(axis->var.name(), 0, axis->extent, IterKind::kDataPar);
  AxisValues up{{axis.get(), v->var}};
  std::vector<IterVar> raxes;
  for (const IterVar& a : rb->axis) {
    if (!touched.count(a.get())) raxes.push_back(a);  // kept whole
  }
  for (const IterVar& leaf : st->leaf_iter_vars) {
    if (!touched.count(leaf.get()) || leaf == axis) continue;
    IterVar copy = make_iter_var(leaf->var.name(), 0, leaf->extent, IterKind::kReduce);
    raxes.push_back(copy);
    up[leaf.get()] = copy->var;
  }
  pass_up_index(*st, &up);
  std::vector<Expr> preds = split_bound_checks(*st, up);
  VarMap vsub;
  for (const IterVar& a : rb->axis) {
    if (!touched.count(a.get())) continue;
    Expr value = up.at(a.get());
    vsub[a->var] = a->min ? value + make_int(a->min) : value;
  }
  Expr src = substitute(rb->source, vsub);
  Expr cond = rb->condition.defined() ? substitute(rb->condition, vsub) : Expr();
  for (const Expr& p : preds) cond = cond.defined() ? cond && p : p;
  const CallNode* srcs = as_tuple(src);
  const int nout = num_outputs(old);
  Expr rf_body;
  if (raxes.empty()) {  // nothing left to reduce: a partial is the (guarded) value
    std::vector<Expr> vals;
    for (int j = 0; j < nout; ++j) {
      Expr s = srcs ? srcs->args[j] : src;
      Expr id = rb->reducer ? rb->reducer->identity[j] : reduce_identity(rb->combiner, s.dtype());
      vals.push_back(cond.defined() ? make_select(cond, s, id) : s);
    }
    rf_body = nout == 1 ? vals[0] : make_tuple(vals);
  } else {
    rf_body = make_reduce(rb->combiner, src, raxes, cond, Expr(), rb->reducer);
  }
  auto rf_node = std::make_shared<OperationNode>();
  rf_node->kind = OpKind::kCompute;
  rf_node->name = old->name + ".rf";
  rf_node->dtype = rf_body.dtype();
  rf_node->shape = old->shape;
  rf_node->shape.insert(rf_node->shape.begin() + fpos, axis->extent);
  rf_node->axis = old->axis;
  rf_node->axis.insert(rf_node->axis.begin() + fpos, v);
  rf_node->reduce_axis = raxes.empty() ? std::vector<IterVar>{} : raxes;
  rf_node->body = rf_body;
  rf_node->inputs = inputs_of(rf_body);
  Operation rf = rf_node;
  std::vector<Tensor> rf_tensors;
  for (int j = 0; j < nout; ++j) rf_tensors.emplace_back(op_output(rf, j));

  // The stage now reduces the partials over the factored dimension, from the old init= if any.
  std::vector<std::string> names;
  for (const IterVar& a : old->axis) names.push_back(a->var.name());
  IterVar vr = reduce_axis(0, axis->extent, axis->var.name() + ".v");
  std::vector<Tensor> total = compute_multi(
      old->shape,
      [&](const std::vector<Var>& vars) {
        std::vector<Expr> idx(vars.begin(), vars.end());
        idx.insert(idx.begin() + fpos, vr->var);
        VarMap m;
        for (int d = 0; d < ndim; ++d) m[old->axis[d]->var] = vars[d];
        Expr init = rb->init.defined() ? substitute(rb->init, m) : Expr();
        std::vector<Expr> loads;
        for (const Tensor& t : rf_tensors) loads.push_back(t(idx));
        Expr s = nout == 1 ? loads[0] : make_tuple(loads);
        std::vector<Expr> outs;
        for (int j = 0; j < nout; ++j) {
          outs.push_back(make_reduce(rb->combiner, s, {vr}, Expr(), init, rb->reducer, j));
        }
        return outs;
      },
      old->name, names);
  st->op = primary_of(total[0].op());
  st->all_iter_vars = st->op->axis;
  st->all_iter_vars.push_back(vr);
  st->leaf_iter_vars = st->all_iter_vars;
  st->relations.clear();
  st->read_redirects.clear();
  stages_.insert(std::find(stages_.begin(), stages_.end(), st), make_stage_node(rf));
  return rf_tensors;
}

}  // namespace tessera
