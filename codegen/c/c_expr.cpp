#include "codegen/c/c_expr.h"

#include <cmath>
#include <limits>

#include "compiler/arith/is_index_arith.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool narrower_than_int(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kUInt8;
}

const char* unsigned_c_name(DType t) { return t == DType::kInt64 ? "uint64_t" : "uint32_t"; }

std::string int_literal(int64_t v, DType t) {
  switch (t) {
    case DType::kBool:
      return v ? "true" : "false";
    case DType::kInt32:
      if (v == std::numeric_limits<int32_t>::min()) return "INT32_MIN";
      return std::to_string(v);
    case DType::kInt64:
      if (v == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
      return "INT64_C(" + std::to_string(v) + ")";
    default:  // int8, int16, uint8: C has no literals of these types
      return "((" + dtype_c_name(t) + ")" + std::to_string(v) + ")";
  }
}

std::string float_literal(double v, DType t) {
  std::string s;
  if (std::isnan(v)) {
    s = "NAN";
  } else if (std::isinf(v)) {
    s = v > 0 ? "INFINITY" : "-INFINITY";
  } else {
    return format_float(v, t);  // enough digits to read back the same value; "f" for float32
  }
  return t == DType::kFloat32 ? s : "((double)" + s + ")";
}

// " + ", " == ", ...: integer Div and every Mod are handled above (floor semantics).
std::string c_operator(ExprKind k) { return std::string(" ") + infix_symbol(k) + " "; }

std::string call_helper(CHelper h, DType t, const std::vector<std::string>& args,
                        CEmitContext& ctx) {
  ctx.helpers.insert({h, t});
  std::string s = c_helper_name(h, t) + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + strip_outer_parens(args[i]);
  return s + ")";
}

// The C function for a float math call: the float32 variant has the "f" suffix.
std::string float_math(const std::string& name, DType t) {
  std::string c = name == "abs" ? "fabs" : name;
  return t == DType::kFloat32 ? c + "f" : c;
}

std::string emit_call(const CallNode* op, CEmitContext& ctx) {
  static const char* kUnaryFloat[] = {"exp", "log", "sqrt", "tanh", "floor", "ceil", "abs"};
  auto bad = [&](const std::string& why) {
    return InternalError(str(
        "codegen_c: function '", ctx.func_name, "' calls ", op->name, " on ", dtype_name(op->dtype),
        ": ", why, "; known: exp, log, sqrt, tanh, sigmoid, floor, ceil, abs, pow, requantize"));
  };
  if (op->name == "requantize") {  // (int32 value, multiplier, shift, zero point) -> int8
    if (op->args.size() != 4 || op->args[0].dtype() != DType::kInt32 || op->dtype != DType::kInt8)
      throw bad("expected (int32 value, multiplier, shift, zero_point)");
    std::vector<std::string> args;
    for (const Expr& a : op->args) args.push_back(strip_outer_parens(c_expr(a, ctx)));
    return call_helper(CHelper::kRequantize, DType::kInt32, args, ctx);
  }
  size_t arity = op->name == "pow" ? 2 : 1;
  if (op->args.size() != arity) throw bad(str("expected ", arity, " argument(s)"));
  std::vector<std::string> args;
  for (const Expr& a : op->args) {
    if (a.dtype() != op->dtype) throw bad("argument of type " + dtype_name(a.dtype()));
    args.push_back(strip_outer_parens(c_expr(a, ctx)));
  }
  DType t = op->dtype;
  if (op->name == "abs" && is_int(t)) return call_helper(CHelper::kAbs, t, args, ctx);
  if (!is_float(t)) throw bad("not defined for this type");
  if (op->name == "sigmoid") return call_helper(CHelper::kSigmoid, t, args, ctx);
  if (op->name == "pow") return float_math("pow", t) + "(" + args[0] + ", " + args[1] + ")";
  for (const char* n : kUnaryFloat) {
    if (op->name == n) return float_math(n, t) + "(" + args[0] + ")";
  }
  throw bad("unknown function");
}

// For a >= 0 and b > 0, C's truncating / and % agree with floor division and modulo.
bool non_negative_over_positive(const BinaryNode* op, CEmitContext& ctx) {
  std::optional<int64_t> b = const_lower_bound(op->b, ctx.ranges);
  if (!b || *b < 1) return false;
  std::optional<int64_t> a = const_lower_bound(op->a, ctx.ranges);
  return a && *a >= 0;
}

std::string emit_binary(const BinaryNode* op, CEmitContext& ctx) {
  DType t = op->a.dtype();  // operand type (op->dtype is bool for comparisons)
  std::string a = c_expr(op->a, ctx);
  std::string b = c_expr(op->b, ctx);
  switch (op->kind) {
    case ExprKind::kDiv:
      if (is_float(t)) break;
      if (non_negative_over_positive(op, ctx)) return "(" + a + " / " + b + ")";
      return call_helper(CHelper::kFloorDiv, t, {a, b}, ctx);
    case ExprKind::kMod:
      if (!is_float(t) && non_negative_over_positive(op, ctx)) return "(" + a + " % " + b + ")";
      return call_helper(CHelper::kFloorMod, t, {a, b}, ctx);
    case ExprKind::kMin:
      return call_helper(CHelper::kMin, t, {a, b}, ctx);
    case ExprKind::kMax:
      return call_helper(CHelper::kMax, t, {a, b}, ctx);
    default:
      break;
  }
  std::string s = "(" + a + c_operator(op->kind) + b + ")";
  bool arith =
      op->kind == ExprKind::kAdd || op->kind == ExprKind::kSub || op->kind == ExprKind::kMul;
  if (!arith) return s;
  // C promotes int8/int16/uint8 operands to int; the IR computes in the narrow type and wraps.
  if (narrower_than_int(t)) return "((" + dtype_c_name(t) + ")" + s + ")";
  // Signed overflow is undefined in C. Data arithmetic wraps through unsigned; index arithmetic
  // stays signed so that the C compiler can vectorize and strength-reduce addressing (-fwrapv
  // would make that 6x slower on a tiled matmul).
  bool index = is_index_arith(op->a) && is_index_arith(op->b);
  if ((t == DType::kInt32 || t == DType::kInt64) && !index) {
    return "((" + dtype_c_name(t) + ")((" + unsigned_c_name(t) + ")" + a + c_operator(op->kind) +
           "(" + unsigned_c_name(t) + ")" + b + "))";
  }
  return s;
}

}  // namespace

std::string c_expr(const Expr& e, CEmitContext& ctx) {
  TESSERA_ICHECK(e.defined(), "codegen_c: undefined expression in function '", ctx.func_name, "'");
  switch (e.kind()) {
    case ExprKind::kIntImm:
      return int_literal(e.as<IntImmNode>()->value, e.dtype());
    case ExprKind::kFloatImm:
      return float_literal(e.as<FloatImmNode>()->value, e.dtype());
    case ExprKind::kVar: {
      Var v(e);
      if (!ctx.bound_vars.count(v.id())) {
        throw InternalError(str("codegen_c: function '", ctx.func_name, "' uses variable '",
                                v.name(), "' outside any loop or let that binds it"));
      }
      return ctx.names.name_of(v);
    }
    case ExprKind::kCast: {
      // C conversion rules, no saturation (see codegen_c.h).
      const auto* op = e.as<CastNode>();
      return "((" + dtype_c_name(op->dtype) + ")" + c_expr(op->value, ctx) + ")";
    }
    case ExprKind::kNot:
      return "(!" + c_expr(e.as<NotNode>()->a, ctx) + ")";
    case ExprKind::kSelect: {
      // IR expressions are pure, so evaluating only the chosen branch is indistinguishable.
      const auto* op = e.as<SelectNode>();
      return "(" + c_expr(op->cond, ctx) + " ? " + c_expr(op->true_value, ctx) + " : " +
             c_expr(op->false_value, ctx) + ")";
    }
    case ExprKind::kCall:
      return emit_call(e.as<CallNode>(), ctx);
    case ExprKind::kBufferLoad: {
      const auto* op = e.as<BufferLoadNode>();
      auto it = ctx.buffers.find(op->buffer.get());
      if (it == ctx.buffers.end()) {
        throw InternalError(str("codegen_c: function '", ctx.func_name, "' reads buffer '",
                                op->buffer->name, "', which is neither an argument nor allocated"));
      }
      if (op->indices.size() != 1) {
        throw InternalError(str("codegen_c: function '", ctx.func_name, "' reads buffer '",
                                op->buffer->name, "' with ", op->indices.size(),
                                " indices; flatten_storage must leave exactly one"));
      }
      return it->second + "[" + strip_outer_parens(c_expr(op->indices[0], ctx)) + "]";
    }
    case ExprKind::kProducerLoad:
    case ExprKind::kReduce:
      throw InternalError(str("codegen_c: function '", ctx.func_name, "' still contains ",
                              to_string(e), "; lowering must remove tensor-level expressions"));
    default: {
      const auto* op = e.as<BinaryNode>();
      TESSERA_ICHECK(op != nullptr, "codegen_c: unhandled expression kind");
      return emit_binary(op, ctx);
    }
  }
}

std::string strip_outer_parens(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (depth == 0 && i + 1 < s.size()) return s;  // the first '(' closes before the end
  }
  return s.substr(1, s.size() - 2);
}

}  // namespace tessera
