// The canonical affine form of an integer expression: constant + sum of coefficient * atom.
//
// An atom is any sub-expression that is not itself a sum, a difference, a product by a constant
// or a constant: a variable, x / 4, x % 4, min(..), a load, a product of two non-constant factors.
// Parsing flattens + - and * by constants; terms are kept in structural_compare order (variables
// first, by creation) with equal atoms merged and zero coefficients dropped, so two expressions
// with the same affine meaning have the same form: x*4 + 1 - x*4 is the constant 1.
//
// Coefficients and the constant are kept wrapped to the type's width (as signed values), which is
// exact: + - * on integers of a fixed width are arithmetic modulo 2^bits, where reassociation
// and collecting terms are valid. (Anything that compares or divides is not; callers that reason
// about orders or quotients must bound the values separately.)
//
// Normalisation also merges the split-and-fuse pattern (x / c) * c + x % c into x, which is exact
// for floor division with any non-zero c.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

struct LinearTerm {
  Expr atom;
  int64_t coef;
};

// The terms of a form: a vector that holds a few terms in place (an index has a handful), so that
// most forms allocate nothing; the std::vector operations the arithmetic uses.
class LinearTerms {
 public:
  using value_type = LinearTerm;
  using iterator = LinearTerm*;
  using const_iterator = const LinearTerm*;

  LinearTerms() = default;
  LinearTerms(const LinearTerms& o) { insert(end(), o.begin(), o.end()); }
  LinearTerms(LinearTerms&& o) noexcept { take(&o); }
  LinearTerms& operator=(const LinearTerms& o) {
    if (this != &o) {
      clear();
      insert(end(), o.begin(), o.end());
    }
    return *this;
  }
  LinearTerms& operator=(LinearTerms&& o) noexcept {
    if (this != &o) {
      release();
      take(&o);
    }
    return *this;
  }
  ~LinearTerms() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  LinearTerm* begin() { return data_; }
  LinearTerm* end() { return data_ + size_; }
  const LinearTerm* begin() const { return data_; }
  const LinearTerm* end() const { return data_ + size_; }
  LinearTerm& operator[](size_t i) { return data_[i]; }
  const LinearTerm& operator[](size_t i) const { return data_[i]; }
  LinearTerm& back() { return data_[size_ - 1]; }
  const LinearTerm& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    auto* d = static_cast<LinearTerm*>(::operator new(n * sizeof(LinearTerm)));
    for (size_t i = 0; i < size_; ++i) {
      new (d + i) LinearTerm(std::move(data_[i]));
      data_[i].~LinearTerm();
    }
    if (data_ != inline_data()) ::operator delete(data_);
    data_ = d;
    cap_ = n;
  }
  void push_back(const LinearTerm& t) {
    if (size_ == cap_) {
      LinearTerm copy = t;  // t may live in this vector
      reserve(cap_ * 2);
      new (data_ + size_++) LinearTerm(std::move(copy));
      return;
    }
    new (data_ + size_++) LinearTerm(t);
  }
  void push_back(LinearTerm&& t) {
    if (size_ == cap_) reserve(cap_ * 2);
    new (data_ + size_++) LinearTerm(std::move(t));
  }
  // Appends [first, last) (only at the end).
  template <typename It>
  void insert(LinearTerm* pos, It first, It last) {
    (void)pos;
    size_t n = static_cast<size_t>(last - first);
    if (size_ + n > cap_) reserve(std::max(size_ + n, cap_ * 2));
    for (; first != last; ++first) new (data_ + size_++) LinearTerm(*first);
  }
  LinearTerm* erase(LinearTerm* pos) { return erase(pos, pos + 1); }
  LinearTerm* erase(LinearTerm* first, LinearTerm* last) {
    LinearTerm* e = end();
    LinearTerm* out = std::move(last, e, first);
    resize(static_cast<size_t>(out - data_));
    return first;
  }
  // Shrinks to n terms (n <= size()).
  void resize(size_t n) {
    while (size_ > n) data_[--size_].~LinearTerm();
  }
  void clear() { resize(0); }

 private:
  static constexpr size_t kInline = 6;
  LinearTerm* inline_data() { return reinterpret_cast<LinearTerm*>(buf_); }
  void release() {
    clear();
    if (data_ != inline_data()) ::operator delete(data_);
    data_ = inline_data();
    cap_ = kInline;
  }
  // Takes o's terms, leaving o empty (this is empty and inline).
  void take(LinearTerms* o) {
    if (o->data_ != o->inline_data()) {
      data_ = o->data_;
      cap_ = o->cap_;
      size_ = o->size_;
      o->data_ = o->inline_data();
      o->cap_ = kInline;
      o->size_ = 0;
      return;
    }
    for (size_t i = 0; i < o->size_; ++i) new (data_ + i) LinearTerm(std::move(o->data_[i]));
    size_ = o->size_;
    o->clear();
  }
  alignas(LinearTerm) unsigned char buf_[kInline * sizeof(LinearTerm)];
  LinearTerm* data_ = inline_data();
  size_t size_ = 0;
  size_t cap_ = kInline;
};

struct LinearForm {
  DType dtype = kIndexType;
  LinearTerms terms;  // canonical order, distinct atoms, non-zero coefficients
  int64_t constant = 0;
  bool is_constant() const { return terms.empty(); }
};

// The canonical form of e (an integer expression). Atoms are taken as they are: simplify them
// first for the best result.
LinearForm linear_form(const Expr& e);
// The constant c in type t as a form.
LinearForm linear_constant(int64_t c, DType t);
// a + scale * b, normalised. a and b must have the same type.
LinearForm linear_add(const LinearForm& a, const LinearForm& b, int64_t scale = 1);
// scale * a, normalised.
LinearForm linear_scale(const LinearForm& a, int64_t scale);
// The expression for a form: terms in order with positive terms first where possible, the
// constant last: ((io * 32) + ii) + 31, (3 - x), ((x * 4) - y).
Expr linear_form_to_expr(const LinearForm& f);

// linear_add(linear_form(a), linear_form(b), scale), reading remembered forms (below) in place.
LinearForm linear_sum(const Expr& a, const Expr& b, int64_t scale);
// For index arithmetic (int32/int64 reading no memory): the canonical expression of a + scale * b,
// linear_form_to_expr(linear_add(linear_form(a), linear_form(b), scale)), and of a * b,
// linear_form_to_expr(linear_form(a * b)). While an ArithMemo lives (arith_memo.h) the result's
// form is remembered (unless it has a product atom x*y), so linear_form of it does not parse it
// again: the simplifier works bottom-up and parses each sum it built as an operand of the next
// ((x + y) + z) + w.
Expr linear_sum_expr(const Expr& a, const Expr& b, int64_t scale);
Expr linear_product_expr(const Expr& a, const Expr& b);
// e is an expression those two built whose form is remembered (so it is index arithmetic).
bool remembered_index_sum(const Expr& e);

// The coefficient of v in f when v appears only as a plain term (0 when it does not appear);
// nullopt when v appears inside another atom (x / 4, x * y, min(..)), so that f is not affine in v.
// The one stride query of the NPU passes (tensorize, inject_npu_ops, codegen's loop folding).
std::optional<int64_t> linear_coef(const LinearForm& f, const Var& v);
// linear_coef of e's form (simplify e first for the best result).
std::optional<int64_t> linear_coef(const Expr& e, const Var& v);

// A coefficient or constant wrapped to t's width, as a signed value (uint8 as int8).
int64_t wrap_coef(int64_t v, DType t);

}  // namespace tessera
