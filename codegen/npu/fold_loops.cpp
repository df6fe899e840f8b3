#include "codegen/npu/fold_loops.h"

#include <algorithm>
#include <tuple>

#include "compiler/arith/eval_int.h"
#include "compiler/arith/linear_form.h"
#include "compiler/arith/simplify.h"

namespace tessera {
namespace {

constexpr int64_t kMaxU16 = 65535;

LinearForm form_of(const Expr& e, const VarMap& env) {
  return linear_form(simplify(substitute(e, env)));
}

bool bound(const Expr& var, const VarMap& env) {
  return env.find(var.as<VarNode>()) != env.end();
}

const VarNode* atom_var(const LinearTerm& t) { return t.atom.as<VarNode>(); }

// Does the accumulator row take a different value in every iteration of the chain?
bool injective(const LinearForm& acc, const std::vector<FoldLoop>& chain) {
  std::vector<std::pair<int64_t, int64_t>> radix;  // (stride, extent)
  for (const FoldLoop& l : chain) {
    std::optional<int64_t> c = linear_coef(acc, l.var);
    if (!c || *c < 0) return false;
    if (l.extent == 1) continue;
    if (*c == 0) return false;
    radix.push_back({*c, l.extent});
  }
  std::sort(radix.begin(), radix.end());
  int64_t span = 0;  // largest offset reachable with the smaller strides
  for (const auto& [stride, extent] : radix) {
    if (stride <= span) return false;
    span += stride * (extent - 1);
  }
  return true;
}

}  // namespace

LinearForm RowForms::instance(const Expr& row, const VarMap& env) {
  auto it = cache_.find(row.get());
  if (it == cache_.end()) {
    Compiled c;
    c.row = row;
    c.form = linear_form(simplify(row));
    for (const LinearTerm& t : c.form.terms) c.plain.push_back(t.atom.as<VarNode>() != nullptr);
    it = cache_.emplace(row.get(), std::move(c)).first;
  }
  const Compiled& c = it->second;
  LinearForm out;
  out.dtype = c.form.dtype;
  uint64_t constant = static_cast<uint64_t>(c.form.constant);  // wraps, as the form's constant
  for (size_t i = 0; i < c.form.terms.size(); ++i) {
    const LinearTerm& t = c.form.terms[i];
    if (c.plain[i] && !bound(t.atom, env)) {
      out.terms.push_back(t);
      continue;
    }
    std::optional<int64_t> v = eval_int(t.atom, env);
    if (!v) return form_of(row, env);
    constant += static_cast<uint64_t>(t.coef) * static_cast<uint64_t>(*v);
  }
  out.constant = wrap_coef(static_cast<int64_t>(constant), out.dtype);
  return out;
}

std::vector<Expr> leaf_rows(const Stmt& leaf) {
  if (const auto* g = leaf.as<NpuGemmNode>()) return {g->acc_row, g->inp_row, g->wgt_row};
  if (const auto* v = leaf.as<NpuVectorNode>()) {
    std::vector<Expr> rows = {v->dst_row, v->src_row};
    if (v->src2) rows.push_back(v->src2_row);
    return rows;
  }
  return {};
}

std::vector<size_t> choose_fold(const std::vector<FoldLoop>& chain, const Stmt& leaf,
                                const VarMap& env, RowForms* row_forms,
                                std::vector<LinearForm>* forms_out) {
  std::vector<LinearForm> forms;
  for (const Expr& r : leaf_rows(leaf)) forms.push_back(row_forms->instance(r, env));
  if (forms_out) *forms_out = forms;
  std::vector<bool> foldable(chain.size());
  for (size_t i = 0; i < chain.size(); ++i) {
    bool ok = chain[i].extent >= 1 && chain[i].extent <= kMaxU16;
    for (const LinearForm& f : forms) {
      std::optional<int64_t> c = linear_coef(f, chain[i].var);
      ok = ok && c && *c >= 0 && *c <= kMaxU16;
    }
    foldable[i] = ok;
  }
  // An accumulation (GEMM or vector mac: int32 sums wrap, so any order gives the same bits) may
  // fold any loops; an overwriting GEMM when its accumulator row differs in every iteration.
  const auto* gemm = leaf.as<NpuGemmNode>();
  const auto* vec = leaf.as<NpuVectorNode>();
  bool any_order = (gemm && (!gemm->reset || injective(forms[0], chain))) ||
                   (vec && vec->op == npu::VecOp::kMac);
  size_t n = chain.size();
  int64_t total = 1;
  for (const FoldLoop& l : chain) total *= l.extent;

  std::vector<size_t> best;
  std::tuple<int64_t, int, size_t, size_t> best_key{0, 0, 0, 0};
  auto consider = [&](std::vector<size_t> pick) {
    for (size_t i : pick)
      if (!foldable[i]) return;
    bool suffix = pick.back() == n - 1 && (pick.size() == 1 || pick[0] == n - 2);
    if (!suffix && !any_order) return;
    int64_t folded = 1;
    for (size_t i : pick) folded *= chain[i].extent;
    std::tuple<int64_t, int, size_t, size_t> key{total / folded, suffix ? 0 : 1, pick[0],
                                                 pick.back()};
    if (best.empty() || key < best_key) {
      best = pick;
      best_key = key;
    }
  };
  for (size_t i = 0; i < n; ++i) {
    consider({i});
    for (size_t j = i + 1; j < n; ++j) consider({i, j});
  }
  return best;
}

std::optional<AffineRow> affine_row(const Expr& row, const VarMap& env,
                                    const std::vector<FoldLoop>& folded, RowForms* forms) {
  LinearForm f = forms->instance(row, env);
  AffineRow r;
  r.base = f.constant;
  for (const LinearTerm& t : f.terms) {
    const VarNode* v = atom_var(t);
    size_t k = 0;
    while (k < folded.size() && folded[k].var.node() != v) ++k;
    if (!v || k == folded.size()) return std::nullopt;
    r.stride[k] = t.coef;
    r.base += t.coef * folded[k].min;
  }
  return r;
}

std::optional<AffineRow> affine_row_from(const LinearForm& chain_form, const VarMap& env,
                                         const std::vector<FoldLoop>& folded) {
  AffineRow r;
  uint64_t constant = static_cast<uint64_t>(chain_form.constant);  // wraps, as a form's constant
  int64_t from_min = 0;
  for (const LinearTerm& t : chain_form.terms) {
    const VarNode* v = atom_var(t);
    if (!v) return std::nullopt;
    size_t k = 0;
    while (k < folded.size() && folded[k].var.node() != v) ++k;
    if (k < folded.size()) {
      r.stride[k] = t.coef;
      from_min += t.coef * folded[k].min;
      continue;
    }
    std::optional<int64_t> x = eval_int(t.atom, env);
    if (!x) return std::nullopt;
    constant += static_cast<uint64_t>(t.coef) * static_cast<uint64_t>(*x);
  }
  r.base = wrap_coef(static_cast<int64_t>(constant), chain_form.dtype) + from_min;
  return r;
}

}  // namespace tessera
