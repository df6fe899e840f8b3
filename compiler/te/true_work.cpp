#include "compiler/te/true_work.h"

#include <algorithm>

#include "compiler/arith/interval.h"
#include "compiler/ir/ir_visitor.h"

namespace tessera {
namespace {

uint64_t elements(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t e : shape) n *= uint64_t(e);
  return n;
}

Expr strip_casts(Expr e) {
  while (const auto* c = e.as<CastNode>()) e = c->value;
  return e;
}

// A load, a constant, or a select between such values (a cast of any): data moved, not computed.
bool is_copy(const Expr& e) {
  Expr x = strip_casts(e);
  if (x.as<ProducerLoadNode>() || x.as<IntImmNode>() || x.as<FloatImmNode>()) return true;
  if (const auto* s = x.as<SelectNode>()) return is_copy(s->true_value) && is_copy(s->false_value);
  return false;
}

// Per placeholder, the bounding box of the elements the stages read: [lo, hi] per dimension.
struct Footprint {
  Operation op;
  std::vector<int64_t> lo, hi;
};

class ReadCollector : public IRVisitor {
 public:
  ReadCollector(const VarRanges& ranges, std::vector<Footprint>* out)
      : ranges_(ranges), out_(out) {}
  using IRVisitor::visit;

 protected:
  void visit_ProducerLoad(const ProducerLoadNode* op, const Expr& e) override {
    IRVisitor::visit_ProducerLoad(op, e);
    if (op->op->kind != OpKind::kPlaceholder) return;
    const std::vector<int64_t>& shape = op->op->shape;
    std::vector<int64_t> lo(shape.size()), hi(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      // An index without constant bounds may read anything: the whole dimension.
      std::optional<int64_t> l = const_lower_bound(op->indices[d], ranges_);
      std::optional<int64_t> h = const_upper_bound(op->indices[d], ranges_);
      lo[d] = std::clamp<int64_t>(l.value_or(0), 0, shape[d] - 1);
      hi[d] = std::clamp<int64_t>(h.value_or(shape[d] - 1), 0, shape[d] - 1);
      if (l && *l > shape[d] - 1) lo[d] = shape[d];  // reads only outside: nothing in this dim
      if (h && *h < 0) hi[d] = -1;
    }
    for (Footprint& f : *out_) {
      if (f.op != op->op) continue;
      for (size_t d = 0; d < shape.size(); ++d) {
        f.lo[d] = std::min(f.lo[d], lo[d]);
        f.hi[d] = std::max(f.hi[d], hi[d]);
      }
      return;
    }
    out_->push_back({op->op, lo, hi});
  }

 private:
  const VarRanges& ranges_;
  std::vector<Footprint>* out_;
};

// The compute stages the tensors depend on, each once, producers first.
// An extern stage counts too (its inputs are read whole; its work is the C function's, unknown).
void collect_stages(const Operation& any, std::vector<Operation>* out) {
  const Operation& op = primary_of(any);  // a multi-output compute counts once
  if (op->kind == OpKind::kPlaceholder) return;
  if (std::find(out->begin(), out->end(), op) != out->end()) return;
  for (const Operation& in : op->inputs) collect_stages(in, out);
  out->push_back(op);
}

// The footprint of an extern stage's placeholder inputs: all of each.
void extern_reads(const OperationNode& op, std::vector<Footprint>* reads) {
  for (const Operation& in : op.inputs) {
    if (in->kind != OpKind::kPlaceholder) continue;
    std::vector<int64_t> lo(in->shape.size(), 0), hi;
    for (int64_t d : in->shape) hi.push_back(d - 1);
    auto f =
        std::find_if(reads->begin(), reads->end(), [&](const Footprint& x) { return x.op == in; });
    if (f == reads->end()) {
      reads->push_back({in, lo, hi});
    } else {
      f->lo = lo;
      f->hi = hi;
    }
  }
}

}  // namespace

Work true_work(const std::vector<Tensor>& args) {
  Work declared;
  bool all_declared = false;
  for (const Tensor& t : args) {
    if (t.op()->kind == OpKind::kPlaceholder) continue;
    if (!t.op()->true_work) {
      all_declared = false;
      break;
    }
    all_declared = true;
    declared += *t.op()->true_work;
  }
  if (all_declared) return declared;

  Work w;
  std::vector<Operation> stages;
  for (const Tensor& t : args) collect_stages(t.op(), &stages);
  std::vector<Footprint> reads;
  for (const Operation& op : stages) {
    if (op->kind == OpKind::kExtern) {
      extern_reads(*op, &reads);
      continue;
    }
    VarRanges ranges;
    for (const IterVar& iv : op->axis) ranges[iv->var] = Interval::range(iv->min, iv->extent);
    uint64_t points = 1;
    for (const IterVar& iv : op->reduce_axis) {
      ranges[iv->var] = Interval::range(iv->min, iv->extent);
      points *= uint64_t(iv->extent);
    }
    ReadCollector(ranges, &reads).visit(op->body);
    const uint64_t n = elements(op->shape) * uint64_t(num_outputs(op));
    if (const auto* r = op->body.as<ReduceNode>()) {
      Expr src = strip_casts(r->source);
      bool mac = r->combiner == ReduceKind::kSum && src.kind() == ExprKind::kMul;
      (mac ? w.macs : w.vector_ops) += n * points;
    } else if (!is_copy(op->body)) {
      w.vector_ops += n;
    }
  }
  for (const Tensor& t : args) {
    const uint64_t bytes = uint64_t(bytes_of(t.dtype()));
    if (t.op()->kind != OpKind::kPlaceholder) {
      w.min_ddr_bytes += elements(t.shape()) * bytes;
      continue;
    }
    for (const Footprint& f : reads) {
      if (f.op != t.op()) continue;
      uint64_t box = 1;
      for (size_t d = 0; d < f.lo.size(); ++d)
        box *= f.hi[d] >= f.lo[d] ? uint64_t(f.hi[d] - f.lo[d] + 1) : 0;
      w.min_ddr_bytes += box * bytes;
    }
  }
  return w;
}

}  // namespace tessera
