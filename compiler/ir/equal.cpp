#include "compiler/ir/equal.h"

#include <cstring>
#include <string>

#include "compiler/ir/substitute.h"
#include "compiler/te/operation.h"

namespace tessera {

namespace {

uint64_t float_bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

bool same_iter_var(const IterVar& a, const IterVar& b) {
  return a == b || (a->var.same_as(b->var) && a->min == b->min && a->extent == b->extent &&
                    a->kind == b->kind);
}

bool equal_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!structural_equal(a[i], b[i])) return false;
  }
  return true;
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (int c = three_way(a.size(), b.size())) return c;
  for (size_t i = 0; i < a.size(); ++i) {
    if (int c = structural_compare(a[i], b[i])) return c;
  }
  return 0;
}

// FNV-1a over bytes, then mixed into the running hash: stable across runs and machines.
uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}
uint64_t mix(uint64_t h, uint64_t v) { return fnv1a(&v, sizeof v, h); }
uint64_t mix(uint64_t h, const std::string& s) {
  return fnv1a(s.data(), s.size(), mix(h, s.size()));
}

uint64_t hash_expr(const Expr& e);
uint64_t hash_all(uint64_t h, const std::vector<Expr>& v) {
  h = mix(h, v.size());
  for (const Expr& x : v) h = mix(h, hash_expr(x));
  return h;
}

// Two user reducers (te.comm_reducer) are the same when they are one object, or combine and
// start alike (their lhs/rhs variables differ, so the combiners are compared after renaming).
bool same_reducer(const CommReducer& a, const CommReducer& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->arity() != b->arity()) return false;
  VarMap m;
  for (size_t j = 0; j < a->arity(); ++j) {
    m[b->lhs[j]] = a->lhs[j];
    m[b->rhs[j]] = a->rhs[j];
  }
  for (size_t j = 0; j < a->arity(); ++j) {
    if (!structural_equal(a->combine[j], substitute(b->combine[j], m)) ||
        !structural_equal(a->identity[j], b->identity[j])) {
      return false;
    }
  }
  return true;
}

uint64_t hash_expr(const Expr& e) {
  if (!e.defined()) return 0x9e3779b97f4a7c15ull;
  uint64_t h = mix(mix(1469598103934665603ull, static_cast<uint64_t>(e.kind())),
                   static_cast<uint64_t>(e.dtype()));
  switch (e.kind()) {
    case ExprKind::kIntImm:
      return mix(h, static_cast<uint64_t>(e.as<IntImmNode>()->value));
    case ExprKind::kFloatImm:
      return mix(h, float_bits(e.as<FloatImmNode>()->value));
    case ExprKind::kVar:
      return mix(h, e.as<VarNode>()->name);
    case ExprKind::kCast:
      return mix(h, hash_expr(e.as<CastNode>()->value));
    case ExprKind::kNot:
      return mix(h, hash_expr(e.as<NotNode>()->a));
    case ExprKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      h = mix(h, hash_expr(op->cond));
      h = mix(h, hash_expr(op->true_value));
      return mix(h, hash_expr(op->false_value));
    }
    case ExprKind::kCall: {
      const auto* op = e.as<CallNode>();
      return hash_all(mix(h, op->name), op->args);
    }
    case ExprKind::kProducerLoad: {
      const auto* op = e.as<ProducerLoadNode>();
      return hash_all(mix(h, op->op->name), op->indices);
    }
    case ExprKind::kBufferLoad: {
      const auto* op = e.as<BufferLoadNode>();
      return hash_all(mix(h, op->buffer->name), op->indices);
    }
    case ExprKind::kReduce: {
      const auto* op = e.as<ReduceNode>();
      h = mix(h, static_cast<uint64_t>(op->combiner));
      h = mix(h, static_cast<uint64_t>(op->value_index));
      for (const IterVar& iv : op->axis) h = mix(h, iv->var.name());
      h = mix(h, hash_expr(op->source));
      if (op->init.defined()) h = mix(h, hash_expr(op->init));
      return mix(h, hash_expr(op->condition));
    }
    default: {
      const auto* op = e.as<BinaryNode>();
      return mix(mix(h, hash_expr(op->a)), hash_expr(op->b));
    }
  }
}

}  // namespace

bool structural_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
    case ExprKind::kIntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::kFloatImm:
      return float_bits(a.as<FloatImmNode>()->value) == float_bits(b.as<FloatImmNode>()->value);
    case ExprKind::kVar:
      return false;  // identity, and same_as already said no
    case ExprKind::kCast:
      return structural_equal(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::kNot:
      return structural_equal(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::kSelect: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return structural_equal(x->cond, y->cond) && structural_equal(x->true_value, y->true_value) &&
             structural_equal(x->false_value, y->false_value);
    }
    case ExprKind::kCall: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->name == y->name && equal_all(x->args, y->args);
    }
    case ExprKind::kProducerLoad: {
      const auto *x = a.as<ProducerLoadNode>(), *y = b.as<ProducerLoadNode>();
      return x->op == y->op && equal_all(x->indices, y->indices);
    }
    case ExprKind::kBufferLoad: {
      const auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
      return x->buffer == y->buffer && equal_all(x->indices, y->indices);
    }
    case ExprKind::kReduce: {
      const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
      if (x->combiner != y->combiner || x->axis.size() != y->axis.size() ||
          x->value_index != y->value_index) {
        return false;
      }
      for (size_t i = 0; i < x->axis.size(); ++i) {
        if (!same_iter_var(x->axis[i], y->axis[i])) return false;
      }
      return structural_equal(x->source, y->source) &&
             structural_equal(x->condition, y->condition) && structural_equal(x->init, y->init) &&
             same_reducer(x->reducer, y->reducer);
    }
    default: {
      const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return structural_equal(x->a, y->a) && structural_equal(x->b, y->b);
    }
  }
}

size_t structural_hash(const Expr& e) { return static_cast<size_t>(hash_expr(e)); }

int structural_compare(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return 0;
  if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
  // Variables first (so that sums read "x*4 + y + (x / 2)"), then other kinds in ir.def order.
  bool av = a.kind() == ExprKind::kVar, bv = b.kind() == ExprKind::kVar;
  if (av != bv) return av ? -1 : 1;
  if (int c = three_way(a.kind(), b.kind())) return c;
  if (int c = three_way(a.dtype(), b.dtype())) return c;
  switch (a.kind()) {
    case ExprKind::kIntImm:
      return three_way(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value);
    case ExprKind::kFloatImm:
      return three_way(float_bits(a.as<FloatImmNode>()->value),
                       float_bits(b.as<FloatImmNode>()->value));
    case ExprKind::kVar:
      return three_way(a.as<VarNode>()->id, b.as<VarNode>()->id);
    case ExprKind::kCast:
      return structural_compare(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::kNot:
      return structural_compare(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::kSelect: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      if (int c = structural_compare(x->cond, y->cond)) return c;
      if (int c = structural_compare(x->true_value, y->true_value)) return c;
      return structural_compare(x->false_value, y->false_value);
    }
    case ExprKind::kCall: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      return compare_all(x->args, y->args);
    }
    case ExprKind::kProducerLoad: {
      const auto *x = a.as<ProducerLoadNode>(), *y = b.as<ProducerLoadNode>();
      if (int c = x->op->name.compare(y->op->name)) return c < 0 ? -1 : 1;
      return compare_all(x->indices, y->indices);
    }
    case ExprKind::kBufferLoad: {
      const auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
      if (int c = x->buffer->name.compare(y->buffer->name)) return c < 0 ? -1 : 1;
      if (int c = three_way(x->buffer->scope, y->buffer->scope)) return c;
      if (int c = three_way(x->buffer->shape, y->buffer->shape)) return c;
      return compare_all(x->indices, y->indices);
    }
    case ExprKind::kReduce: {
      const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
      if (int c = three_way(x->combiner, y->combiner)) return c;
      if (int c = three_way(x->value_index, y->value_index)) return c;
      if (int c = three_way(x->axis.size(), y->axis.size())) return c;
      for (size_t i = 0; i < x->axis.size(); ++i) {
        if (int c = three_way(x->axis[i]->var.id(), y->axis[i]->var.id())) return c;
      }
      if (int c = structural_compare(x->source, y->source)) return c;
      if (int c = structural_compare(x->init, y->init)) return c;
      if (x->reducer != y->reducer) {
        if (!x->reducer || !y->reducer) return x->reducer ? 1 : -1;
        if (int c = three_way(x->reducer->arity(), y->reducer->arity())) return c;
        for (size_t j = 0; j < x->reducer->arity(); ++j) {
          if (int c = structural_compare(x->reducer->combine[j], y->reducer->combine[j])) return c;
          if (int c = structural_compare(x->reducer->identity[j], y->reducer->identity[j])) {
            return c;
          }
        }
      }
      return structural_compare(x->condition, y->condition);
    }
    default: {
      const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      if (int c = structural_compare(x->a, y->a)) return c;
      return structural_compare(x->b, y->b);
    }
  }
}

}  // namespace tessera
