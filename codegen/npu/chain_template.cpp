#include "codegen/npu/chain_template.h"

#include "compiler/arith/linear_form.h"

namespace tessera {

ChainTemplate::ChainTemplate(const std::vector<RowForm>& rows, const std::vector<FoldLoop>& loops)
    : rows_(rows.size()), loops_(loops.size()) {
  if (rows_ > 3) return;
  for (size_t i = 0; i < loops.size(); ++i) {
    DType t = loops[i].var->dtype();
    if (!is_int(t) && t != DType::kBool) return;  // bind_loop's error: the general path's
    for (size_t j = 0; j < i; ++j)
      if (loops[j].slot == loops[i].slot) return;
    chain_slot_.push_back(loops[i].slot);
  }
  outer_.resize(rows_);
  chain_coef_.assign(rows_ * loops_, 0);
  for (size_t k = 0; k < rows_; ++k) {
    const std::vector<RowForm::PlainTerm>* terms = rows[k].plain_terms();
    if (!terms) return;
    constant_.push_back(rows[k].constant());
    dtype_.push_back(rows[k].dtype());
    for (const RowForm::PlainTerm& t : *terms) {
      size_t i = 0;
      while (i < loops_ && chain_slot_[i] != t.slot) ++i;
      if (i < loops_) {
        chain_coef_[k * loops_ + i] = t.coef;  // distinct atoms: each variable once
      } else {
        outer_[k].push_back({t.slot, t.type, t.coef});
      }
    }
  }
  for (int64_t c : chain_coef_) strides_.push_back(c);
  ok_ = true;
}

bool ChainTemplate::constants(const IntEnv& env, int64_t* out) const {
  for (int s : chain_slot_)
    if (env.bound(s)) return false;
  for (size_t k = 0; k < rows_; ++k) {
    uint64_t c = static_cast<uint64_t>(constant_[k]);  // wraps, as RowForm::instance
    for (const Outer& t : outer_[k]) {
      int64_t v;
      if (!env.constant(t.slot, t.type, &v)) return false;
      c += static_cast<uint64_t>(t.coef) * static_cast<uint64_t>(v);
    }
    out[k] = wrap_row(static_cast<int64_t>(c), dtype_[k]);
  }
  return true;
}

bool ChainTemplate::affine(const IntEnv& env, const AffineVar* vars, int n, const int64_t* lo,
                           const int64_t* hi) const {
  for (int s : chain_slot_)
    if (env.bound(s)) return false;
  bool reads = false;  // bases that read none of the variables are the same on the box
  for (size_t k = 0; k < rows_; ++k)
    for (const Outer& t : outer_[k])
      for (int j = 0; j < n; ++j) reads = reads || vars[j].slot == t.slot;
  if (!reads) return true;
  for (size_t k = 0; k < rows_; ++k) {
    AffineValue x;
    __int128 c = constant_[k];
    for (const Outer& t : outer_[k])
      if (!add_affine_term(env, t.slot, t.type, t.coef, vars, n, &c, &x)) return false;
    if (c < INT64_MIN || c > INT64_MAX) return false;
    x.c = static_cast<int64_t>(c);
    const DType type = dtype_[k];
    auto wrap = [type](int64_t v) { return wrap_row(v, type); };
    if (!affine_unwrapped(x, vars, n, 0, 0, wrap)) return false;
    __int128 e_lo = 0, e_hi = 0;
    const int64_t* coef = coef_.data() + k * level_.size();
    for (size_t l = 0; l < level_.size(); ++l) {
      __int128 a = static_cast<__int128>(coef[l]) * lo[l], b = static_cast<__int128>(coef[l]) * hi[l];
      e_lo += a < b ? a : b;
      e_hi += a < b ? b : a;
    }
    if (e_lo < INT64_MIN || e_hi > INT64_MAX) return false;
    if (!affine_unwrapped(x, vars, n, static_cast<int64_t>(e_lo), static_cast<int64_t>(e_hi), wrap))
      return false;
  }
  return true;
}

void ChainTemplate::plan(const FoldChoice& pick, size_t loops) {
  level_.clear();
  for (size_t i = 0; i < loops; ++i)
    if (!pick.folds(i)) level_.push_back(i);
  coef_.assign(rows_ * level_.size(), 0);
  for (size_t k = 0; k < rows_; ++k) {
    for (size_t l = 0; l < level_.size(); ++l)
      coef_[k * level_.size() + l] = chain_coef_[k * loops_ + level_[l]];
    for (int f = 0; f < 2; ++f)
      stride_[k][f] = f < pick.count ? chain_coef_[k * loops_ + pick.loop[f]] : 0;
  }
}

}  // namespace tessera
