// Binding size variables and specializing a schedule to them (see the header).
#include "schedule/specialize.h"

#include <algorithm>
#include <functional>
#include <set>

#include "compiler/arith/eval_int.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

constexpr int64_t kMaxIndex = 2147483647;

void add_vars(std::vector<Var>* out, const Expr& e) {
  for (const Var& v : size_vars_of(e)) {
    if (std::none_of(out->begin(), out->end(), [&](const Var& o) { return o.same_as(v); })) {
      out->push_back(v);
    }
  }
}

// Every operation the schedule holds or reads, each once, in a fixed order.
std::vector<Operation> all_ops(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<Operation> out;
  std::set<const OperationNode*> seen;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (!op || !seen.insert(op.get()).second) return;
    out.push_back(op);
    for (const Operation& in : op->inputs) visit(in);
  };
  for (const Tensor& t : args) visit(t.op());
  for (const StagePtr& st : sch.stages()) {
    visit(st->op);
    visit(st->origin_op);
    for (const auto& [from, to] : st->read_redirects) {
      visit(from);
      visit(to);
    }
  }
  return out;
}

std::string dims_str(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::vector<Var> schedule_size_vars(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<Var> out;
  for (const Operation& op : all_ops(sch, args)) {
    for (const Expr& d : op->sym_shape) add_vars(&out, d);
    for (const IterVar& iv : op->reduce_axis) add_vars(&out, iv->sym_extent);
    add_vars(&out, op->body);
    if (op->extern_call) {
      for (const ExternArg& a : op->extern_call->args) add_vars(&out, a.value);
    }
  }
  return out;
}

Var first_size_var(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<Var> vars = schedule_size_vars(sch, args);
  return vars.empty() ? Var() : vars.front();
}

SizeBinding bind_sizes(const std::vector<Tensor>& args,
                       const std::vector<std::vector<int64_t>>& shapes, const SizeBinding& preset,
                       const std::vector<Var>& needed) {
  if (shapes.size() != args.size()) {
    throw ArgumentError(
        str("the kernel takes ", args.size(), " tensor arguments, got ", shapes.size()));
  }
  SizeBinding b = preset;
  std::map<Var, std::string, VarLess> source;  // where each binding came from, for errors
  for (const auto& [v, value] : preset) source[v] = "the scalar argument";
  for (size_t a = 0; a < args.size(); ++a) {
    const Tensor& t = args[a];
    std::vector<Expr> dims = shape_exprs(t.op());
    if (shapes[a].size() != dims.size()) {
      throw ArgumentError(str("argument '", t.name(), "' has ", dims.size(),
                              " dimensions, got an array of shape ", dims_str(shapes[a])));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      const auto* v = dims[d].as<VarNode>();
      if (!v) continue;
      Var var(dims[d]);
      int64_t got = shapes[a][d];
      std::string here = str("argument '", t.name(), "' dimension ", d);
      if (got < 1 || got > kMaxIndex) {
        throw ArgumentError(str("size variable '", v->name, "' would be ", got, " from ", here,
                                "; sizes must be in [1, ", kMaxIndex, "]"));
      }
      auto it = b.find(var);
      if (it != b.end() && it->second != got) {
        throw ArgumentError(str("size variable '", v->name, "' is ", it->second, " from ",
                                source[var], " but ", got, " from ", here, " (array of shape ",
                                dims_str(shapes[a]), ")"));
      }
      if (it == b.end()) {
        b[var] = got;
        source[var] = here;
      }
    }
  }
  VarMap env;
  for (const auto& [v, value] : b) env[v] = make_int(value, v.dtype());
  for (const Var& v : needed) {
    if (!b.count(v)) {
      throw ArgumentError(str("size variable '", v.name(),
                              "' is not a dimension of any argument, so the call does not "
                              "determine it; pass it to build() among the arguments (as TVM "
                              "does) and give its value in the call"));
    }
  }
  for (size_t a = 0; a < args.size(); ++a) {
    std::vector<Expr> dims = shape_exprs(args[a].op());
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].as<VarNode>()) continue;
      std::optional<int64_t> want = eval_int(dims[d], env);
      if (!want) {
        std::vector<Var> vs = size_vars_of(dims[d]);
        std::string names;
        for (const Var& v : vs) {
          if (!b.count(v)) names += (names.empty() ? "'" : ", '") + v.name() + "'";
        }
        throw ArgumentError(str("argument '", args[a].name(), "' dimension ", d, " (",
                                to_string(dims[d]), ") uses size variable ", names,
                                ", which no argument's shape determines; pass it to build() "
                                "among the arguments and give its value in the call"));
      }
      if (*want != shapes[a][d]) {
        std::string with;
        for (const Var& v : size_vars_of(dims[d])) {
          with += str(with.empty() ? " with " : ", ", v.name(), " = ", b[v]);
        }
        throw ArgumentError(str("argument '", args[a].name(), "' dimension ", d, " is ",
                                to_string(dims[d]), " = ", *want, with, ", got an array of shape ",
                                dims_str(shapes[a])));
      }
    }
  }
  return b;
}

// Copies the operation graph with sizes bound and replays the schedule on it.
class ScheduleSpecializer {
 public:
  explicit ScheduleSpecializer(const SizeBinding& b) {
    for (const auto& [v, value] : b) {
      env_[v] = make_int(value, v.dtype());
      vars_[v] = env_[v];
    }
  }

  Specialized run(const Schedule& sch, const std::vector<Tensor>& args) {
    std::vector<Operation> outputs;
    for (const Operation& o : sch.outputs()) outputs.push_back(op(o));
    auto out = std::make_shared<Schedule>(outputs);
    std::map<const StageNode*, StagePtr> stage_map;
    std::vector<StagePtr> stages;
    for (const StagePtr& st : sch.stages()) {
      stages.push_back(stage(*st));
      stage_map[st.get()] = stages.back();
    }
    for (size_t i = 0; i < stages.size(); ++i) {
      const StageNode& old = *sch.stages()[i];
      if (old.attach_stage) stages[i]->attach_stage = stage_map.at(old.attach_stage.get());
      if (old.attach_ivar) stages[i]->attach_ivar = mapped(old.attach_ivar);
    }
    out->stages_ = stages;
    Specialized sp;
    sp.schedule = out;
    for (const Tensor& t : args) sp.args.push_back(Tensor(op(t.op())));
    return sp;
  }

 private:
  int64_t value_of(const Expr& e, const std::string& what) {
    std::optional<int64_t> v = eval_int(e, env_);
    if (!v) {
      std::string names;
      for (const Var& x : size_vars_of(e)) {
        if (!env_.count(x)) names += (names.empty() ? "'" : ", '") + x.name() + "'";
      }
      throw LowerError(str(what, " (", to_string(e), ") uses size variable ", names,
                           ", which has no value; bind every size variable (lower(..., sizes=",
                           "{var: value}) or call the built module with arrays)"));
    }
    if (*v < 1 || *v > kMaxIndex) {
      throw LowerError(
          str(what, " (", to_string(e), ") is ", *v, "; extents must be in [1, ", kMaxIndex, "]"));
    }
    return *v;
  }

  IterVar iv(const IterVar& old, const std::string& owner) {
    auto it = ivs_.find(old.get());
    if (it != ivs_.end()) return it->second;
    int64_t extent =
        old->sym_extent.defined()
            ? value_of(old->sym_extent, str(owner, ": extent of axis '", old->var.name(), "'"))
            : old->extent;
    IterVar n = make_iter_var(old->var.name(), old->min, extent, old->kind);
    ivs_[old.get()] = n;
    vars_[old->var] = n->var;
    return n;
  }
  IterVar mapped(const IterVar& old) const {
    auto it = ivs_.find(old.get());
    if (it == ivs_.end()) {
      throw InternalError(str("specialize: axis '", old->var.name(), "' has no copy"));
    }
    return it->second;
  }

  // Replaces variables and operations; a reduction's axes become the copies.
  class Rewrite : public IRMutator {
   public:
    explicit Rewrite(ScheduleSpecializer* s) : s_(s) {}
    using IRMutator::mutate;

   protected:
    Expr mutate_Var(const VarNode* v, const Expr& e) override {
      auto it = s_->vars_.find(v);
      if (it != s_->vars_.end()) return it->second;
      if (v->size_var) {
        throw LowerError(str("size variable '", v->name, "' has no value; bind every size ",
                             "variable (lower(..., sizes={var: value}) or call the built module ",
                             "with arrays)"));
      }
      return e;
    }
    Expr mutate_ProducerLoad(const ProducerLoadNode* p, const Expr&) override {
      bool changed = false;
      auto idx = mutate_all(p->indices, &changed);
      return Expr(std::make_shared<ProducerLoadNode>(p->dtype, s_->op(p->op), idx));
    }
    Expr mutate_Reduce(const ReduceNode* r, const Expr&) override {
      std::vector<IterVar> axes;
      for (const IterVar& a : r->axis) axes.push_back(s_->iv(a, "reduction"));
      Expr cond = r->condition.defined() ? mutate(r->condition) : Expr();
      Expr init = r->init.defined() ? mutate(r->init) : Expr();
      return Expr(std::make_shared<ReduceNode>(r->combiner, mutate(r->source), axes, cond, init,
                                               r->reducer, r->value_index));
    }

   private:
    ScheduleSpecializer* s_;
  };

  Operation op(const Operation& old) {
    auto it = ops_.find(old.get());
    if (it != ops_.end()) return it->second;
    if (old->primary) {  // an output of a multi-output compute: that output of the new one
      Operation o = op_output(op(old->primary), old->value_index);
      ops_[old.get()] = o;
      return o;
    }
    auto n = std::make_shared<OperationNode>(*old);
    n->outputs.clear();
    if (!old->sym_shape.empty()) {
      for (size_t d = 0; d < old->sym_shape.size(); ++d) {
        n->shape[d] = value_of(old->sym_shape[d], str("tensor '", old->name, "': dimension ", d));
      }
      n->sym_shape.clear();
      // A placeholder is rebuilt through placeholder() so that its shape is checked as any.
      if (old->kind == OpKind::kPlaceholder) {
        n = std::const_pointer_cast<OperationNode>(placeholder(n->shape, n->dtype, n->name).op());
      }
    }
    if (old->kind == OpKind::kCompute) {
      n->axis.clear();
      for (const IterVar& a : old->axis) n->axis.push_back(iv(a, "tensor '" + old->name + "'"));
      n->reduce_axis.clear();
      for (const IterVar& a : old->reduce_axis) {
        n->reduce_axis.push_back(iv(a, "tensor '" + old->name + "'"));
      }
      n->inputs.clear();
      for (const Operation& in : old->inputs) n->inputs.push_back(op(in));
      Rewrite rw(this);
      n->body = rw.mutate(old->body);
    }
    if (old->kind == OpKind::kExtern) {  // the inputs, and scalars such as a symbolic dimension
      n->inputs.clear();
      for (const Operation& in : old->inputs) n->inputs.push_back(op(in));
      auto call = std::make_shared<ExternCall>(*old->extern_call);
      Rewrite rw(this);
      for (ExternArg& a : call->args) a.value = rw.mutate(a.value);
      n->extern_call = call;
    }
    ops_[old.get()] = n;
    return n;
  }

  StagePtr stage(const StageNode& old) {
    auto n = std::make_shared<StageNode>();
    n->op = op(old.op);
    n->origin_op = op(old.origin_op);
    std::set<const IterVarNode*> made;
    for (const IterVarRelation& r : old.relations) {
      made.insert(r.kind == IterVarRelation::kSplit ? r.outer.get() : r.fused.get());
      if (r.kind == IterVarRelation::kSplit) made.insert(r.inner.get());
    }
    for (const IterVar& a : old.all_iter_vars) {
      if (!made.count(a.get())) n->all_iter_vars.push_back(iv(a, "stage '" + old.name() + "'"));
    }
    for (const IterVarRelation& r : old.relations) replay(old, r, n.get());
    for (const IterVar& a : old.leaf_iter_vars) n->leaf_iter_vars.push_back(mapped(a));
    for (const auto& [id, a] : old.annotations) n->annotations[new_id(old, id)] = a;
    for (const auto& [id, p] : old.pragmas) n->pragmas[new_id(old, id)] = p;
    n->attach_type = old.attach_type;
    n->scope = old.scope;
    for (const auto& [from, to] : old.read_redirects)
      n->read_redirects.push_back({op(from), op(to)});
    n->is_output = old.is_output;
    n->double_buffer = old.double_buffer;
    n->extent_align = old.extent_align;
    if (old.tensorize_ivar) n->tensorize_ivar = mapped(old.tensorize_ivar);
    n->intrin = old.intrin;
    return n;
  }

  uint64_t new_id(const StageNode& old, uint64_t id) const {
    for (const IterVar& a : old.all_iter_vars) {
      if (a->var.id() == id) return mapped(a)->var.id();
    }
    throw InternalError(str("specialize: stage '", old.name(), "' annotates an unknown axis"));
  }

  void replay(const StageNode& old, const IterVarRelation& r, StageNode* n) {
    if (r.kind == IterVarRelation::kSplit) {
      IterVar parent = mapped(r.parent);
      int64_t factor = r.nparts ? (parent->extent + r.nparts - 1) / r.nparts : r.factor;
      int64_t outer_extent = (parent->extent + factor - 1) / factor;
      if (outer_extent * std::min(factor, parent->extent) > kMaxIndex) {
        throw ScheduleError(str("stage '", old.name(), "': split of axis '", parent->var.name(),
                                "' (extent ", parent->extent, ") by ", factor,
                                " covers more than the int32 index range"));
      }
      IterVar outer = make_iter_var(r.outer->var.name(), 0, outer_extent, parent->kind);
      IterVar inner = make_iter_var(r.inner->var.name(), 0, factor, parent->kind);
      ivs_[r.outer.get()] = outer;
      ivs_[r.inner.get()] = inner;
      n->relations.push_back(
          {IterVarRelation::kSplit, parent, outer, inner, nullptr, factor, r.nparts});
      n->all_iter_vars.push_back(outer);
      n->all_iter_vars.push_back(inner);
    } else {
      IterVar outer = mapped(r.outer), inner = mapped(r.inner);
      if (outer->extent > kMaxIndex / inner->extent) {
        throw ScheduleError(str("stage '", old.name(), "': fuse of '", outer->var.name(), "' (",
                                outer->extent, ") and '", inner->var.name(), "' (", inner->extent,
                                ") makes a loop beyond the int32 index range"));
      }
      IterVar fused =
          make_iter_var(r.fused->var.name(), 0, outer->extent * inner->extent, outer->kind);
      ivs_[r.fused.get()] = fused;
      n->relations.push_back({IterVarRelation::kFuse, nullptr, outer, inner, fused, 0, 0});
      n->all_iter_vars.push_back(fused);
    }
  }

  VarMap env_;   // size variable -> its number
  VarMap vars_;  // size variables and old axis variables -> their replacement
  std::map<const OperationNode*, Operation> ops_;
  std::map<const IterVarNode*, IterVar> ivs_;
};

Specialized specialize(const Schedule& sch, const std::vector<Tensor>& args,
                       const SizeBinding& binding) {
  return ScheduleSpecializer(binding).run(sch, args);
}

}  // namespace tessera
