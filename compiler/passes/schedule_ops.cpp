#include "compiler/passes/schedule_ops.h"

#include <algorithm>
#include <set>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

struct Storage {
  Buffer buffer;                // output 0's
  std::vector<Buffer> outputs;  // every output's (a multi-output compute has several)
  std::vector<Expr> offset;  // subtracted from each index (the region start of a local buffer)
  bool allocate_at_attach = false;
};

class NestBuilder {
 public:
  NestBuilder(const Schedule& sch, const BoundMap& bm, const std::vector<ArgBinding>& args)
      : sch_(sch), bm_(bm), args_(args) {}

  Stmt build() {
    assign_storage();
    std::vector<Stmt> produces;
    std::vector<Buffer> root_allocs;
    for (const StagePtr& st : sch_.stages()) {
      if (st->attach_type == AttachType::kInline) continue;
      if (st->attach_type == AttachType::kRoot) produces.push_back(produce(*st));
      const Storage& s = storage_.at(st.get());
      if (s.allocate_at_attach) continue;  // allocated around its attach loop
      for (size_t i = 0; i < s.outputs.size(); ++i) {
        if (!arg_buffer(*st, static_cast<int>(i))) root_allocs.push_back(s.outputs[i]);
      }
    }
    Stmt body = make_seq(produces);
    for (auto it = root_allocs.rbegin(); it != root_allocs.rend(); ++it) {
      body = make_allocate(*it, body);
    }
    return body;
  }

 private:
  // The argument buffer of the stage's output `i`, or null when that output is not an argument.
  Buffer arg_buffer(const StageNode& st, int i) const {
    for (const ArgBinding& a : args_) {
      const Operation& op = primary_of(a.op);
      if ((op == st.op || op == st.origin_op) && a.op->value_index == i) return a.buffer;
    }
    return nullptr;
  }

  void assign_storage() {
    NameTable names;
    for (const ArgBinding& a : args_) names.unique(a.buffer->name);
    for (const StagePtr& st : sch_.stages()) {
      if (st->attach_type == AttachType::kInline) continue;
      Storage s;
      const StageBounds& b = bm_.at(st.get());
      size_t ndim = st->op->shape.size();  // an extern stage has no axes
      int n = num_outputs(st->op);
      // Outputs that are arguments use the argument's buffer; others a buffer of their own: the
      // region at an attach point (when no output of the stage is an argument), else the whole
      // tensor.
      bool any_arg = false;
      for (int i = 0; i < n; ++i) any_arg |= arg_buffer(*st, i) != nullptr;
      bool local = st->attach_type == AttachType::kScope && !any_arg;
      s.offset.assign(ndim, make_int(0));
      if (local) s.offset.assign(b.region_min.begin(), b.region_min.begin() + ndim);
      for (int i = 0; i < n; ++i) {
        Buffer buf = arg_buffer(*st, i);
        if (!buf) {
          std::string name = n > 1 ? str(st->name(), ".v", i) : st->name();
          DType t = output_dtype(st->op, i);
          if (local) {
            std::vector<int64_t> shape(b.region_extent.begin(), b.region_extent.begin() + ndim);
            std::string scope = st->scope == "global" ? "local" : st->scope;
            buf = make_buffer(names.unique(name), t, shape, scope);
            s.allocate_at_attach = true;
          } else {
            buf = make_buffer(names.unique(name), t, st->op->shape, st->scope);
          }
        }
        s.outputs.push_back(buf);
      }
      s.buffer = s.outputs[0];
      storage_[st.get()] = s;
    }
  }

  // Reads of tensors become reads of their buffers.
  class LoadLowerer : public IRMutator {
   public:
    LoadLowerer(const NestBuilder& nb, const StageNode& reader) : nb_(nb), reader_(reader) {}
    using IRMutator::mutate;

   protected:
    Expr mutate_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
      bool changed = false;
      std::vector<Expr> idx = mutate_all(op->indices, &changed);
      if (op->op->kind == OpKind::kPlaceholder) {
        for (const ArgBinding& a : nb_.args_) {
          if (a.op == op->op) return make_buffer_load(a.buffer, idx);
        }
        throw LowerError(str("lower: stage '", reader_.name(), "' reads input '", op->op->name,
                             "', which is not in the argument list; add it to the arguments"));
      }
      StagePtr st = nb_.sch_.find(op->op);
      if (!st) {
        throw LowerError(str("lower: stage '", reader_.name(), "' reads '", op->op->name,
                             "', which this schedule does not compute"));
      }
      const Storage& s = nb_.storage_.at(st.get());
      for (size_t d = 0; d < idx.size(); ++d) idx[d] = idx[d] - s.offset[d];
      return make_buffer_load(s.outputs.at(static_cast<size_t>(op->op->value_index)), idx);
    }

   private:
    const NestBuilder& nb_;
    const StageNode& reader_;
  };

  Expr lower_loads(const Expr& e, const StageNode& reader) const {
    LoadLowerer l(*this, reader);
    return l.mutate(e);
  }

  static Expr combine(const ReduceNode& r, const Expr& acc, const Expr& v) {
    switch (r.combiner) {
      case ReduceKind::kSum:
        return acc + v;
      case ReduceKind::kMax:
        return max(acc, v);
      case ReduceKind::kMin:
        return min(acc, v);
      case ReduceKind::kCustom:  // te.comm_reducer: its expression over (acc, v)
        return substitute(r.reducer->combine[0],
                          {{r.reducer->lhs[0], acc}, {r.reducer->rhs[0], v}});
    }
    return Expr();
  }

  // The position (1 + index) of the innermost leaf a guard uses; 0 when it uses none.
  static std::vector<Var> leaf_vars(const StageNode& st) {
    std::vector<Var> leaves;
    leaves.reserve(st.leaf_iter_vars.size());
    for (const IterVar& iv : st.leaf_iter_vars) leaves.push_back(iv->var);
    return leaves;
  }
  static bool uses_reduce_leaf(const Expr& g, const StageNode& st) {
    for (const IterVar& iv : st.leaf_iter_vars) {
      if (iv->kind == IterKind::kReduce && uses_var(g, iv->var)) return true;
    }
    return false;
  }

  Stmt wrap_guards(Stmt s, const StageNode& st, size_t level, bool init) const {
    const StageBounds& b = bm_.at(&st);
    if (b.guards.empty()) return s;
    std::vector<Var> leaves = leaf_vars(st);  // the guard's level: its innermost leaf
    for (auto it = b.guards.rbegin(); it != b.guards.rend(); ++it) {
      if (innermost_use(*it, leaves) != level) continue;
      if (init && uses_reduce_leaf(*it, st)) continue;
      s = make_if(*it, s);
    }
    return s;
  }

  Stmt make_loop(const StageNode& st, const IterVar& leaf, Stmt body) const {
    ForKind kind = ForKind::kSerial;
    switch (st.annotation(leaf)) {
      case Annotation::kNone:
        break;
      case Annotation::kUnroll:
        kind = ForKind::kUnrolled;
        break;
      case Annotation::kVectorize:
        kind = ForKind::kVectorized;
        break;
      case Annotation::kParallel:
        kind = ForKind::kParallel;
        break;
    }
    int64_t ext = bm_.at(&st).extent.at(leaf->var.id());
    Stmt loop = make_for(leaf->var, make_int(0), make_int(ext), kind, body);
    auto it = st.pragmas.find(leaf->var.id());
    if (it != st.pragmas.end()) {
      for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
        loop = make_attr("pragma_" + p->first, p->second, loop);
      }
    }
    return loop;
  }

  // Stages computed at `leaf` of `st`, in topological order.
  std::vector<const StageNode*> attached_at(const StageNode& st, const IterVar& leaf) const {
    std::vector<const StageNode*> out;
    for (const StagePtr& p : sch_.stages()) {
      if (p->attach_type == AttachType::kScope && p->attach_stage.get() == &st &&
          p->attach_ivar == leaf) {
        out.push_back(p.get());
      }
    }
    return out;
  }

  Stmt init_nest(const StageNode& st, size_t level, size_t start, const Stmt& init) const {
    Stmt s;
    if (level == st.leaf_iter_vars.size()) {
      s = init;
    } else {
      const IterVar& leaf = st.leaf_iter_vars[level];
      Stmt inner = init_nest(st, level + 1, start, init);
      s = leaf->kind == IterKind::kReduce ? inner : make_loop(st, leaf, inner);
    }
    return level == start ? s : wrap_guards(s, st, level, true);
  }

  // The init nest of a reduction; for a tensorized stage marked, so that the tensorize pass can
  // drop it when the intrinsic's reset form does its work.
  Stmt init_at(const StageNode& st, size_t level, const Stmt& init) const {
    Stmt s = init_nest(st, level, level, init);
    return st.intrin ? make_attr("reduce_init", st.name(), s) : s;
  }

  // The nest from `level` down: guards of the level around it, the reduction's init (just outside
  // the first reduction loop), and at the tensorize axis the loops under it in a Tensorize region.
  Stmt update_nest(const StageNode& st, size_t level, const Stmt& update, const Stmt& init,
                   size_t first_reduce, size_t intrin_level) const {
    size_t n = st.leaf_iter_vars.size();
    Stmt s;
    if (level == intrin_level) {
      // The loops under the tensorized axis, plain (no init, no attached stage may sit inside);
      // the tensorize pass proves they compute the intrinsic. A reduction that starts inside
      // them is initialised just before.
      s = make_tensorize(st.intrin, st.name(), st.tensorize_ivar->var.name(),
                         loop_at(st, level, update, Stmt(), n, n + 1));
      if (init.defined() && first_reduce >= level) s = make_seq({init_at(st, level, init), s});
      return wrap_guards(s, st, level, false);
    }
    s = loop_at(st, level, update, init, first_reduce, intrin_level);
    if (init.defined() && level == first_reduce) s = make_seq({init_at(st, level, init), s});
    return wrap_guards(s, st, level, false);
  }

  // The loop of leaf `level` with everything under it (the update itself past the last leaf).
  Stmt loop_at(const StageNode& st, size_t level, const Stmt& update, const Stmt& init,
               size_t first_reduce, size_t intrin_level) const {
    size_t n = st.leaf_iter_vars.size();
    if (level == n) return update;
    const IterVar& leaf = st.leaf_iter_vars[level];
    std::vector<const StageNode*> inside = attached_at(st, leaf);
    if (st.annotation(leaf) == Annotation::kVectorize) {
      // Iterations of a data-parallel loop write disjoint elements, so any of the stage's loops
      // may be vectorized; but a stage computed inside would need a buffer per SIMD lane.
      for (size_t inner_level = level; inner_level < n; ++inner_level) {
        std::vector<const StageNode*> below = attached_at(st, st.leaf_iter_vars[inner_level]);
        if (!below.empty()) {
          throw ScheduleError(str("stage '", st.name(), "': vectorize: stage '",
                                  below.front()->name(), "' is computed inside vectorized axis '",
                                  leaf->var.name(), "'; compute it at a loop outside that axis"));
        }
      }
    }
    Stmt inner = update_nest(st, level + 1, update, init, first_reduce, intrin_level);
    std::vector<Stmt> seq;
    for (const StageNode* p : inside) seq.push_back(produce(*p));
    seq.push_back(inner);
    inner = make_seq(seq);
    for (auto it = inside.rbegin(); it != inside.rend(); ++it) {
      const Storage& ps = storage_.at(*it);
      if (!ps.allocate_at_attach) continue;
      for (auto b = ps.outputs.rbegin(); b != ps.outputs.rend(); ++b) {
        inner = make_allocate(*b, inner);
        if ((*it)->double_buffer) inner = make_attr("double_buffer", (*b)->name, inner);
      }
    }
    return make_loop(st, leaf, inner);
  }

  // One step of a reduction over tuples: every new value is computed from the old ones before
  // any is stored (TVM's tuple reducers: argmax's index and value update together).
  Stmt tuple_update(const StageNode& st, const ReduceNode& r, const std::vector<Expr>& sources,
                    const std::vector<Expr>& idx) const {
    const Storage& s = storage_.at(&st);
    const CommReducerNode& red = *r.reducer;
    VarMap m;
    for (size_t j = 0; j < red.arity(); ++j) {
      m[red.lhs[j]] = make_buffer_load(s.outputs[j], idx);
      m[red.rhs[j]] = sources[j];
    }
    std::vector<Var> fresh;
    std::vector<Stmt> stores;
    for (size_t j = 0; j < red.arity(); ++j) {
      fresh.emplace_back(str(red.name, "_v", j), red.lhs[j].dtype());
      stores.push_back(make_store(s.outputs[j], idx, fresh.back()));
    }
    Stmt out = make_seq(stores);
    for (size_t j = red.arity(); j-- > 0;) {
      out = make_let(fresh[j], substitute(red.combine[j], m), out);
    }
    return out;
  }

  // An extern stage (te.extern): one call of the user's C function with its buffers. The stages
  // it reads are at the root (schedule/stage.cpp, lower.cpp check it), so their buffers are whole.
  Stmt extern_call(const StageNode& st) const {
    const ExternCall& call = *st.op->extern_call;
    std::vector<ExternCallArg> args;
    for (const ExternArg& a : call.args) {
      if (a.output) {
        args.push_back({storage_.at(&st).buffer, Expr(), true});
      } else if (a.input >= 0) {
        Operation in = st.op->inputs.at(static_cast<size_t>(a.input));
        for (const auto& [from, to] : st.read_redirects) {
          if (from == in) in = to;
        }
        Expr load = LoadLowerer(*this, st).mutate(
            make_producer_load(in, std::vector<Expr>(in->shape.size(), make_int(0))));
        args.push_back({load.as<BufferLoadNode>()->buffer, Expr()});
      } else {
        args.push_back({nullptr, a.value});
      }
    }
    return make_extern_call(call.func, call.ret, std::move(args), st.name());
  }

  Stmt produce(const StageNode& st) const {
    if (st.op->kind == OpKind::kExtern) return make_attr("produce", st.name(), extern_call(st));
    const StageBounds& b = bm_.at(&st);
    const Storage& s = storage_.at(&st);
    VarMap vals;
    for (size_t r = 0; r < b.root_axes.size(); ++r) {
      vals[b.root_axes[r]->var] = b.region_min[r] + b.value.at(b.root_axes[r]->var.id());
    }
    std::vector<Expr> idx;
    for (size_t d = 0; d < st.op->axis.size(); ++d) {
      idx.push_back(simplify(vals.at(st.op->axis[d]->var) - s.offset[d]));
    }
    Stmt update, init;
    size_t first_reduce = st.leaf_iter_vars.size();
    size_t intrin_level = st.leaf_iter_vars.size() + 1;  // none
    if (const auto* r = b.body.as<ReduceNode>()) {
      Expr src = lower_loads(substitute(r->source, vals), st);
      if (st.intrin) {
        intrin_level =
            std::find(st.leaf_iter_vars.begin(), st.leaf_iter_vars.end(), st.tensorize_ivar) -
            st.leaf_iter_vars.begin();
        if (intrin_level == st.leaf_iter_vars.size()) {
          throw ScheduleError(str("stage '", st.name(), "': tensorize: axis '",
                                  st.tensorize_ivar->var.name(),
                                  "' is no longer a loop of the "
                                  "stage (split or fused after tensorize)"));
        }
        const auto* ir = st.intrin->op->body.as<ReduceNode>();
        if (r->init.defined()) {
          throw ScheduleError(str("stage '", st.name(), "': tensorize with '", st.intrin->name,
                                  "': the reduction has an init= value; the intrinsic starts "
                                  "from zero (compute the init in its own stage and add it)"));
        }
        if (r->combiner != ir->combiner || r->condition.defined()) {
          throw ScheduleError(str("stage '", st.name(), "': tensorize with '", st.intrin->name,
                                  "': the intrinsic is an unconditional ",
                                  reduce_kind_name(ir->combiner), "; the stage's reduction is a ",
                                  reduce_kind_name(r->combiner),
                                  r->condition.defined() ? " with a where= condition" : ""));
        }
      }
      if (const CallNode* sources = as_tuple(src)) {
        update = tuple_update(st, *r, sources->args, idx);
      } else {
        Expr acc = make_buffer_load(s.buffer, idx);
        update = make_store(s.buffer, idx, combine(*r, acc, src));
      }
      if (r->condition.defined()) {
        update = make_if(lower_loads(substitute(r->condition, vals), st), update);
      }
      // TVM's init=: the reduction starts from that value (over the data axes) instead of the
      // combiner's identity.
      if (as_tuple(src)) {
        std::vector<Stmt> inits;
        const CallNode* start = as_tuple(r->init);  // a tuple of initial values, or none
        for (size_t j = 0; j < s.outputs.size(); ++j) {
          inits.push_back(make_store(
              s.outputs[j], idx,
              start ? lower_loads(substitute(start->args[j], vals), st) : r->reducer->identity[j]));
        }
        init = make_seq(inits);
      } else {
        init = make_store(s.buffer, idx,
                          r->init.defined()       ? lower_loads(substitute(r->init, vals), st)
                          : r->reducer != nullptr ? r->reducer->identity[0]
                                                  : reduce_identity(r->combiner, st.op->dtype));
      }
      for (size_t i = 0; i < st.leaf_iter_vars.size(); ++i) {
        if (st.leaf_iter_vars[i]->kind == IterKind::kReduce) {
          first_reduce = i;
          break;
        }
      }
    } else {
      if (st.intrin) {
        throw ScheduleError(str("stage '", st.name(), "': tensorize with '", st.intrin->name,
                                "': missing reduction: the stage computes no reduction"));
      }
      // A multi-output compute stores each output's body in turn.
      const CallNode* bodies = as_tuple(b.body);
      std::vector<Stmt> stores;
      for (size_t j = 0; j < s.outputs.size(); ++j) {
        const Expr& body = bodies ? bodies->args[j] : b.body;
        stores.push_back(make_store(s.outputs[j], idx, lower_loads(substitute(body, vals), st)));
      }
      update = make_seq(stores);
    }
    return make_attr("produce", st.name(),
                     update_nest(st, 0, update, init, first_reduce, intrin_level));
  }

  const Schedule& sch_;
  const BoundMap& bm_;
  const std::vector<ArgBinding>& args_;
  std::map<const StageNode*, Storage> storage_;  // lookup only
};

}  // namespace

Stmt schedule_ops(const Schedule& sch, const BoundMap& bounds,
                  const std::vector<ArgBinding>& args) {
  NestBuilder nb(sch, bounds, args);
  return nb.build();
}

}  // namespace tessera
