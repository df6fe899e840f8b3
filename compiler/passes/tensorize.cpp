#include "compiler/passes/tensorize.h"

#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/substitute.h"
#include "runtime/base/error.h"

namespace tessera {

Expr flat_index(const Buffer& b, const std::vector<Expr>& index) {
  Expr flat = index.empty() ? make_int(0) : index[0];
  for (size_t d = 1; d < index.size(); ++d) flat = flat * make_int(b->shape[d]) + index[d];
  return flat;
}

namespace {

int64_t coef_of(const Expr& e, const Var& v) {
  for (const LinearTerm& t : linear_form(simplify(e)).terms) {
    if (t.atom.same_as(v)) return t.coef;
  }
  return 0;
}

bool row_aligned(const Expr& e, int64_t width) {
  LinearForm f = linear_form(simplify(e));
  if (f.constant % width) return false;
  for (const LinearTerm& t : f.terms) {
    if (t.coef % width) return false;
  }
  return true;
}

class Matcher {
 public:
  Matcher(const StageNode& st, const StageBounds& b, size_t level, const Expr& source)
      : st_(st), b_(b), level_(level), source_(source) {}

  [[noreturn]] void fail(const std::string& why) const {
    std::string body = "sum(" + to_string(simplify(source_)) + ") over loops";
    for (size_t i = level_; i < st_.leaf_iter_vars.size(); ++i) {
      const IterVar& iv = st_.leaf_iter_vars[i];
      body += " " + iv->var.name() + "[" + std::to_string(b_.extent.at(iv->var.id())) + "]";
    }
    throw ScheduleError(str("stage '", st_.name(), "': tensorize at axis '",
                            st_.tensorize_ivar->var.name(), "' with '", st_.intrin->name,
                            "': ", why, "\n  loop body: ", body,
                            "\n  intrinsic: ", st_.intrin->to_string()));
  }

  Stmt match(const Buffer& store, const std::vector<Expr>& store_index) {
    const auto& leaves = st_.leaf_iter_vars;
    if (leaves.size() - level_ != 2) {
      fail(str("the intrinsic covers 2 loops (o, i) but ", leaves.size() - level_,
               " loop(s) are under the axis"));
    }
    IterVar o, i;
    for (size_t k = level_; k < leaves.size(); ++k) {
      (leaves[k]->kind == IterKind::kReduce ? i : o) = leaves[k];
    }
    if (!o || !i)
      fail(
          "missing reduction: the loops under the axis must be one data-parallel "
          "loop (o) and one reduction loop (i)");
    const int64_t bi = st_.intrin->block_in, bo = st_.intrin->block_out;
    for (auto [iv, want] : {std::pair<IterVar, int64_t>{o, bo}, {i, bi}}) {
      if (b_.extent.at(iv->var.id()) != want) {
        fail(str("loop '", iv->var.name(), "' has extent ", b_.extent.at(iv->var.id()),
                 "; the intrinsic's loop has extent ", want));
      }
    }
    const auto* mul = source_.as<BinaryNode>();
    if (st_.op->dtype != DType::kInt32) {
      fail(str("wrong dtype: the stage computes ", dtype_name(st_.op->dtype),
               ", the intrinsic int32"));
    }
    if (!mul || mul->kind != ExprKind::kMul) fail("the body is not a product of two inputs");
    const BufferLoadNode* x = load_of(mul->a);
    const BufferLoadNode* y = load_of(mul->b);
    if (!x || !y) fail("each factor must be an int8 tensor element cast to int32");
    Expr ox = flat_index(x->buffer, x->indices), oy = flat_index(y->buffer, y->indices);
    // inp does not move with o; wgt does.
    if (coef_of(ox, o->var) != 0) {
      std::swap(x, y);
      std::swap(ox, oy);
    }
    Expr oacc = flat_index(store, store_index);
    check_stride("the output", oacc, o, 1);
    check_stride("the output", oacc, i, 0);
    check_stride(str("input '", x->buffer->name, "'"), ox, i, 1);
    check_stride(str("input '", x->buffer->name, "'"), ox, o, 0);
    check_stride(str("weight '", y->buffer->name, "'"), oy, i, 1);
    check_stride(str("weight '", y->buffer->name, "'"), oy, o, bi);
    check_scope(store, "acc", "the output");
    check_scope(x->buffer, "sram", "the input");
    check_scope(y->buffer, "sram", "the weight");
    VarMap zero{{o->var, make_int(0)}, {i->var, make_int(0)}};
    auto row = [&](const Expr& flat, const std::string& what, int64_t width) {
      Expr base = simplify(substitute(flat, zero));
      if (!row_aligned(base, width)) {
        fail(str(what, " does not start on a ", width, "-element row (flat index ", to_string(base),
                 ")"));
      }
      return simplify(base / make_int(width));
    };
    auto g = std::make_shared<NpuGemmNode>();
    g->reset = false;
    g->acc = store;
    g->acc_row = row(oacc, "the output", bo);
    g->inp = x->buffer;
    g->inp_row = row(ox, "the input", bi);
    g->wgt = y->buffer;
    g->wgt_row = row(oy, "the weight", bi);
    return Stmt(g);
  }

 private:
  const BufferLoadNode* load_of(const Expr& e) const {
    const auto* c = e.as<CastNode>();
    if (!c || c->dtype != DType::kInt32) return nullptr;
    const auto* l = c->value.as<BufferLoadNode>();
    if (!l) return nullptr;
    if (l->buffer->dtype != DType::kInt8) {
      fail(str("wrong dtype: '", l->buffer->name, "' is ", dtype_name(l->buffer->dtype),
               ", the intrinsic's inputs are int8"));
    }
    return l;
  }
  void check_stride(const std::string& what, const Expr& flat, const IterVar& iv,
                    int64_t expected) const {
    int64_t c = coef_of(flat, iv->var);
    if (c != expected) {
      fail(str("wrong stride: ", what, " moves by ", c, " element(s) per step of '", iv->var.name(),
               "', the intrinsic needs ", expected));
    }
  }
  void check_scope(const Buffer& b, const char* scope, const char* what) const {
    if (b->scope != scope) {
      fail(str(what, " '", b->name, "' is in scope '", b->scope, "'; the intrinsic reads it from '",
               scope, "' (use cache_read/cache_write/set_scope)"));
    }
  }

  const StageNode& st_;
  const StageBounds& b_;
  size_t level_;
  Expr source_;
};

}  // namespace

Stmt tensorize(const StageNode& st, const StageBounds& b, size_t level, const Buffer& store,
               const std::vector<Expr>& store_index, const Expr& source) {
  Matcher m(st, b, level, source);
  return m.match(store, store_index);
}

}  // namespace tessera
