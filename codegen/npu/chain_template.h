// A GEMM or vector statement under a perfect chain of loops (fold_loops.h), compiled once into a
// template, so that each instance of the chain costs a few integer operations instead of
// row instances, stride queries and a fold choice.
//
// When every row's linear form has only plain variables as atoms (RowForm::plain_terms), the row
// over a chain instance (RowForm::instance with the chain's variables unbound) is exactly: its
// constant plus the bound variables' terms, wrapped to the row's type, plus the chain variables'
// terms. So the stride of each row in each chain loop is the same for every instance (the
// coefficient, 0 when the row does not use the variable), hence so is the fold problem for equal
// extents, and the rows' bases over the unrolled loops are the instance constant plus each
// unrolled loop's coefficient times its value, wrapped as affine_row_from wraps them, plus the
// folded loops' strides times their minimums. Nothing is guessed: an instance where a chain
// variable is bound, or another variable is not a constant of its type, is not templated (the
// selector then takes its general path, which gives the same answers).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/npu/fold_loops.h"
#include "codegen/npu/row_forms.h"
#include "compiler/arith/const_fold.h"
#include "compiler/arith/int_program.h"

namespace tessera {

class ChainTemplate {
 public:
  // wrap_coef, inline: the value wrapped to the row's type (uint8 as int8).
  static int64_t wrap_row(int64_t v, DType t) {
    return t == DType::kUInt8 ? static_cast<int8_t>(static_cast<uint8_t>(v)) : wrap_int(v, t);
  }

  // rows: the statement's rows (leaf_rows order); loops: the chain's loops (outer first), their
  // slots as in FoldLoop. ok() is false when a row has an atom that is not a plain variable, a
  // chain variable repeats, or a chain variable is not an integer.
  ChainTemplate(const std::vector<RowForm>& rows, const std::vector<FoldLoop>& loops);
  bool ok() const { return ok_; }

  // Each row's instance constant under env (the chain's variables unbound): false when a chain
  // variable is bound or another variable of a row is not a constant of its type.
  bool constants(const IntEnv& env, int64_t* out) const;

  // constants() and base() over the box of vars (int_program.h), the l-th unrolled loop's value
  // anywhere in [lo[l], hi[l]]: true when constants() decides at every point and neither wrap to
  // a row's type changes anything there, so that every base is affine in vars.
  bool affine(const IntEnv& env, const AffineVar* vars, int n, const int64_t* lo,
              const int64_t* hi) const;

  // The fold problem's strides: per row, per chain loop (row-major), as RowInstance::stride.
  const std::vector<std::optional<int64_t>>& strides() const { return strides_; }

  // The instructions of one chain instance, given its loops (this instance's bounds) and the
  // fold choice: per row the strides of the folded loops; per row and unrolled loop the
  // coefficient. plan() is called when the choice changes.
  void plan(const FoldChoice& pick, size_t loops);
  const std::vector<size_t>& levels() const { return level_; }  // the unrolled loops, outer first
  // Row k's base at the unrolled loops' values (value[l], the l-th unrolled loop's variable,
  // wrapped to its type), given the instance constant and the folded loops' minimums.
  int64_t base(size_t k, int64_t constant, const int64_t* value, int64_t from_min) const {
    uint64_t x = static_cast<uint64_t>(constant);
    const int64_t* c = coef_.data() + k * level_.size();
    for (size_t l = 0; l < level_.size(); ++l)
      x += static_cast<uint64_t>(c[l]) * static_cast<uint64_t>(value[l]);
    return wrap_row(static_cast<int64_t>(x), dtype_[k]) + from_min;
  }
  // Row k's stride in folded loop f (0 or 1) under the plan.
  int64_t stride(size_t k, int f) const { return stride_[k][f]; }
  // Row k's offset from the folded loops' minimums (affine_row_from's from_min).
  int64_t from_min(size_t k, const std::vector<FoldLoop>& folded) const {
    int64_t m = 0;
    for (size_t f = 0; f < folded.size(); ++f) m += stride_[k][f] * folded[f].min;
    return m;
  }

  // The last fold problem's extents and choice (the strides and flags are fixed per chain).
  std::vector<int64_t> extent;
  FoldChoice choice;
  bool decided = false;

 private:
  struct Outer {  // a term of a variable outside the chain
    int slot;
    DType type;
    int64_t coef;
  };
  bool ok_ = false;
  size_t rows_ = 0, loops_ = 0;
  std::vector<int> chain_slot_;
  std::vector<std::vector<Outer>> outer_;        // per row
  std::vector<int64_t> constant_;                // per row: the form's constant
  std::vector<DType> dtype_;                     // per row
  std::vector<int64_t> chain_coef_;              // per row, per chain loop
  std::vector<std::optional<int64_t>> strides_;  // the same, as the fold problem reads it
  // The plan.
  std::vector<size_t> level_;
  std::vector<int64_t> coef_;  // per row, per unrolled loop
  int64_t stride_[3][2] = {{0, 0}, {0, 0}, {0, 0}};
};

}  // namespace tessera
