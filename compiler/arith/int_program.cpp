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
    int64_t x = v[s.a], y = v[s.b];
    u[i] = u[s.a] | u[s.b];
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    int64_t r = 0;
    switch (s.op) {
      case Op::kAdd:
        r = wrap_int(static_cast<int64_t>(ux + uy), s.type);
        break;
      case Op::kSub:
        r = wrap_int(static_cast<int64_t>(ux - uy), s.type);
        break;
      case Op::kMul:
        r = wrap_int(static_cast<int64_t>(ux * uy), s.type);
        break;
      case Op::kDiv:
        if (y == 0 || u[i]) {
          u[i] = 1;
        } else {
          r = wrap_int(floor_div(x, y), s.type);
        }
        break;
      case Op::kMod:
        if (y == 0 || u[i]) {
          u[i] = 1;
        } else {
          r = wrap_int(floor_mod(x, y), s.type);
        }
        break;
      case Op::kMin:
        r = x < y ? x : y;
        break;
      case Op::kMax:
        r = x < y ? y : x;
        break;
      case Op::kEQ:
        r = x == y;
        break;
      case Op::kNE:
        r = x != y;
        break;
      case Op::kLT:
        r = x < y;
        break;
      case Op::kLE:
        r = x <= y;
        break;
      case Op::kGT:
        r = x > y;
        break;
      case Op::kGE:
        r = x >= y;
        break;
      case Op::kAnd:
        r = (x != 0) && (y != 0);
        break;
      case Op::kOr:
        r = (x != 0) || (y != 0);
        break;
      default:
        u[i] = 1;
        break;
    }
    v[i] = r;
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
