// Answers to arithmetic questions that a pass asks again and again, kept for the lifetime of a
// scope on the calling thread.
//
// inject_npu_ops simplifies each DMA's region clamps (nested min/max) and then expressions built
// from them, again and again; each min/max asks const_bounds, which distributes the nested terms
// up to its budget: on l1_3x3, three quarters of those steps repeated a query already answered in
// the same lowering. While an ArithMemo is alive, const_bounds of a linear form under no variable
// ranges is kept, keyed by the form's structure (hash, then term-by-term structural equality).
// Without ranges the bounds are a function of that structure alone, so a remembered answer is the
// one the query would compute: the memo never changes a result (kernels are byte-identical with
// and without it). The table is looked up, never iterated.
// The forms of sums the simplifier built are remembered too, by node: linear_form of such a node
// returns the form it was printed from, which is the form parsing it gives (its atoms are index
// arithmetic, so the terms sort back into one order).
// (Remembering simplify's result per node under no ranges was tried as well: it saved nothing,
// since each call builds new nodes around the old ones.)
// lower() holds one per lowering; scopes nest (an inner one uses the outer tables), and nothing
// is kept from one lowering to the next.
#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/arith/const_bounds.h"

namespace tessera {

class ArithMemo {
 public:
  ArithMemo();
  ~ArithMemo();
  ArithMemo(const ArithMemo&) = delete;
  ArithMemo& operator=(const ArithMemo&) = delete;

  struct Bounds {
    LinearForm form;
    ConstBounds bounds;
  };
  // The form of an expression linear_sum_expr or linear_product_expr built (linear_form.h).
  struct Form {
    Expr expr;
    LinearForm form;
  };
  static constexpr size_t kForms = size_t{1} << 8;  // a power of two
  struct Tables {
    std::unordered_map<size_t, std::vector<Bounds>> bounds;  // by the form's structural hash
    // Direct-mapped by the expression's address (lookup only; a clash replaces the entry). Each
    // entry holds its expression, so no other node takes that address while it is remembered.
    std::vector<Form> forms;
  };
  // The tables of the innermost live scope on this thread, or nullptr. (Inline: the arithmetic
  // asks at every sum it builds and parses.)
  static Tables* current() { return live_; }

 private:
  static inline thread_local Tables* live_ = nullptr;
  Tables* owned_ = nullptr;  // when this scope is the outermost
};

}  // namespace tessera
