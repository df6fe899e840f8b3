// Constant bounds of an integer expression over a box: every variable takes any value of its own
// constant interval, independently of the others (a loop nest whose bounds are known).
//
//   Box box;
//   box.push(x, 0, 15);                          // 0 <= x <= 15
//   std::optional<BoxRange> r = box_bounds(e, box);  // every value of e lies in [r->min, r->max]
//
// Plain interval arithmetic, one node at a time: cheap (no expression is built, nothing is
// simplified), exact for a sum in which each variable appears once, and otherwise a superset. It
// exists to let verify accept the common in-range access before running or simplifying anything;
// whatever it does not decide is left to the general analyses (const_bounds.h, the exact check).
//
// Sound or silent: a range is returned only when every point of the box gives a value inside it,
// with the IR's semantics (const_fold.h). So it answers nullopt for anything it does not model
// exactly: a variable outside the box, a load, a float, a comparison or logical value, a call,
// division or modulo by anything but a non-zero constant, operands of different types, and any
// node whose range may leave its type's range (where the generated code would wrap). Floor
// division and modulo by a constant, min, max, select (both branches; its condition is not bounded,
// only required to have a value everywhere) and integer casts that cannot wrap are bounded
// conservatively.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/arith/linear_form.h"
#include "compiler/ir/ir.h"

namespace tessera {

// [min, max], inclusive.
struct BoxRange {
  int64_t min = 0, max = 0;
};

// Variables with their ranges, pushed and popped as a traversal enters and leaves their scopes
// (lookups search from the innermost, so a rebinding shadows). A variable pushed without a range
// is known not to be bounded: expressions using it get no bounds.
class Box {
 public:
  void push(const VarNode* v, int64_t min, int64_t max) { vars_.push_back({v, true, {min, max}}); }
  void push_unbounded(const VarNode* v) { vars_.push_back({v, false, {}}); }
  void pop() { vars_.pop_back(); }
  // v's range, or nullptr when v is not in the box or has no range.
  const BoxRange* find(const VarNode* v) const {
    for (size_t i = vars_.size(); i-- > 0;) {
      if (vars_[i].var == v) return vars_[i].bounded ? &vars_[i].range : nullptr;
    }
    return nullptr;
  }

 private:
  struct Entry {
    const VarNode* var;
    bool bounded;
    BoxRange range;
  };
  std::vector<Entry> vars_;
};

// Bounds of e's values over the box, or nullopt when they are not decided here (see above).
std::optional<BoxRange> box_bounds(const Expr& e, const Box& box);
// Bounds of a linear form's values: its constant plus each coefficient times its atom's bounds.
// A form has equal atoms merged (x - x is 0), so this is tighter than box_bounds(e) where e
// cancels terms: (a + b) + (c - a) is bounded as b + c. The form is exact modulo its type's width,
// so a range is returned only when the sum cannot leave the type (where it would wrap). It bounds
// the expression wherever that has a value (an atom that cancelled is not looked at).
std::optional<BoxRange> box_bounds(const LinearForm& f, const Box& box);

// Whether 0 <= first <= end <= limit at every point of the box (first and end integer
// expressions of one type): true is a proof, false only "not proved". Interval arithmetic on the
// expressions (end - first bounded through the additions that make end from first, when it is
// built so), then, for what that leaves undecided, on their linear forms (only when both have a
// value everywhere: a form drops the atoms that cancel, x / y with y = 0 included).
bool box_range_within(const Expr& first, const Expr& end, int64_t limit, const Box& box);

}  // namespace tessera
