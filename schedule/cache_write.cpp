// Schedule::cache_write (TVM's s.cache_write, CacheWriteWithReLayout): the stage's computation
// moves into a cache stage whose layout follows the stage's loops, and the stage becomes a copy
// out of the cache over its root axes.
//
//   C[i, j] = sum(A[i, k] * B[k, j], k)        split i -> (io, ii by 4), reorder (io, j, ii)
//   CC = s.cache_write(C, "local"):
//   C.local[io, j, ii] = sum(A[io * 4 + ii, k] * B[k, j], k, where io * 4 + ii < extent(i))
//   C[i, j]            = C.local[i / 4, j, i % 4]
//
// As in TVM, the stage keeps the user's tensor and its axes (C.op.axis, s[C].op.axis); the cache
// has new axes, one per data-parallel loop of the stage (CC.op.axis), and the reduce axes
// (CC.op.reduce_axis, the same as C.op.reduce_axis). The stage's splits, fuses and order are used
// for the layout and dropped; it starts again from its root loops.
#include <algorithm>

#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"
#include "schedule/relations.h"

namespace tessera {

namespace {

// `body` computed only where every predicate holds (TVM's InjectPredicate): a reduction gets them
// as its condition (and its init= is read only there), any other value is 0 elsewhere.
Expr guard_body(const Expr& body, const std::vector<Expr>& preds) {
  if (preds.empty()) return body;
  Expr p = preds[0];
  for (size_t i = 1; i < preds.size(); ++i) p = p && preds[i];
  const auto* r = body.as<ReduceNode>();
  if (!r) {
    if (const CallNode* t = as_tuple(body)) {
      std::vector<Expr> fields;
      for (const Expr& f : t->args) fields.push_back(make_select(p, f, make_const(f.dtype(), 0)));
      return make_tuple(fields);
    }
    return make_select(p, body, make_const(body.dtype(), 0));
  }
  Expr cond = r->condition.defined() ? r->condition && p : p;
  Expr init = r->init;
  if (init.defined()) {  // the initial value may read tensors: not outside the tensor
    auto id = [&](size_t j, DType t) {
      return r->reducer ? r->reducer->identity[j] : reduce_identity(r->combiner, t);
    };
    if (const CallNode* t = as_tuple(init)) {
      std::vector<Expr> fields;
      for (size_t j = 0; j < t->args.size(); ++j) {
        fields.push_back(make_select(p, t->args[j], id(j, t->args[j].dtype())));
      }
      init = make_tuple(fields);
    } else {
      init = make_select(p, init, id(0, init.dtype()));
    }
  }
  return make_reduce(r->combiner, r->source, r->axis, cond, init, r->reducer, r->value_index);
}

std::string axis_list(const std::vector<IterVar>& axes) {
  std::string s;
  for (const IterVar& iv : axes) s += (s.empty() ? "'" : ", '") + iv->var.name() + "'";
  return s;
}

}  // namespace

std::vector<Tensor> Schedule::cache_write(const std::vector<Tensor>& tensors,
                                          const std::string& scope) {
  if (tensors.empty()) throw ScheduleError("cache_write: needs at least one tensor");
  const Tensor& tensor = tensors[0];
  std::string what = str("cache_write of '", tensor.name(), "'");
  check_scope(scope, what);
  StagePtr st = find(tensor.op());
  if (!st) {
    throw ScheduleError(
        str(what, ": '", tensor.name(), "' has no stage (a placeholder cannot be cache-written)"));
  }
  if (st->op->kind == OpKind::kExtern) {
    throw ScheduleError(str(what, ": stage '", st->name(), "' is an extern stage (te.extern): ",
                            "its C function writes the buffer itself; cache_read its readers' ",
                            "copies instead"));
  }
  const Operation orig = st->op;
  const int n = num_outputs(orig);
  // TVM: s.cache_write([T0, T1], scope) caches every output of a multi-output compute together.
  std::vector<int> wanted;
  for (const Tensor& t : tensors) {
    if (find(t.op()) != st) {
      throw ScheduleError(str(what, ": '", t.name(), "' is not an output of stage '", st->name(),
                              "'; the tensors cache-written together are the outputs of one "
                              "compute"));
    }
    int vi = t.op()->value_index;
    if (std::find(wanted.begin(), wanted.end(), vi) != wanted.end()) {
      throw ScheduleError(str(what, ": '", t.name(), "' is given twice"));
    }
    wanted.push_back(vi);
  }
  if (static_cast<int>(wanted.size()) != n) {
    std::string all;
    for (int i = 0; i < n; ++i) all += str(i ? ", " : "", st->name(), ".v", i);
    throw ScheduleError(str(what, ": stage '", st->name(), "' is a multi-output compute (", n,
                            " outputs); cache-write all of them together, as TVM requires: "
                            "s.cache_write([",
                            all, "], \"", scope, "\") returns one cache per output"));
  }
  // The stage's data-parallel loops become the cache's axes; a split or fused reduction cannot
  // be laid out (TVM: "Can only relayout with in data parallel dimensions").
  std::vector<IterVar> data_leaves;
  for (const IterVar& leaf : st->leaf_iter_vars) {
    if (contains_axis(orig->reduce_axis, leaf)) continue;
    if (leaf->kind == IterKind::kReduce) {
      throw ScheduleError(
          str(what, ": the reduction loop '", leaf->var.name(), "' of stage '", st->name(),
              "' comes from a split or fuse of a reduce axis, which the cache cannot be laid out "
              "by (TVM rejects it too: \"Can only relayout with in data parallel dimensions\"); "
              "cache_write first, then split the reduction on the cache stage: CC = s.cache_write(",
              st->name(), ", \"", scope, "\"); s[CC].split(CC.op.reduce_axis[0], factor=...)"));
    }
    data_leaves.push_back(leaf);
  }
  // What would be lost: records on loops that the rebuilt stages no longer have.
  auto kept = [&](uint64_t var_id) {
    return std::any_of(orig->axis.begin(), orig->axis.end(),
                       [&](const IterVar& a) { return a->var.id() == var_id; });
  };
  auto lost_axis = [&](uint64_t var_id) {
    for (const IterVar& a : st->all_iter_vars) {
      if (a->var.id() == var_id) return a->var.name();
    }
    return std::string("?");
  };
  for (const auto& [id, a] : st->annotations) {
    if (kept(id)) continue;
    throw ScheduleError(str(what, ": loop '", lost_axis(id), "' of stage '", st->name(), "' is ",
                            "annotated ", annotation_name(a),
                            ", but cache_write rebuilds the stage from its "
                            "root axes (",
                            axis_list(orig->axis),
                            ") and the loop goes away (TVM "
                            "drops the annotation); annotate after cache_write, on s[",
                            st->name(), "] or on the cache stage"));
  }
  for (const auto& [id, p] : st->pragmas) {
    if (kept(id)) continue;
    throw ScheduleError(str(what, ": loop '", lost_axis(id), "' of stage '", st->name(),
                            "' has pragma '", p.front().first,
                            "', but cache_write rebuilds the "
                            "stage from its root axes and the loop goes away; apply the pragma "
                            "after cache_write"));
  }
  if (st->intrin) {
    throw ScheduleError(str(what, ": stage '", st->name(),
                            "' is tensorized; tensorize the cache "
                            "stage after cache_write instead"));
  }
  for (const StagePtr& other : stages_) {
    if (other->attach_type != AttachType::kScope || other->attach_stage != st) continue;
    if (contains_axis(orig->axis, other->attach_ivar)) continue;
    throw ScheduleError(str(what, ": stage '", other->name(), "' is computed at loop '",
                            other->attach_ivar->var.name(), "' of '", st->name(),
                            "', which cache_write removes (the stage restarts from its root "
                            "axes); compute_at after cache_write"));
  }
  bool relaid = !st->relations.empty();
  if (relaid && (is_symbolic(orig) ||
                 std::any_of(st->all_iter_vars.begin(), st->all_iter_vars.end(),
                             [](const IterVar& a) { return a->sym_extent.defined(); }))) {
    throw ScheduleError(str(what, ": stage '", st->name(),
                            "' has a symbolic shape and split or "
                            "fused loops; the cache's layout would need symbolic extents: "
                            "cache_write first, then split (TVM's usual order)"));
  }

  // The cache: one axis per data-parallel loop, in loop order; the root axes are computed from
  // them and the split tails guarded.
  AxisValues up;
  std::vector<IterVar> cache_axes;
  std::vector<int64_t> cache_shape;
  std::vector<Expr> cache_sym_shape;
  bool symbolic = false;
  for (const IterVar& leaf : data_leaves) {
    auto iv = std::make_shared<IterVarNode>(
        *make_iter_var(leaf->var.name(), 0, leaf->extent, IterKind::kDataPar));
    iv->sym_extent = leaf->sym_extent;
    symbolic |= leaf->sym_extent.defined();
    cache_axes.push_back(iv);
    cache_shape.push_back(leaf->extent);
    cache_sym_shape.push_back(leaf->sym_extent.defined() ? leaf->sym_extent
                                                         : make_int(leaf->extent));
    up[leaf.get()] = iv->var;
  }
  pass_up_index(*st, &up);
  VarMap vsub;
  for (const IterVar& a : orig->axis) vsub[a->var] = up.at(a.get());
  Expr body = guard_body(substitute(st->body(), vsub), split_bound_checks(*st, up));
  auto cache_node = std::make_shared<OperationNode>(*orig);
  cache_node->name = orig->name + "." + scope;
  cache_node->shape = cache_shape;
  cache_node->sym_shape = symbolic ? cache_sym_shape : std::vector<Expr>{};
  cache_node->axis = cache_axes;
  cache_node->body = body;
  cache_node->inputs = st->inputs();
  cache_node->outputs.clear();
  Operation cache_op = cache_node;

  // The copy out: over the stage's root axes, reading the cache where the loops put each point.
  AxisValues down;
  for (const IterVar& a : orig->axis) down[a.get()] = a->var;
  pass_down_index(*st, &down);
  std::vector<Expr> args;
  for (const IterVar& leaf : data_leaves) args.push_back(down.at(leaf.get()));
  std::vector<Expr> loads;
  for (int i = 0; i < n; ++i) loads.push_back(Tensor(op_output(cache_op, i))(args));
  auto copy_node = std::make_shared<OperationNode>(*orig);
  copy_node->reduce_axis.clear();
  copy_node->body = n == 1 ? loads[0] : make_tuple(loads);
  copy_node->inputs = {cache_op};
  copy_node->true_work.reset();
  copy_node->outputs.clear();
  Operation copy_op = copy_node;

  st->op = copy_op;
  st->all_iter_vars = orig->axis;
  st->leaf_iter_vars = orig->axis;
  st->relations.clear();
  st->read_redirects.clear();
  StagePtr cst = make_stage_node(cache_op);
  cst->scope = scope;
  stages_.insert(std::find(stages_.begin(), stages_.end(), st), cst);
  std::vector<Tensor> out;
  for (int vi : wanted) out.emplace_back(op_output(cache_op, vi));
  return out;
}

Tensor Schedule::cache_write(const Tensor& tensor, const std::string& scope) {
  return cache_write(std::vector<Tensor>{tensor}, scope)[0];
}

}  // namespace tessera
