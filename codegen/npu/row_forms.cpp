#include "codegen/npu/row_forms.h"

#include "compiler/arith/simplify.h"
#include "compiler/ir/substitute.h"

namespace tessera {

std::optional<int64_t> RowInstance::stride(const Var& v, int s) const {
  if (general) return linear_coef(form, v);
  for (const auto& [slot, coef] : terms)
    if (slot == s) return coef;
  return 0;
}

RowForm::RowForm(const Expr& row, IntEnv* env) : row_(row), form_(linear_form(simplify(row))) {
  std::vector<Expr> atoms;  // the atoms that are not plain variables, compiled together
  for (const LinearTerm& t : form_.terms) {
    const bool plain = t.atom.as<VarNode>() != nullptr;
    slot_.push_back(plain ? env->slot(Var(t.atom)) : -1);
    atom_.push_back(plain ? -1 : static_cast<int>(atoms.size()));
    if (!plain) atoms.push_back(t.atom);
    var_type_.push_back(t.atom.dtype());
  }
  if (!atoms.empty()) atoms_ = IntProgram(atoms, env);
  atom_value_.resize(atoms.size());
  plain_ = atoms.empty();
  if (plain_) {
    for (size_t i = 0; i < form_.terms.size(); ++i)
      plain_terms_.push_back({slot_[i], var_type_[i], form_.terms[i].coef});
  }
}

bool RowForm::value_affine(const IntEnv& env, const AffineVar* vars, int n) const {
  if (!plain_) return false;
  bool reads = false;  // a value that reads none of the variables is the same on the box
  for (const PlainTerm& t : plain_terms_)
    for (int j = 0; j < n; ++j) reads = reads || vars[j].slot == t.slot;
  if (!reads) return true;
  AffineValue x;
  __int128 c = form_.constant;
  for (const PlainTerm& t : plain_terms_)
    if (!add_affine_term(env, t.slot, t.type, t.coef, vars, n, &c, &x)) return false;
  if (c < INT64_MIN || c > INT64_MAX) return false;
  x.c = static_cast<int64_t>(c);
  DType type = form_.dtype;
  return affine_unwrapped(x, vars, n, 0, 0, [type](int64_t v) { return wrap_coef(v, type); });
}

void RowForm::instance(const IntEnv& env, RowInstance* out) const {
  out->general = false;
  out->dtype = form_.dtype;
  out->terms.clear();
  uint64_t constant = static_cast<uint64_t>(form_.constant);  // wraps, as the form's constant
  if (!atom_value_.empty()) atoms_.eval_all(env, atom_value_.data());
  for (size_t i = 0; i < form_.terms.size(); ++i) {
    int64_t coef = form_.terms[i].coef;
    int64_t v;
    if (slot_[i] >= 0) {
      if (!env.bound(slot_[i])) {
        out->terms.push_back({slot_[i], coef});
        continue;
      }
      // A bound variable: its constant, as eval_int reads it.
      if (!env.constant(slot_[i], var_type_[i], &v)) return general(env, out);
    } else {
      const std::optional<int64_t>& x = atom_value_[atom_[i]];
      if (!x) return general(env, out);
      v = *x;
    }
    constant += static_cast<uint64_t>(coef) * static_cast<uint64_t>(v);
  }
  out->constant = wrap_coef(static_cast<int64_t>(constant), out->dtype);
}

void RowForm::general(const IntEnv& env, RowInstance* out) const {
  out->general = true;
  out->form = linear_form(simplify(substitute(row_, env.var_map())));
}

namespace {

size_t folded_index(const std::vector<FoldLoop>& folded, int slot) {
  size_t k = 0;
  while (k < folded.size() && folded[k].slot != slot) ++k;
  return k;
}

}  // namespace

std::optional<AffineRow> affine_row_from(const RowInstance& inst, const IntEnv& env,
                                         const std::vector<FoldLoop>& folded) {
  AffineRow r;
  int64_t from_min = 0;
  // Each term's variable: folded (a stride) or bound to a constant (into the base).
  auto term = [&](int slot, DType t, int64_t coef, uint64_t* constant) {
    size_t k = folded_index(folded, slot);
    if (k < folded.size()) {
      r.stride[k] = coef;
      from_min += coef * folded[k].min;
      return true;
    }
    int64_t x;
    if (slot < 0 || !env.constant(slot, t, &x)) return false;
    *constant += static_cast<uint64_t>(coef) * static_cast<uint64_t>(x);
    return true;
  };
  if (inst.general) {
    uint64_t constant = static_cast<uint64_t>(inst.form.constant);
    for (const LinearTerm& t : inst.form.terms) {
      const auto* v = t.atom.as<VarNode>();
      if (!v || !term(env.find(v), t.atom.dtype(), t.coef, &constant)) return std::nullopt;
    }
    r.base = wrap_coef(static_cast<int64_t>(constant), inst.form.dtype) + from_min;
    return r;
  }
  uint64_t constant = static_cast<uint64_t>(inst.constant);
  for (const auto& [slot, coef] : inst.terms)
    if (!term(slot, env.var(slot).dtype(), coef, &constant)) return std::nullopt;
  r.base = wrap_coef(static_cast<int64_t>(constant), inst.dtype) + from_min;
  return r;
}

std::optional<AffineRow> affine_row(const RowForm& row, const IntEnv& env,
                                    const std::vector<FoldLoop>& folded, RowInstance* scratch) {
  row.instance(env, scratch);
  AffineRow r;
  auto term = [&](int slot, int64_t coef) {
    size_t k = folded_index(folded, slot);
    if (slot < 0 || k == folded.size()) return false;
    r.stride[k] = coef;
    r.base += coef * folded[k].min;
    return true;
  };
  if (scratch->general) {
    r.base = scratch->form.constant;
    for (const LinearTerm& t : scratch->form.terms) {
      const auto* v = t.atom.as<VarNode>();
      if (!v || !term(env.find(v), t.coef)) return std::nullopt;
    }
    return r;
  }
  r.base = scratch->constant;
  for (const auto& [slot, coef] : scratch->terms)
    if (!term(slot, coef)) return std::nullopt;
  return r;
}

}  // namespace tessera
