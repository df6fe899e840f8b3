// Compiled integer evaluation: eval_int's answers for an expression evaluated at many points.
//
//   IntEnv env;
//   IntProgram p(e, &env);                   // compiled once; e's variables get slots in env
//   env.bind(env.slot(x), 3, x.dtype());     // as VarMap{{x, make_int(3, x.dtype())}}
//   std::optional<int64_t> v = p.eval(env);  // == eval_int(e, env.var_map())
//
// The NPU instruction selector and verify's exact range check evaluate the same loop bounds,
// DMA fields and row expressions at every unrolled iteration. eval_int walks the expression tree
// and looks every variable up in a std::map whose values are freshly allocated IntImm nodes;
// here the tree becomes a flat postfix program once and a binding is a store into a slot, so an
// iteration allocates nothing. The answer is always eval_int's (same wrapping, floor division,
// type checks, nullopt cases, a Select's untaken branch never evaluated): a program is a
// faster spelling of the same function, and tests check the two agree.
//
// An IntEnv holds the bindings of one traversal: each slot is unbound, bound to an integer
// constant of a type, or bound to a non-constant expression (a let whose value the simplifier
// could not fold; eval_int sees it as undecided, like any non-IntImm binding). var_map() gives
// the same bindings as a VarMap, for the general path (simplify(substitute(e, env.var_map()))).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "compiler/arith/const_fold.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/substitute.h"

namespace tessera {

class IntEnv {
 public:
  // v's slot, assigned at first use (slots are only looked up, never iterated into output).
  int slot(const Var& v);
  // v's slot, or -1 when v never got one (it is then unbound).
  int find(const VarNode* v) const;

  // Binds slot s as make_int(value, t) would in a VarMap.
  void bind(int s, int64_t value, DType t) {
    Value& x = values_[s];
    x.state = kInt;
    x.type = t;
    x.value = value;
  }
  // Binds slot s to a non-constant expression.
  void bind_expr(int s, const Expr& e);
  void unbind(int s) {
    values_[s].state = kUnbound;
    exprs_[s] = Expr();
  }

  bool bound(int s) const { return values_[s].state != kUnbound; }
  int size() const { return static_cast<int>(values_.size()); }  // the slots assigned so far

  // A slot's binding, to put back after a nested scope rebinds it.
  struct Saved {
    uint8_t state;
    DType type;
    int64_t value;
    Expr expr;
  };
  Saved save(int s) const {
    return {values_[s].state, values_[s].type, values_[s].value, exprs_[s]};
  }
  void restore(int s, const Saved& b) {
    values_[s] = Value{static_cast<State>(b.state), b.type, b.value};
    exprs_[s] = b.expr;
  }
  // The constant slot s holds in type t (eval_int's reading of a variable of type t).
  bool constant(int s, DType t, int64_t* out) const {
    const Value& x = values_[s];
    if (x.state != kInt || x.type != t) return false;
    *out = wrap_int(x.value, t);
    return true;
  }
  const Var& var(int s) const { return vars_[s]; }

  // What slot s holds, for a program that remembers the inputs of its last run.
  struct Reading {
    uint8_t state = 0;
    DType type = kIndexType;
    int64_t value = 0;
    bool operator==(const Reading& o) const {
      return state == o.state && type == o.type && value == o.value;
    }
  };
  Reading reading(int s) const { return {values_[s].state, values_[s].type, values_[s].value}; }

  // Every binding as a VarMap (IntImm nodes for constants).
  VarMap var_map() const;

 private:
  enum State : uint8_t { kUnbound, kInt, kExpr };
  struct Value {
    State state = kUnbound;
    DType type = kIndexType;
    int64_t value = 0;
  };
  std::vector<Value> values_;
  std::vector<Var> vars_;
  std::vector<Expr> exprs_;  // kExpr bindings
  std::unordered_map<const VarNode*, int> index_;
};

// One or more expressions compiled together: common subexpressions (equal operations on equal
// operands) are computed once, so the fields of one statement that share their clamps cost them
// once. Every step runs (no branches); a step that eval_int would not decide (an unbound
// variable, division by zero, a node it declines) yields "undecided", which spreads to whatever
// uses it, except through the branch a Select does not take: exactly eval_int's answers. A run
// recomputes only the steps whose variables changed since the last run.
// A variable taken over a range of values, for IntProgram::eval_affine.
struct AffineVar {
  int slot;
  int64_t lo, hi;  // lo <= hi
};
constexpr int kMaxAffineVars = 4;
// c + sum coef[i] * var_i.
struct AffineValue {
  int64_t c = 0;
  int64_t coef[kMaxAffineVars] = {0, 0, 0, 0};
};

// The least and greatest values of x over the box of vars[0..n) (exact, in 128 bits).
void affine_bounds(const AffineValue& x, const AffineVar* vars, int n, __int128* lo, __int128* hi);
// Adds coef times a variable's value to an affine value over vars[0..n): to *c when the variable
// (`slot`, read in `type`) is bound to a constant and is none of vars; to x's coefficient when it
// is one of vars, whose range `type` must hold unchanged. False when neither holds.
bool add_affine_term(const IntEnv& env, int slot, DType type, int64_t coef, const AffineVar* vars,
                     int n, __int128* c, AffineValue* x);
// Whether wrap(v) == v for every v of x + e over the box, e in [e_lo, e_hi]: wrap is a reduction
// to a type's range (wrap_int, wrap_coef), whose unchanged values are an interval.
template <class Wrap>
bool affine_unwrapped(const AffineValue& x, const AffineVar* vars, int n, int64_t e_lo,
                      int64_t e_hi, Wrap wrap) {
  __int128 lo, hi;
  affine_bounds(x, vars, n, &lo, &hi);
  lo += e_lo;
  hi += e_hi;
  if (lo < INT64_MIN || hi > INT64_MAX) return false;
  return wrap(static_cast<int64_t>(lo)) == lo && wrap(static_cast<int64_t>(hi)) == hi;
}

class IntProgram {
 public:
  IntProgram() = default;
  // Compiles e (undefined e: a program that never decides); its variables get slots in *env.
  IntProgram(const Expr& e, IntEnv* env) : IntProgram(std::vector<Expr>{e}, env) {}
  IntProgram(const std::vector<Expr>& roots, IntEnv* env);
  // eval_int(roots[0], env.var_map()), env being the one the program was compiled with.
  std::optional<int64_t> eval(const IntEnv& env) const;
  // Every root: out[i] = eval_int(roots[i], env.var_map()).
  void eval_all(const IntEnv& env, std::optional<int64_t>* out) const;
  size_t roots() const { return roots_.size(); }
  bool reads(int slot) const {  // whether some root uses the variable of this slot
    for (int s : inputs_)
      if (s == slot) return true;
    return false;
  }
  // Every root as an affine function of vars[0..n) (n <= kMaxAffineVars; each bound in env to
  // a constant of its type, the other slots as env has them) that eval_int gives at every point of
  // the box of the vars' ranges: true when every root is decided on the whole box and every
  // decision on the way (a comparison, min, max, Select, a division's quotient, a wrap to a type)
  // is the same at every point, so that out[i] is exact there; false when that is not proved.
  // Runs nothing incrementally and leaves eval's state alone.
  bool eval_affine(const IntEnv& env, const AffineVar* vars, int n, AffineValue* out) const;

 private:
  enum class Op : uint8_t;
  struct Step {
    Op op;
    DType type;       // the node's type (results wrap to it); for kVar the variable's type
    int32_t a, b, c;  // operand steps; kVar: a = slot
    int64_t imm;      // kConst: the wrapped constant
    uint64_t deps;    // bit k: depends on inputs_[k] (all bits past 64 inputs)
  };
  struct Numbering;  // the steps by content, for reuse (int_program.cpp)
  int compile(const Expr& e, IntEnv* env, Numbering* numbering);
  int add(const Step& s, Numbering* numbering);
  void run(const IntEnv& env) const;
  static int64_t binary(Op op, DType type, int64_t x, int64_t y, bool* undecided);
  std::vector<Step> code_;
  std::vector<int> roots_;
  // Values and undecided flags per step, from the last run (a program is used by one thread).
  mutable std::vector<int64_t> value_;
  mutable std::vector<uint8_t> undecided_;
  // The slots the program reads and what they held at the last run: a run recomputes only the
  // steps that depend on a slot whose value changed (a loop bound or guard inside loops it does
  // not depend on costs nothing; an address recomputes only its innermost part).
  std::vector<int> inputs_;
  mutable std::vector<IntEnv::Reading> last_;
  mutable bool ran_ = false;
  // Scratch of eval_affine: per step its value and state (0 decided, 1 undecided, 2 not proved).
  mutable std::vector<AffineValue> affine_;
  mutable std::vector<uint8_t> affine_state_;
};

}  // namespace tessera
