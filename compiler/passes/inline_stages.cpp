#include "compiler/passes/inline_stages.h"

#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/ir/substitute.h"

namespace tessera {

namespace {
class Inliner : public IRMutator {
 public:
  explicit Inliner(const Schedule& sch) : sch_(sch) {}
  using IRMutator::mutate;

 protected:
  Expr mutate_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    bool changed = false;
    std::vector<Expr> idx = mutate_all(op->indices, &changed);
    StagePtr st = sch_.find(op->op);
    if (st && st->attach_type == AttachType::kInline) {
      VarMap vmap;
      for (size_t d = 0; d < st->op->axis.size(); ++d) vmap[st->op->axis[d]->var] = idx[d];
      // The inlined body may itself read inlined stages.
      return mutate(substitute(st->body(), vmap));
    }
    return changed ? Expr(std::make_shared<ProducerLoadNode>(op->dtype, op->op, idx)) : e;
  }

 private:
  const Schedule& sch_;
};
}  // namespace

InlinedBodies inline_stages(const Schedule& sch) {
  InlinedBodies out;
  Inliner in(sch);
  for (const StagePtr& st : sch.stages()) {
    if (st->attach_type == AttachType::kInline) continue;
    out.body[st.get()] = in.mutate(st->body());
  }
  return out;
}

std::string to_string(const InlinedBodies& bodies, const Schedule& sch) {
  std::string s;
  for (const StagePtr& st : sch.stages()) {
    auto it = bodies.body.find(st.get());
    if (it != bodies.body.end()) s += "  stage " + st->name() + ": " + to_string(it->second) + "\n";
  }
  return s;
}

}  // namespace tessera
