#include "compiler/arith/int_program.h"

#include <algorithm>

#include "compiler/arith/const_fold.h"

namespace tessera {

int IntEnv::slot(const Var& v) {
  auto it = index_.find(v.get() ? static_cast<const VarNode*>(v.get()) : nullptr);
  if (it != index_.end()) return it->second;
  int s = static_cast<int>(vars_.size());
  index_.emplace(static_cast<const VarNode*>(v.get()), s);
  vars_.push_back(v);
  values_.emplace_back();
  exprs_.emplace_back();
  return s;
}

int IntEnv::find(const VarNode* v) const {
  auto it = index_.find(v);
  return it == index_.end() ? -1 : it->second;
}

void IntEnv::bind_expr(int s, const Expr& e) {
  values_[s].state = kExpr;
  exprs_[s] = e;
}

VarMap IntEnv::var_map() const {
  VarMap m;
  for (size_t s = 0; s < vars_.size(); ++s) {
    const Value& x = values_[s];
    if (x.state == kInt) m[vars_[s]] = make_int(x.value, x.type);
    if (x.state == kExpr) m[vars_[s]] = exprs_[s];
  }
  return m;
}

enum class IntProgram::Op : uint8_t {
  kConst,
  kVar,
  kCast,
  kNot,
  kSelect,  // a ? b : c
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
  kFail,  // not decided here (eval_int's nullopt)
};

namespace {

bool is_int_like(DType t) {
  return t == DType::kBool || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 ||
         t == DType::kInt64 || t == DType::kUInt8;
}

}  // namespace

// The steps added so far, found by content: an open-addressing table of step indices (a step is
// looked up once per node compiled; a tree map allocated a node per step).
struct IntProgram::Numbering {
  std::vector<int32_t> table = std::vector<int32_t>(64, -1);  // a power of two, at most half full
  size_t used = 0;

  static bool same(const Step& x, const Step& y) {
    return x.op == y.op && x.type == y.type && x.a == y.a && x.b == y.b && x.c == y.c &&
           x.imm == y.imm;
  }
  static size_t hash(const Step& s) {
    uint64_t h = static_cast<uint64_t>(s.op) * 0x9e3779b97f4a7c15ull;
    for (uint64_t v :
         {static_cast<uint64_t>(s.type), static_cast<uint64_t>(s.a), static_cast<uint64_t>(s.b),
          static_cast<uint64_t>(s.c), static_cast<uint64_t>(s.imm)}) {
      h = (h ^ v) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    return static_cast<size_t>(h);
  }
  // The index of the step equal to s in code, or where to record it (*slot).
  int find(const Step& s, const std::vector<Step>& code, size_t* slot) const {
    size_t mask = table.size() - 1;
    for (size_t i = hash(s) & mask;; i = (i + 1) & mask) {
      if (table[i] < 0) {
        *slot = i;
        return -1;
      }
      if (same(code[static_cast<size_t>(table[i])], s)) return table[i];
    }
  }
  void record(size_t slot, int index, const std::vector<Step>& code) {
    table[slot] = index;
    if (++used * 2 <= table.size()) return;
    std::vector<int32_t> old(table.size() * 2, -1);
    old.swap(table);
    size_t mask = table.size() - 1;
    for (int32_t k : old) {
      if (k < 0) continue;
      size_t i = hash(code[static_cast<size_t>(k)]) & mask;
      while (table[i] >= 0) i = (i + 1) & mask;
      table[i] = k;
    }
  }
};

IntProgram::IntProgram(const std::vector<Expr>& roots, IntEnv* env) {
  Numbering numbering;
  for (const Expr& e : roots) {
    roots_.push_back(e.defined() ? compile(e, env, &numbering)
                                 : add({Op::kFail, kIndexType, 0, 0, 0, 0, 0}, &numbering));
  }
  value_.resize(code_.size());
  undecided_.resize(code_.size());
  for (Step& s : code_) {
    if (s.op == Op::kVar) {
      size_t k = std::find(inputs_.begin(), inputs_.end(), s.a) - inputs_.begin();
      if (k == inputs_.size()) inputs_.push_back(s.a);
      s.deps = k < 64 ? uint64_t{1} << k : ~uint64_t{0};
    } else if (s.op != Op::kConst && s.op != Op::kFail) {
      // Operands come first, so their dependencies are known.
      s.deps = code_[s.a].deps;
      if (s.op != Op::kCast && s.op != Op::kNot) s.deps |= code_[s.b].deps;
      if (s.op == Op::kSelect) s.deps |= code_[s.c].deps;
    }
  }
  last_.resize(inputs_.size());
}

// The step computing s, reusing an equal one (same operation on the same operand steps).
int IntProgram::add(const Step& s, Numbering* numbering) {
  size_t slot = 0;
  int found = numbering->find(s, code_, &slot);
  if (found >= 0) return found;
  code_.push_back(s);
  int i = static_cast<int>(code_.size()) - 1;
  numbering->record(slot, i, code_);
  return i;
}

// The step holding e's value (operands first, so steps run in order).
int IntProgram::compile(const Expr& e, IntEnv* env, Numbering* numbering) {
  DType t = e.dtype();
  Step fail{Op::kFail, t, 0, 0, 0, 0, 0};
  if (!is_int_like(t)) return add(fail, numbering);
  switch (e.kind()) {
    case ExprKind::kIntImm:
      return add({Op::kConst, t, 0, 0, 0, wrap_int(e.as<IntImmNode>()->value, t), 0}, numbering);
    case ExprKind::kVar:
      return add({Op::kVar, t, env->slot(Var(e)), 0, 0, 0, 0}, numbering);
    case ExprKind::kCast:
      return add({Op::kCast, t, compile(e.as<CastNode>()->value, env, numbering), 0, 0, 0, 0},
                 numbering);
    case ExprKind::kNot: {
      const Expr& a = e.as<NotNode>()->a;
      if (a.dtype() != DType::kBool) return add(fail, numbering);
      return add({Op::kNot, t, compile(a, env, numbering), 0, 0, 0, 0}, numbering);
    }
    case ExprKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      if (s->cond.dtype() != DType::kBool) return add(fail, numbering);
      int c = compile(s->cond, env, numbering);
      // A branch of another type is undecided only when it is taken.
      int x = s->true_value.dtype() == t ? compile(s->true_value, env, numbering)
                                         : add(fail, numbering);
      int y = s->false_value.dtype() == t ? compile(s->false_value, env, numbering)
                                          : add(fail, numbering);
      return add({Op::kSelect, t, c, x, y, 0, 0}, numbering);
    }
    default:
      break;
  }
  const auto* b = e.as<BinaryNode>();
  if (!b || b->a.dtype() != b->b.dtype()) return add(fail, numbering);
  Op op;
  switch (e.kind()) {
#define TESSERA_INT_OP(k) \
  case ExprKind::k:       \
    op = Op::k;           \
    break;
    TESSERA_INT_OP(kAdd)
    TESSERA_INT_OP(kSub)
    TESSERA_INT_OP(kMul)
    TESSERA_INT_OP(kDiv)
    TESSERA_INT_OP(kMod)
    TESSERA_INT_OP(kMin)
    TESSERA_INT_OP(kMax)
    TESSERA_INT_OP(kEQ)
    TESSERA_INT_OP(kNE)
    TESSERA_INT_OP(kLT)
    TESSERA_INT_OP(kLE)
    TESSERA_INT_OP(kGT)
    TESSERA_INT_OP(kGE)
    TESSERA_INT_OP(kAnd)
    TESSERA_INT_OP(kOr)
#undef TESSERA_INT_OP
    default:
      return add(fail, numbering);
  }
  int x = compile(b->a, env, numbering);
  int y = compile(b->b, env, numbering);
  return add({op, t, x, y, 0, 0, 0}, numbering);
}

// A binary step on decided or undecided operands (*undecided: in, the operands'; out, the
// result's), as run() computes it.
int64_t IntProgram::binary(Op op, DType type, int64_t x, int64_t y, bool* undecided) {
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case Op::kAdd:
      return wrap_int(static_cast<int64_t>(ux + uy), type);
    case Op::kSub:
      return wrap_int(static_cast<int64_t>(ux - uy), type);
    case Op::kMul:
      return wrap_int(static_cast<int64_t>(ux * uy), type);
    case Op::kDiv:
      if (y == 0 || *undecided) {
        *undecided = true;
        return 0;
      }
      return wrap_int(floor_div(x, y), type);
    case Op::kMod:
      if (y == 0 || *undecided) {
        *undecided = true;
        return 0;
      }
      return wrap_int(floor_mod(x, y), type);
    case Op::kMin:
      return x < y ? x : y;
    case Op::kMax:
      return x < y ? y : x;
    case Op::kEQ:
      return x == y;
    case Op::kNE:
      return x != y;
    case Op::kLT:
      return x < y;
    case Op::kLE:
      return x <= y;
    case Op::kGT:
      return x > y;
    case Op::kGE:
      return x >= y;
    case Op::kAnd:
      return (x != 0) && (y != 0);
    case Op::kOr:
      return (x != 0) || (y != 0);
    default:
      *undecided = true;
      return 0;
  }
}

void IntProgram::run(const IntEnv& env) const {
  uint64_t changed = ran_ ? 0 : ~uint64_t{0};
  for (size_t k = 0; k < inputs_.size(); ++k) {
    IntEnv::Reading r = env.reading(inputs_[k]);
    if (!(r == last_[k])) {
      changed |= k < 64 ? uint64_t{1} << k : ~uint64_t{0};
      last_[k] = r;
    }
  }
  if (!changed) return;
  bool all = !ran_;  // the first run computes every step, constants too
  ran_ = true;
  int64_t* v = value_.data();
  uint8_t* u = undecided_.data();
  const size_t n = code_.size();
  for (size_t i = 0; i < n; ++i) {
    const Step& s = code_[i];
    if (!all && !(s.deps & changed)) continue;
    switch (s.op) {
      case Op::kConst:
        v[i] = s.imm;
        u[i] = 0;
        continue;
      case Op::kVar:
        u[i] = !env.constant(s.a, s.type, &v[i]);
        continue;
      case Op::kCast:
        v[i] = wrap_int(v[s.a], s.type);
        u[i] = u[s.a];
        continue;
      case Op::kNot:
        v[i] = v[s.a] == 0 ? 1 : 0;
        u[i] = u[s.a];
        continue;
      case Op::kSelect: {
        int taken = v[s.a] ? s.b : s.c;
        v[i] = v[taken];
        u[i] = u[s.a] | u[taken];
        continue;
      }
      case Op::kFail:
        u[i] = 1;
        continue;
      default:
        break;
    }
    bool undecided = u[s.a] | u[s.b];
    v[i] = binary(s.op, s.type, v[s.a], v[s.b], &undecided);
    u[i] = undecided;
  }
}

std::optional<int64_t> IntProgram::eval(const IntEnv& env) const {
  if (roots_.empty()) return std::nullopt;
  run(env);
  int r = roots_[0];
  if (undecided_[r]) return std::nullopt;
  return value_[r];
}

void IntProgram::eval_all(const IntEnv& env, std::optional<int64_t>* out) const {
  run(env);
  for (size_t i = 0; i < roots_.size(); ++i) {
    int r = roots_[i];
    out[i] = undecided_[r] ? std::nullopt : std::optional<int64_t>(value_[r]);
  }
}

}  // namespace tessera

namespace tessera {
namespace {

using I128 = __int128;

I128 floor_div128(I128 a, I128 b) {
  I128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool fits64(I128 x) { return x >= INT64_MIN && x <= INT64_MAX; }

}  // namespace

bool add_affine_term(const IntEnv& env, int slot, DType type, int64_t coef, const AffineVar* vars,
                     int n, I128* c, AffineValue* x) {
  int64_t v;
  if (!env.constant(slot, type, &v)) return false;
  int j = 0;
  while (j < n && vars[j].slot != slot) ++j;
  if (j == n) {
    *c += static_cast<I128>(coef) * v;
    return true;
  }
  // The variable read in its type (env.constant wraps): unchanged on its range.
  if (wrap_int(vars[j].lo, type) != vars[j].lo || wrap_int(vars[j].hi, type) != vars[j].hi)
    return false;
  x->coef[j] = coef;  // distinct atoms: each variable once
  return true;
}

void affine_bounds(const AffineValue& x, const AffineVar* vars, int n, I128* lo, I128* hi) {
  I128 l = x.c, h = x.c;
  for (int j = 0; j < n; ++j) {
    I128 a = I128(x.coef[j]) * vars[j].lo, b = I128(x.coef[j]) * vars[j].hi;
    l += a < b ? a : b;
    h += a < b ? b : a;
  }
  *lo = l;
  *hi = h;
}

namespace {

bool affine_constant(const AffineValue& x, int n) {
  for (int j = 0; j < n; ++j)
    if (x.coef[j] != 0) return false;
  return true;
}

// alpha * x + beta * y, when it fits int64 and t's range on the whole box (so run()'s wrap
// changes nothing there).
bool affine_combine(I128 alpha, const AffineValue& x, I128 beta, const AffineValue& y,
                    const AffineVar* vars, int n, DType t, AffineValue* r) {
  I128 c = alpha * x.c + beta * y.c;
  if (!fits64(c)) return false;
  r->c = static_cast<int64_t>(c);
  for (int j = 0; j < n; ++j) {
    I128 k = alpha * x.coef[j] + beta * y.coef[j];
    if (!fits64(k)) return false;
    r->coef[j] = static_cast<int64_t>(k);
  }
  I128 lo, hi;
  affine_bounds(*r, vars, n, &lo, &hi);
  if (!fits64(lo) || !fits64(hi)) return false;
  return wrap_int(static_cast<int64_t>(lo), t) == lo && wrap_int(static_cast<int64_t>(hi), t) == hi;
}

}  // namespace

bool IntProgram::eval_affine(const IntEnv& env, const AffineVar* vars, int n,
                             AffineValue* out) const {
  if (roots_.empty() || n > kMaxAffineVars) return false;
  const size_t m = code_.size();
  affine_.resize(m);
  affine_state_.resize(m);
  AffineValue* a = affine_.data();
  uint8_t* st = affine_state_.data();
  const AffineValue zero;
  for (size_t i = 0; i < m; ++i) {
    const Step& s = code_[i];
    AffineValue& r = a[i];
    r = zero;
    uint8_t& state = st[i];
    state = 0;
    switch (s.op) {
      case Op::kConst:
        r.c = s.imm;
        continue;
      case Op::kVar: {
        int64_t v;
        if (!env.constant(s.a, s.type, &v)) {
          state = 1;
          continue;
        }
        int j = 0;
        while (j < n && vars[j].slot != s.a) ++j;
        if (j == n) {
          r.c = v;
        } else if (wrap_int(vars[j].lo, s.type) == vars[j].lo &&
                   wrap_int(vars[j].hi, s.type) == vars[j].hi) {
          r.coef[j] = 1;
        } else {
          state = 2;
        }
        continue;
      }
      case Op::kFail:
        state = 1;
        continue;
      case Op::kCast:
      case Op::kNot: {
        state = st[s.a];
        if (state) continue;
        const AffineValue& x = a[s.a];
        if (affine_constant(x, n)) {
          r.c = s.op == Op::kNot ? (x.c == 0 ? 1 : 0) : wrap_int(x.c, s.type);
        } else if (s.op == Op::kNot || !affine_combine(1, x, 0, zero, vars, n, s.type, &r)) {
          state = 2;
        }
        continue;
      }
      case Op::kSelect: {
        state = st[s.a];
        if (state) continue;
        if (!affine_constant(a[s.a], n)) {
          state = 2;
          continue;
        }
        int taken = a[s.a].c ? s.b : s.c;
        state = st[taken];
        r = a[taken];
        continue;
      }
      default:
        break;
    }
    // Undecided anywhere in an operand: undecided everywhere (eval_int's nullopt).
    uint8_t sa = st[s.a], sb = st[s.b];
    state = (sa == 1 || sb == 1) ? 1 : (sa | sb) ? 2 : 0;
    if (state) continue;
    const AffineValue &x = a[s.a], &y = a[s.b];
    if (affine_constant(x, n) && affine_constant(y, n)) {
      bool undecided = false;
      r.c = binary(s.op, s.type, x.c, y.c, &undecided);
      state = undecided ? 1 : 0;
      continue;
    }
    bool ok = false;
    switch (s.op) {
      case Op::kAdd:
        ok = affine_combine(1, x, 1, y, vars, n, s.type, &r);
        break;
      case Op::kSub:
        ok = affine_combine(1, x, -1, y, vars, n, s.type, &r);
        break;
      case Op::kMul:
        if (affine_constant(x, n)) ok = affine_combine(x.c, y, 0, zero, vars, n, s.type, &r);
        if (affine_constant(y, n)) ok = affine_combine(y.c, x, 0, zero, vars, n, s.type, &r);
        break;
      case Op::kDiv:
      case Op::kMod: {
        if (!affine_constant(y, n)) break;
        if (y.c == 0) {
          ok = true;
          state = 1;
          break;
        }
        bool divides = true;
        for (int j = 0; j < n; ++j) divides = divides && x.coef[j] % y.c == 0;
        I128 lo, hi;
        affine_bounds(x, vars, n, &lo, &hi);
        if (divides) {
          // floor((c + sum k_j v_j) / d) = floor(c / d) + sum (k_j / d) v_j when d divides k_j.
          AffineValue q;
          I128 qc = floor_div128(x.c, y.c);
          if (!fits64(qc)) break;
          q.c = static_cast<int64_t>(qc);
          for (int j = 0; j < n; ++j) q.coef[j] = x.coef[j] / y.c;
          ok = s.op == Op::kDiv ? affine_combine(1, q, 0, zero, vars, n, s.type, &r)
                                : affine_combine(1, x, -I128(y.c), q, vars, n, s.type, &r);
        } else if (floor_div128(lo, y.c) == floor_div128(hi, y.c)) {
          // The quotient is the same on the whole box (it is monotone in x).
          AffineValue q;
          I128 qc = floor_div128(lo, y.c);
          if (!fits64(qc)) break;
          q.c = static_cast<int64_t>(qc);
          ok = s.op == Op::kDiv ? affine_combine(1, q, 0, zero, vars, n, s.type, &r)
                                : affine_combine(1, x, -I128(y.c), q, vars, n, s.type, &r);
        }
        break;
      }
      case Op::kMin:
      case Op::kMax:
      case Op::kEQ:
      case Op::kNE:
      case Op::kLT:
      case Op::kLE:
      case Op::kGT:
      case Op::kGE: {
        // x - y over the box, exactly (x and y fit int64).
        AffineValue d;
        I128 c = I128(x.c) - y.c;
        bool fit = fits64(c);
        d.c = static_cast<int64_t>(c);
        for (int j = 0; j < n; ++j) {
          I128 k = I128(x.coef[j]) - y.coef[j];
          fit = fit && fits64(k);
          d.coef[j] = static_cast<int64_t>(k);
        }
        if (!fit) break;
        I128 lo, hi;
        affine_bounds(d, vars, n, &lo, &hi);
        int verdict = -1;  // the comparison's value on the whole box, or -1
        switch (s.op) {
          case Op::kMin:
          case Op::kMax:
            if (hi <= 0) verdict = s.op == Op::kMin;  // x <= y: min is x
            if (lo >= 0) verdict = s.op == Op::kMax;  // x >= y: max is x
            if (verdict >= 0) {
              r = verdict ? x : y;
              ok = true;
            }
            break;
          case Op::kEQ:
          case Op::kNE:
            if (lo == 0 && hi == 0) verdict = 1;
            if (lo > 0 || hi < 0) verdict = 0;
            if (verdict >= 0 && s.op == Op::kNE) verdict = !verdict;
            break;
          case Op::kLT:
            verdict = hi < 0 ? 1 : lo >= 0 ? 0 : -1;
            break;
          case Op::kLE:
            verdict = hi <= 0 ? 1 : lo > 0 ? 0 : -1;
            break;
          case Op::kGT:
            verdict = lo > 0 ? 1 : hi <= 0 ? 0 : -1;
            break;
          case Op::kGE:
            verdict = lo >= 0 ? 1 : hi < 0 ? 0 : -1;
            break;
          default:
            break;
        }
        if (s.op != Op::kMin && s.op != Op::kMax && verdict >= 0) {
          r.c = verdict;
          ok = true;
        }
        break;
      }
      default:  // kAnd, kOr of operands that are not constants
        break;
    }
    if (!ok) state = 2;
  }
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (st[roots_[i]]) return false;
    out[i] = a[roots_[i]];
  }
  return true;
}

}  // namespace tessera
