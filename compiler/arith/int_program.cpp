#include "compiler/arith/int_program.h"

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

bool IntEnv::constant(int s, DType t, int64_t* out) const {
  const Value& x = values_[s];
  if (x.state != kInt || x.type != t) return false;
  *out = wrap_int(x.value, t);
  return true;
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
  kJumpIfZero,  // pops the condition
  kJump,
  kFail,  // not decided here (eval_int's nullopt)
};

namespace {

bool is_int_like(DType t) {
  return t == DType::kBool || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 ||
         t == DType::kInt64 || t == DType::kUInt8;
}

}  // namespace

IntProgram::IntProgram(const Expr& e, IntEnv* env) {
  if (!e.defined()) {
    code_.push_back({Op::kFail, kIndexType, 0, 0});
    return;
  }
  compile(e, env, 0);
}

// Appends e's steps; `depth` is the stack height before them (e leaves one value on top).
void IntProgram::compile(const Expr& e, IntEnv* env, int depth) {
  max_depth_ = std::max(max_depth_, depth + 1);
  DType t = e.dtype();
  auto fail = [&] { code_.push_back({Op::kFail, t, 0, 0}); };
  if (!is_int_like(t)) return fail();
  switch (e.kind()) {
    case ExprKind::kIntImm:
      code_.push_back({Op::kConst, t, 0, wrap_int(e.as<IntImmNode>()->value, t)});
      return;
    case ExprKind::kVar:
      code_.push_back({Op::kVar, t, env->slot(Var(e)), 0});
      return;
    case ExprKind::kCast:
      compile(e.as<CastNode>()->value, env, depth);
      code_.push_back({Op::kCast, t, 0, 0});
      return;
    case ExprKind::kNot: {
      const Expr& a = e.as<NotNode>()->a;
      if (a.dtype() != DType::kBool) return fail();
      compile(a, env, depth);
      code_.push_back({Op::kNot, t, 0, 0});
      return;
    }
    case ExprKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      if (s->cond.dtype() != DType::kBool) return fail();
      compile(s->cond, env, depth);
      size_t jz = code_.size();
      code_.push_back({Op::kJumpIfZero, t, 0, 0});
      if (s->true_value.dtype() == t) {
        compile(s->true_value, env, depth);
      } else {
        fail();
      }
      size_t jmp = code_.size();
      code_.push_back({Op::kJump, t, 0, 0});
      code_[jz].arg = static_cast<int32_t>(code_.size());
      if (s->false_value.dtype() == t) {
        compile(s->false_value, env, depth);
      } else {
        fail();
      }
      code_[jmp].arg = static_cast<int32_t>(code_.size());
      return;
    }
    default:
      break;
  }
  const auto* b = e.as<BinaryNode>();
  if (!b || b->a.dtype() != b->b.dtype()) return fail();
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
      return fail();
  }
  compile(b->a, env, depth);
  compile(b->b, env, depth + 1);
  code_.push_back({op, t, 0, 0});
}

std::optional<int64_t> IntProgram::eval(const IntEnv& env) const {
  constexpr int kInline = 32;
  int64_t inline_stack[kInline];
  std::vector<int64_t> heap;
  int64_t* st = inline_stack;
  if (max_depth_ > kInline) {
    heap.resize(max_depth_);
    st = heap.data();
  }
  int sp = 0;  // values on the stack
  const Step* code = code_.data();
  const size_t n = code_.size();
  for (size_t pc = 0; pc < n; ++pc) {
    const Step& s = code[pc];
    switch (s.op) {
      case Op::kConst:
        st[sp++] = s.imm;
        continue;
      case Op::kVar:
        if (!env.constant(s.arg, s.type, &st[sp])) return std::nullopt;
        ++sp;
        continue;
      case Op::kCast:
        st[sp - 1] = wrap_int(st[sp - 1], s.type);
        continue;
      case Op::kNot:
        st[sp - 1] = st[sp - 1] == 0 ? 1 : 0;
        continue;
      case Op::kJumpIfZero:
        if (st[--sp] == 0) pc = static_cast<size_t>(s.arg) - 1;
        continue;
      case Op::kJump:
        pc = static_cast<size_t>(s.arg) - 1;
        continue;
      case Op::kFail:
        return std::nullopt;
      default:
        break;
    }
    int64_t y = st[--sp];
    int64_t& x = st[sp - 1];
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (s.op) {
      case Op::kAdd:
        x = wrap_int(static_cast<int64_t>(ux + uy), s.type);
        break;
      case Op::kSub:
        x = wrap_int(static_cast<int64_t>(ux - uy), s.type);
        break;
      case Op::kMul:
        x = wrap_int(static_cast<int64_t>(ux * uy), s.type);
        break;
      case Op::kDiv:
        if (y == 0) return std::nullopt;
        x = wrap_int(floor_div(x, y), s.type);
        break;
      case Op::kMod:
        if (y == 0) return std::nullopt;
        x = wrap_int(floor_mod(x, y), s.type);
        break;
      case Op::kMin:
        x = x < y ? x : y;
        break;
      case Op::kMax:
        x = x < y ? y : x;
        break;
      case Op::kEQ:
        x = x == y;
        break;
      case Op::kNE:
        x = x != y;
        break;
      case Op::kLT:
        x = x < y;
        break;
      case Op::kLE:
        x = x <= y;
        break;
      case Op::kGT:
        x = x > y;
        break;
      case Op::kGE:
        x = x >= y;
        break;
      case Op::kAnd:
        x = (x != 0) && (y != 0);
        break;
      case Op::kOr:
        x = (x != 0) || (y != 0);
        break;
      default:
        return std::nullopt;
    }
  }
  return st[0];
}

}  // namespace tessera
