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
    case DType::kUInt32:
      return "UINT32_C(" + std::to_string(static_cast<uint32_t>(v)) + ")";
    case DType::kUInt64:  // IntImm holds uint64 as its bit pattern
      return "UINT64_C(" + std::to_string(static_cast<uint64_t>(v)) + ")";
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
  // A float16 constant holds a float16 value (make_float rounds it), exact in float, which is
  // how generated C computes float16.
  if (t == DType::kFloat16) t = DType::kFloat32;
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

// float16 values are floats in generated C: an operation computes in float and its result is
// rounded to float16 (exactly the float16 rounding of the exact result for + - * / and sqrt, as
// float carries more than 2 * 11 + 2 bits; for the other functions the rounding of float's result).
std::string round_f16(const std::string& e, CEmitContext& ctx) {
  return call_helper(CHelper::kF16, DType::kFloat16, {e}, ctx);
}
// The type whose helpers and math functions compute a value of type t (float16 computes in float).
DType compute_type(DType t) { return t == DType::kFloat16 ? DType::kFloat32 : t; }

// The C function for a float math call: the float32 variant has the "f" suffix.
std::string float_math(const std::string& name, DType t) {
  std::string c = name == "abs" ? "fabs" : name;
  return t == DType::kFloat32 ? c + "f" : c;
}

// shift_left/shift_right (helpers: every shift amount is defined) and bitwise_and/or/xor/not
// (C's operators; C computes narrow types in int, so the result is cast back).
std::string emit_bit_call(const CallNode* op, const std::vector<std::string>& args,
                          CEmitContext& ctx) {
  DType t = op->dtype;
  if (op->name == "shift_left") return call_helper(CHelper::kShiftLeft, t, args, ctx);
  if (op->name == "shift_right") return call_helper(CHelper::kShiftRight, t, args, ctx);
  std::string s;
  if (op->name == "bitwise_not") {
    s = "(~" + args[0] + ")";
  } else {
    const char* sym = op->name == "bitwise_and" ? " & " : op->name == "bitwise_or" ? " | " : " ^ ";
    s = "(" + args[0] + sym + args[1] + ")";
  }
  return narrower_than_int(t) ? "((" + dtype_c_name(t) + ")" + s + ")" : s;
}

bool is_bit_call(const std::string& name) {
  return name == "shift_left" || name == "shift_right" || name == "bitwise_and" ||
         name == "bitwise_or" || name == "bitwise_xor" || name == "bitwise_not";
}

std::string emit_call(const CallNode* op, CEmitContext& ctx) {
  static const char* kUnaryFloat[] = {"exp", "log", "sqrt", "tanh", "floor", "ceil", "abs"};
  auto bad = [&](const std::string& why) {
    return InternalError(str(
        "codegen_c: function '", ctx.func_name, "' calls ", op->name, " on ", dtype_name(op->dtype),
        ": ", why,
        "; known: exp, log, sqrt, tanh, sigmoid, floor, ceil, abs, pow, requantize, shift_left, "
        "shift_right, bitwise_and, bitwise_or, bitwise_xor, bitwise_not"));
  };
  if (op->name == "requantize") {  // (int32 value, multiplier, shift, zero point) -> int8
    if (op->args.size() != 4 || op->args[0].dtype() != DType::kInt32 || op->dtype != DType::kInt8)
      throw bad("expected (int32 value, multiplier, shift, zero_point)");
    std::vector<std::string> args;
    for (const Expr& a : op->args) args.push_back(strip_outer_parens(c_expr(a, ctx)));
    return call_helper(CHelper::kRequantize, DType::kInt32, args, ctx);
  }
  const bool bit = is_bit_call(op->name);
  size_t arity = op->name == "pow" || (bit && op->name != "bitwise_not") ? 2 : 1;
  if (op->args.size() != arity) throw bad(str("expected ", arity, " argument(s)"));
  std::vector<std::string> args;
  for (const Expr& a : op->args) {
    if (a.dtype() != op->dtype) throw bad("argument of type " + dtype_name(a.dtype()));
    args.push_back(strip_outer_parens(c_expr(a, ctx)));
  }
  DType t = op->dtype;
  if (bit) {
    if (!is_int(t)) throw bad("not defined for this type");
    return emit_bit_call(op, args, ctx);
  }
  if (op->name == "abs" && is_int(t)) return call_helper(CHelper::kAbs, t, args, ctx);
  if (!is_float(t)) throw bad("not defined for this type");
  DType ct = compute_type(t);
  std::string r;
  if (op->name == "sigmoid") {
    r = call_helper(CHelper::kSigmoid, ct, args, ctx);
  } else if (op->name == "pow") {
    r = float_math("pow", ct) + "(" + args[0] + ", " + args[1] + ")";
  } else {
    for (const char* n : kUnaryFloat) {
      if (op->name == n) r = float_math(n, ct) + "(" + args[0] + ")";
    }
  }
  if (r.empty()) throw bad("unknown function");
  return t == DType::kFloat16 ? round_f16(r, ctx) : r;
}

// For a >= 0 and b > 0, C's truncating / and % agree with floor division and modulo.
bool non_negative_over_positive(const BinaryNode* op, CEmitContext& ctx) {
  std::optional<int64_t> b = const_lower_bound(op->b, ctx.ranges);
  if (!b || *b < 1) return false;
  std::optional<int64_t> a = const_lower_bound(op->a, ctx.ranges);
  return a && *a >= 0;
}

// A float16 operation: computed in float, then rounded to float16 (min, max and comparisons are
// exact and need no rounding).
std::string emit_f16_binary(const BinaryNode* op, const std::string& a, const std::string& b,
                            CEmitContext& ctx) {
  const DType f = DType::kFloat32;
  switch (op->kind) {
    case ExprKind::kMin:
      return call_helper(CHelper::kMin, f, {a, b}, ctx);
    case ExprKind::kMax:
      return call_helper(CHelper::kMax, f, {a, b}, ctx);
    case ExprKind::kMod:
      return round_f16(call_helper(CHelper::kFloorMod, f, {a, b}, ctx), ctx);
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
      return round_f16(a + c_operator(op->kind) + b, ctx);
    default:
      return "(" + a + c_operator(op->kind) + b + ")";
  }
}

std::string emit_binary(const BinaryNode* op, CEmitContext& ctx) {
  DType t = op->a.dtype();  // operand type (op->dtype is bool for comparisons)
  std::string a = c_expr(op->a, ctx);
  std::string b = c_expr(op->b, ctx);
  if (t == DType::kFloat16) return emit_f16_binary(op, a, b, ctx);
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
      std::string v = c_expr(op->value, ctx);
      DType s = op->value.dtype();
      if (op->dtype == DType::kFloat16) {
        if (s == DType::kFloat16) return v;
        // One rounding, from double: exact for every float and for every integer that does not
        // overflow float16 anyway.
        return round_f16("(double)" + v, ctx);
      }
      if (s == DType::kFloat16 && op->dtype == DType::kFloat32) return v;  // already a float
      return "((" + c_value_type(op->dtype) + ")" + v + ")";
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
      std::string load = it->second + "[" + strip_outer_parens(c_expr(op->indices[0], ctx)) + "]";
      if (op->buffer->dtype == DType::kFloat16) {  // stored as bits, computed in float
        ctx.helpers.insert({CHelper::kF16, DType::kFloat16});
        return "tsr_f16_value(" + load + ")";
      }
      return load;
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

std::string c_value_type(DType t) {
  return t == DType::kFloat16 ? std::string("float") : dtype_c_name(t);
}

std::string c_store_value(DType t, const std::string& value, CEmitContext& ctx) {
  if (t != DType::kFloat16) return value;
  ctx.helpers.insert({CHelper::kF16, DType::kFloat16});
  return "tsr_f16_bits(" + strip_outer_parens(value) + ")";
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
