#include "compiler/passes/flatten_storage.h"

#include "compiler/ir/ir_visitor.h"

namespace tessera {

Expr flat_index(const std::vector<int64_t>& shape, const std::vector<Expr>& idx) {
  if (idx.size() == 1) return idx[0];
  Expr flat = idx.empty() ? make_int(0) : idx[0];
  for (size_t d = 1; d < idx.size(); ++d) flat = flat * make_int(shape[d]) + idx[d];
  return flat;
}
Expr flat_index(const Buffer& b, const std::vector<Expr>& idx) { return flat_index(b->shape, idx); }

namespace {

class Flattener : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Expr mutate_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    bool changed = false;
    std::vector<Expr> idx = mutate_all(op->indices, &changed);
    if (idx.size() == 1 && !changed) return e;
    return make_buffer_load(op->buffer, {flat_index(op->buffer, idx)});
  }
  Stmt mutate_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    bool changed = false;
    std::vector<Expr> idx = mutate_all(op->indices, &changed);
    Expr v = mutate(op->value);
    if (idx.size() == 1 && !changed && v.same_as(op->value)) return s;
    return make_store(op->buffer, {flat_index(op->buffer, idx)}, v);
  }
};

}  // namespace

Stmt flatten_storage(const Stmt& s) {
  Flattener f;
  return f.mutate(s);
}

}  // namespace tessera
