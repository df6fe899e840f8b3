// Schedule::rfactor (TVM's s.rfactor): a reduction split into partial reductions over one axis
// made data-parallel, and the reduction of those partials.
//
//   C[i] = sum(A[i, k], k in [0, K)),  ko, ki = split(k, f),  CF = rfactor(C, ki, 0):
//   CF[v, i] = sum(A[i, ko * f + v], ko in [0, ceil(K / f)), where ko * f + v < K)
//   C[i]     = sum(CF[v, i], v in [0, f))
#include <algorithm>

#include "compiler/ir/substitute.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"
#include "schedule/schedule.h"

namespace tessera {

Tensor Schedule::rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis) {
  std::string what = str("rfactor of '", tensor.name(), "'");
  StagePtr st = find(tensor.op());
  if (!st) throw ScheduleError(str(what, ": '", tensor.name(), "' has no stage (a placeholder)"));
  const auto* red = st->op->body.as<ReduceNode>();
  if (!red) throw ScheduleError(str(what, ": '", tensor.name(), "' is not a reduction"));
  if (!axis) throw ScheduleError(what + ": axis is None");
  if (num_outputs(st->op) > 1) {
    throw ScheduleError(str(what, ": '", st->op->name, "' is a multi-output compute (",
                            num_outputs(st->op),
                            " outputs); rfactor takes a one-output reduction (TVM factors tuple "
                            "reductions; here reduce them unfactored)"));
  }
  if (st->op != st->origin_op) {
    throw ScheduleError(str(what,
                            ": the stage is cache-written; apply rfactor first, then "
                            "cache_write the factored tensor"));
  }
  bool symbolic_reduce = std::any_of(st->op->reduce_axis.begin(), st->op->reduce_axis.end(),
                                     [](const IterVar& a) { return a->sym_extent.defined(); });
  if (is_symbolic(st->op) || symbolic_reduce) {
    throw ScheduleError(str(what,
                            ": the tensor has a symbolic shape or reduce extent; rfactor "
                            "needs constant extents (TVM factors a symbolic extent; here write the "
                            "reduction with constant extents)"));
  }
  if (!st->annotations.empty() || !st->pragmas.empty() || st->attach_type != AttachType::kRoot ||
      st->intrin) {
    throw ScheduleError(str(what,
                            ": the stage has loop annotations or an attach point; apply "
                            "rfactor before them (they belong on the new stages)"));
  }
  // The root reduce axis `axis` comes from, and how.
  const std::vector<IterVar>& rroots = st->op->reduce_axis;
  IterVar root;
  int part = 0;  // 0: the whole root axis; 1: the split's outer part; 2: its inner part
  int64_t factor = 0;
  if (std::find(rroots.begin(), rroots.end(), axis) != rroots.end()) {
    root = axis;
    if (!st->relations.empty()) {
      throw ScheduleError(str(what, ": rfactor over the whole axis '", axis->var.name(),
                              "' takes a stage with no split or fuse applied"));
    }
  } else {
    if (st->relations.size() != 1 || st->relations[0].kind != IterVarRelation::kSplit ||
        std::find(rroots.begin(), rroots.end(), st->relations[0].parent) == rroots.end() ||
        (st->relations[0].outer != axis && st->relations[0].inner != axis)) {
      throw ScheduleError(str(what, ": axis '", axis->var.name(),
                              "' must be a reduce axis of the stage or a part of the one split of "
                              "one (as TVM: split the reduce axis, then rfactor a part)"));
    }
    const IterVarRelation& r = st->relations[0];
    root = r.parent;
    factor = r.factor;
    part = axis == r.inner ? 2 : 1;
  }
  const std::vector<int64_t>& shape = st->op->shape;
  if (factor_axis < 0 || factor_axis > static_cast<int>(shape.size())) {
    throw ScheduleError(
        str(what, ": factor_axis ", factor_axis, " must be in [0, ", shape.size(), "]"));
  }
  int64_t k_ext = root->extent;
  int64_t outer_ext = part ? (k_ext + factor - 1) / factor : 1;
  // The factored dimension's extent, and the extent of what stays a reduction of `root`.
  int64_t v_ext = part == 0 ? k_ext : part == 2 ? factor : outer_ext;
  int64_t rest_ext = part == 0 ? 0 : part == 2 ? outer_ext : factor;
  Expr body = st->body();  // read redirects applied
  const auto* rb = body.as<ReduceNode>();

  std::vector<int64_t> rf_shape = shape;
  rf_shape.insert(rf_shape.begin() + factor_axis, v_ext);
  std::vector<std::string> rf_names;
  for (const IterVar& a : st->op->axis) rf_names.push_back(a->var.name());
  rf_names.insert(rf_names.begin() + factor_axis, axis->var.name());
  Tensor rf = compute(
      rf_shape,
      [&](const std::vector<Var>& vars) {
        VarMap m;
        std::vector<Var> data = vars;
        Var v = data[factor_axis];
        data.erase(data.begin() + factor_axis);
        for (size_t d = 0; d < data.size(); ++d) m[st->op->axis[d]->var] = data[d];
        std::vector<IterVar> raxes;
        Expr k_value, guard;
        for (const IterVar& a : rb->axis) {
          if (a != root) {
            IterVar copy = reduce_axis(a->min, a->extent, a->var.name());
            m[a->var] = copy->var;
            raxes.push_back(copy);
            continue;
          }
          if (part == 0) {
            k_value = v + make_int(root->min);
            continue;
          }
          IterVar rest =
              reduce_axis(0, rest_ext, root->var.name() + (part == 2 ? ".outer" : ".inner"));
          raxes.push_back(rest);
          Expr rel =
              part == 2 ? rest->var * make_int(factor) + v : Expr(v) * make_int(factor) + rest->var;
          k_value = rel + make_int(root->min);
          if (k_ext % factor != 0) guard = rel < make_int(k_ext);
        }
        m[root->var] = k_value;
        Expr src = substitute(rb->source, m);
        Expr cond = rb->condition.defined() ? substitute(rb->condition, m) : Expr();
        if (guard.defined())
          cond = cond.defined() ? make_binary(ExprKind::kAnd, cond, guard) : guard;
        if (raxes.empty()) {  // nothing left to reduce: the partial is the (guarded) value
          Expr id =
              rb->reducer ? rb->reducer->identity[0] : reduce_identity(rb->combiner, src.dtype());
          return cond.defined() ? make_select(cond, src, id) : src;
        }
        return make_reduce(rb->combiner, src, raxes, cond, Expr(), rb->reducer);
      },
      st->op->name + ".rf", rf_names);

  // The stage now reduces the partials over the factored dimension.
  std::vector<std::string> names;
  for (const IterVar& a : st->op->axis) names.push_back(a->var.name());
  IterVar vr = reduce_axis(0, v_ext, axis->var.name() + ".v");
  Operation old = st->op;
  Tensor total = compute(
      shape,
      [&](const std::vector<Var>& vars) {
        std::vector<Expr> idx(vars.begin(), vars.end());
        idx.insert(idx.begin() + factor_axis, vr->var);
        VarMap m;
        for (size_t d = 0; d < vars.size(); ++d) m[old->axis[d]->var] = vars[d];
        Expr init = rb->init.defined() ? substitute(rb->init, m) : Expr();
        return make_reduce(rb->combiner, rf(idx), {vr}, Expr(), init, rb->reducer);
      },
      old->name, names);
  st->op = total.op();
  st->all_iter_vars = total.op()->axis;
  st->all_iter_vars.push_back(vr);
  st->leaf_iter_vars = st->all_iter_vars;
  st->relations.clear();
  st->read_redirects.clear();
  auto rst = std::make_shared<StageNode>();
  rst->op = rf.op();
  rst->origin_op = rf.op();
  rst->all_iter_vars = rf.op()->axis;
  rst->all_iter_vars.insert(rst->all_iter_vars.end(), rf.op()->reduce_axis.begin(),
                            rf.op()->reduce_axis.end());
  rst->leaf_iter_vars = rst->all_iter_vars;
  stages_.insert(std::find(stages_.begin(), stages_.end(), st), rst);
  return rf;
}

}  // namespace tessera
