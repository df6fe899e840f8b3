#include "compiler/arith/eval_int.h"

#include "compiler/arith/const_fold.h"

namespace tessera {
namespace {

bool is_int_like(DType t) {
  return t == DType::kBool || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 ||
         t == DType::kInt64 || t == DType::kUInt8;
}

class Evaluator {
 public:
  explicit Evaluator(const VarMap& env) : env_(env) {}

  // The value wrapped to e's type, or false when it is not decided here.
  bool eval(const Expr& e, int64_t* out) {
    DType t = e.dtype();
    if (!is_int_like(t)) return false;
    switch (e.kind()) {
      case ExprKind::kIntImm:
        *out = wrap_int(e.as<IntImmNode>()->value, t);
        return true;
      case ExprKind::kVar: {
        auto it = env_.find(e.as<VarNode>());
        if (it == env_.end()) return false;
        const auto* c = it->second.as<IntImmNode>();
        if (!c || it->second.dtype() != t) return false;
        *out = wrap_int(c->value, t);
        return true;
      }
      case ExprKind::kCast: {
        const Expr& v = e.as<CastNode>()->value;
        int64_t x;
        if (!eval(v, &x)) return false;
        *out = wrap_int(x, t);
        return true;
      }
      case ExprKind::kNot: {
        int64_t x;
        if (!eval(e.as<NotNode>()->a, &x) || e.as<NotNode>()->a.dtype() != DType::kBool)
          return false;
        *out = x == 0 ? 1 : 0;
        return true;
      }
      case ExprKind::kSelect: {
        const auto* s = e.as<SelectNode>();
        int64_t c;
        if (s->cond.dtype() != DType::kBool || !eval(s->cond, &c)) return false;
        const Expr& taken = c ? s->true_value : s->false_value;
        if (taken.dtype() != t) return false;
        return eval(taken, out);
      }
      default:
        break;
    }
    const auto* b = e.as<BinaryNode>();
    if (!b || b->a.dtype() != b->b.dtype()) return false;
    int64_t x, y;
    if (!eval(b->a, &x) || !eval(b->b, &y)) return false;
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (e.kind()) {
      case ExprKind::kAdd:
        *out = wrap_int(static_cast<int64_t>(ux + uy), t);
        return true;
      case ExprKind::kSub:
        *out = wrap_int(static_cast<int64_t>(ux - uy), t);
        return true;
      case ExprKind::kMul:
        *out = wrap_int(static_cast<int64_t>(ux * uy), t);
        return true;
      case ExprKind::kDiv:
        if (y == 0) return false;
        *out = wrap_int(floor_div(x, y), t);
        return true;
      case ExprKind::kMod:
        if (y == 0) return false;
        *out = wrap_int(floor_mod(x, y), t);
        return true;
      case ExprKind::kMin:
        *out = x < y ? x : y;
        return true;
      case ExprKind::kMax:
        *out = x < y ? y : x;
        return true;
      case ExprKind::kEQ:
        *out = x == y;
        return true;
      case ExprKind::kNE:
        *out = x != y;
        return true;
      case ExprKind::kLT:
        *out = x < y;
        return true;
      case ExprKind::kLE:
        *out = x <= y;
        return true;
      case ExprKind::kGT:
        *out = x > y;
        return true;
      case ExprKind::kGE:
        *out = x >= y;
        return true;
      case ExprKind::kAnd:
        *out = (x != 0) && (y != 0);
        return true;
      case ExprKind::kOr:
        *out = (x != 0) || (y != 0);
        return true;
      default:
        return false;
    }
  }

 private:
  const VarMap& env_;
};

}  // namespace

std::optional<int64_t> eval_int(const Expr& e, const VarMap& env) {
  int64_t v;
  if (!e.defined() || !Evaluator(env).eval(e, &v)) return std::nullopt;
  return v;
}

}  // namespace tessera
