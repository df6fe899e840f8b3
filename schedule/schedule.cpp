// Schedule construction, the dataflow primitives (cache_read, cache_write) and printing.
#include "schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

// Replaces reads of one operation by reads of another.
class RedirectReads : public IRMutator {
 public:
  explicit RedirectReads(const std::vector<std::pair<Operation, Operation>>& r) : r_(r) {}
  using IRMutator::mutate;

 protected:
  Expr mutate_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    bool changed = false;
    auto idx = mutate_all(op->indices, &changed);
    for (const auto& [from, to] : r_) {
      if (op->op == from) return Expr(std::make_shared<ProducerLoadNode>(op->dtype, to, idx));
    }
    return changed ? Expr(std::make_shared<ProducerLoadNode>(op->dtype, op->op, idx)) : e;
  }

 private:
  const std::vector<std::pair<Operation, Operation>>& r_;
};

}  // namespace

StagePtr make_stage_node(const Operation& op) {
  auto st = std::make_shared<StageNode>();
  st->op = op;
  st->origin_op = op;
  st->all_iter_vars = op->axis;
  st->all_iter_vars.insert(st->all_iter_vars.end(), op->reduce_axis.begin(), op->reduce_axis.end());
  st->leaf_iter_vars = st->all_iter_vars;
  return st;
}

Expr StageNode::body() const {
  if (read_redirects.empty()) return op->body;
  RedirectReads r(read_redirects);
  return r.mutate(op->body);
}

std::vector<Operation> StageNode::inputs() const {
  std::vector<Operation> out;
  for (const Operation& in : op->inputs) {
    Operation x = in;
    for (const auto& [from, to] : read_redirects) {
      if (from == in) x = to;
    }
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  return out;
}

bool StageNode::is_leaf(const IterVar& iv) const {
  return std::find(leaf_iter_vars.begin(), leaf_iter_vars.end(), iv) != leaf_iter_vars.end();
}

Annotation StageNode::annotation(const IterVar& iv) const {
  auto it = annotations.find(iv->var.id());
  return it == annotations.end() ? Annotation::kNone : it->second;
}

Schedule::Schedule(const std::vector<Operation>& outputs) : outputs_(outputs) {
  // Post-order DFS from the outputs gives producers before consumers, deterministically.
  std::set<const OperationNode*> seen;
  // The outputs of a multi-output compute are one stage, of output 0's node (operation.h).
  std::function<void(const Operation&)> visit = [&](const Operation& any) {
    const Operation& op = primary_of(any);
    if (!seen.insert(op.get()).second) return;
    for (const Operation& in : op->inputs) visit(in);
    if (op->kind != OpKind::kPlaceholder) stages_.push_back(make_stage_node(op));
  };
  for (const Operation& op : outputs) {
    if (op->kind == OpKind::kPlaceholder) {
      throw ScheduleError(str("create_schedule: output '", op->name,
                              "' is a placeholder; outputs must be compute tensors"));
    }
    visit(op);
  }
  for (const Operation& op : outputs) find(op)->is_output = true;
}

std::shared_ptr<Schedule> create_schedule(const std::vector<Operation>& outputs) {
  if (outputs.empty()) throw ScheduleError("create_schedule: needs at least one output tensor");
  return std::make_shared<Schedule>(outputs);
}

StagePtr Schedule::find(const Operation& any) const {
  const Operation& op = primary_of(any);
  for (const StagePtr& st : stages_) {
    if (st->op == op || st->origin_op == op) return st;
  }
  return nullptr;
}

Stage Schedule::operator[](const Operation& op) {
  StagePtr st = find(op);
  if (!st) {
    if (op->kind == OpKind::kPlaceholder) {
      throw ScheduleError(str("schedule: '", op->name,
                              "' is a placeholder (an input); only compute tensors have stages"));
    }
    throw ScheduleError(str("schedule: tensor '", op->name,
                            "' is not part of this schedule (not reachable from its outputs)"));
  }
  return Stage(this, st);
}

std::vector<StagePtr> Schedule::consumers_of(const StageNode& stage) const {
  std::vector<StagePtr> out;
  for (const StagePtr& st : stages_) {
    bool reads = false;
    for (const Operation& any : st->inputs()) {
      const Operation& in = primary_of(any);
      reads |= in == stage.op || in == stage.origin_op;
    }
    if (!reads) continue;
    // An inlined stage is substituted into its readers: they are the real consumers.
    std::vector<StagePtr> real =
        st->attach_type == AttachType::kInline ? consumers_of(*st) : std::vector<StagePtr>{st};
    for (const StagePtr& c : real) {
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
  }
  return out;
}

bool is_known_scope(const std::string& scope) {
  return scope == "global" || scope == "local" || scope == "sram" || scope == "acc";
}

void check_scope(const std::string& scope, const std::string& what) {
  if (!is_known_scope(scope)) {
    throw ScheduleError(str(what, ": unknown scope '", scope,
                            "'; known scopes: global, local (CPU), sram, acc (NPU)"));
  }
}
namespace {
std::vector<std::string> axis_names(const Operation& op) {
  std::vector<std::string> names;
  for (const IterVar& iv : op->axis) names.push_back(iv->var.name());
  return names;
}
}  // namespace

Tensor Schedule::cache_read(const Tensor& tensor, const std::string& scope,
                            const std::vector<Operation>& readers) {
  std::string what = str("cache_read of '", tensor.name(), "'");
  check_scope(scope, what);
  if (readers.empty()) throw ScheduleError(what + ": needs at least one reader stage");
  std::vector<StagePtr> reader_stages;
  for (const Operation& r : readers) {
    StagePtr st = find(r);
    if (!st) {
      throw ScheduleError(str(what, ": reader '", r->name, "' is not a stage of this schedule"));
    }
    std::vector<Operation> ins = st->inputs();
    if (std::find(ins.begin(), ins.end(), tensor.op()) == ins.end()) {
      throw ScheduleError(str(what, ": stage '", st->name(), "' does not read '", tensor.name(),
                              "'; readers must be stages that consume the tensor"));
    }
    reader_stages.push_back(st);
  }
  Tensor src = tensor;
  Tensor cache = compute_sym(
      shape_exprs(tensor.op()),
      [&](const std::vector<Var>& i) { return src(std::vector<Expr>(i.begin(), i.end())); },
      tensor.name() + "." + scope,
      tensor.op()->kind == OpKind::kCompute ? axis_names(tensor.op()) : std::vector<std::string>{});
  StagePtr cst = make_stage_node(cache.op());
  cst->scope = scope;
  for (const StagePtr& st : reader_stages) st->read_redirects.push_back({tensor.op(), cache.op()});
  // Insert before the first reader so that stages stay in topological order.
  auto pos = std::find(stages_.begin(), stages_.end(), reader_stages.front());
  for (const StagePtr& st : reader_stages) {
    pos = std::min(pos, std::find(stages_.begin(), stages_.end(), st));
  }
  stages_.insert(pos, cst);
  return cache;
}

const char* annotation_name(Annotation a) {
  switch (a) {
    case Annotation::kNone:
      return "none";
    case Annotation::kUnroll:
      return "unroll";
    case Annotation::kVectorize:
      return "vectorize";
    case Annotation::kParallel:
      return "parallel";
  }
  return "?";
}

std::string Schedule::to_string() const {
  std::ostringstream os;
  NameTable names;
  for (const StagePtr& st : stages_) {
    os << "stage " << st->name() << " (" << st->scope << ")";
    if (st->attach_type == AttachType::kInline) os << " inline";
    if (st->attach_type == AttachType::kScope) {
      os << " at " << st->attach_stage->name() << "." << names.name_of(st->attach_ivar->var);
    }
    if (st->is_output) os << " output";
    if (st->double_buffer) os << " double_buffer";
    if (st->op->extern_call) os << " extern " << st->op->extern_call->func;
    for (const auto& [d, f] : st->extent_align)
      os << " align_extent(" << names.name_of(st->op->axis[d]->var) << ", " << f << ")";
    os << "\n";
    for (const IterVarRelation& r : st->relations) {
      if (r.kind == IterVarRelation::kSplit) {
        os << "  split " << names.name_of(r.parent->var) << " -> " << names.name_of(r.outer->var)
           << ", " << names.name_of(r.inner->var) << " (factor " << r.factor << ")\n";
      } else {
        os << "  fuse " << names.name_of(r.outer->var) << ", " << names.name_of(r.inner->var)
           << " -> " << names.name_of(r.fused->var) << "\n";
      }
    }
    os << "  loops:";
    for (const IterVar& iv : st->leaf_iter_vars) {
      os << " " << names.name_of(iv->var) << "["
         << (iv->sym_extent.defined() ? tessera::to_string(iv->sym_extent)
                                      : std::to_string(iv->extent))
         << "]";
      Annotation a = st->annotation(iv);
      if (a != Annotation::kNone) os << ":" << annotation_name(a);
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace tessera
