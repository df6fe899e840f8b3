#include "compiler/te/expr_ops.h"

#include <cmath>

#include "runtime/base/error.h"

namespace tessera {

const char* op_symbol(ExprKind op) {
  if (const char* sym = infix_symbol(op)) return sym;
  return op == ExprKind::kMin ? "min" : op == ExprKind::kMax ? "max" : "?";
}

Expr binary_op(ExprKind op, Expr a, Expr b) {
  if (!a.defined() || !b.defined())
    throw ExprError(str("operator ", op_symbol(op), ": missing operand"));
  DType ta = a.dtype(), tb = b.dtype();
  if (op == ExprKind::kAnd || op == ExprKind::kOr) {
    if (ta != DType::kBool || tb != DType::kBool) {
      throw ExprError(str("operator ", op_symbol(op), " needs bool operands, got ", dtype_name(ta),
                          " and ", dtype_name(tb), "; compare with a value first (x != 0)"));
    }
    return make_binary(op, a, b);
  }
  bool equality = op == ExprKind::kEQ || op == ExprKind::kNE;
  if ((ta == DType::kBool || tb == DType::kBool) && !(equality && ta == tb)) {
    throw ExprError(str("operator ", op_symbol(op), " is not defined on bool (operands ",
                        dtype_name(ta), " and ", dtype_name(tb),
                        "); cast the bool to an integer type first"));
  }
  std::optional<DType> t = promote(ta, tb);
  if (!t) {
    throw ExprError(str("operator ", op_symbol(op), " mixes ", dtype_name(ta), " and ",
                        dtype_name(tb),
                        ", which would lose information; cast one side explicitly to the type "
                        "you mean: the right one to ", dtype_name(ta), " or the left one to ",
                        dtype_name(tb), " (in Python y.astype(\"", dtype_name(ta),
                        "\") or te.cast(x, \"", dtype_name(tb), "\")), or both to float64"));
  }
  return make_binary(op, make_cast(*t, a), make_cast(*t, b));
}

Expr int_literal(int64_t v, DType like) {
  if (is_float(like)) return make_float(static_cast<double>(v), like);
  if (like == DType::kBool) {
    throw ExprError(str("integer literal ", v, " used with a bool; cast the bool first"));
  }
  if (!int_fits(v, like)) {
    std::string hi =
        is_unsigned(like) ? std::to_string(uint_max_of(like)) : std::to_string(int_max_of(like));
    throw ExprError(str("integer literal ", v, " does not fit in ", dtype_name(like), " (range ",
                        int_min_of(like), "..", hi, ")"));
  }
  return make_int(v, like);
}

Expr float_literal(double v, DType like) {
  if (is_float(like)) return make_float(v, like);
  if (like == DType::kInt8 || like == DType::kInt16 || like == DType::kUInt8) {
    return make_float(v, DType::kFloat32);
  }
  throw ExprError(str("float literal ", v, " used with ", dtype_name(like),
                      ", which float32 cannot hold exactly; cast the ", dtype_name(like),
                      " operand to a float type first"));
}

Expr logical_not(Expr a) {
  if (a.dtype() != DType::kBool) {
    throw ExprError(str("logical not needs a bool operand, got ", dtype_name(a.dtype())));
  }
  return make_not(a);
}

Expr negate(Expr a) {
  if (a.dtype() == DType::kBool) throw ExprError("unary minus is not defined on bool");
  if (is_unsigned(a.dtype())) {
    throw ExprError(str("unary minus on ", dtype_name(a.dtype()),
                        " would wrap; cast to a signed type first (or write 0 - x for the "
                        "wrapped value)"));
  }
  return make_binary(ExprKind::kSub, make_const(a.dtype(), 0), a);
}

Expr select(Expr cond, Expr t, Expr f) {
  if (cond.dtype() != DType::kBool) {
    throw ExprError(
        str("select/if_then_else condition must be bool, got ", dtype_name(cond.dtype())));
  }
  std::optional<DType> r = promote(t.dtype(), f.dtype());
  if (!r) {
    throw ExprError(str("select/if_then_else branches have types ", dtype_name(t.dtype()), " and ",
                        dtype_name(f.dtype()), ", which would lose information; cast one"));
  }
  return make_select(cond, make_cast(*r, t), make_cast(*r, f));
}

Expr if_then_else(Expr cond, Expr t, Expr f) { return select(cond, t, f); }

Expr cast(DType t, Expr v) { return make_cast(t, v); }

Expr requantize(Expr x, int64_t multiplier, int64_t shift, int64_t zero_point) {
  if (x.dtype() != DType::kInt32) {
    throw ExprError(str("requantize takes an int32 value, got ", dtype_name(x.dtype())));
  }
  if (multiplier < int_min_of(DType::kInt32) || multiplier > int_max_of(DType::kInt32)) {
    throw ExprError(str("requantize: multiplier ", multiplier, " does not fit in int32"));
  }
  if (shift < 0 || shift > 62)
    throw ExprError(str("requantize: shift ", shift, " is not in [0, 62]"));
  if (zero_point < -128 || zero_point > 127) {
    throw ExprError(str("requantize: zero_point ", zero_point, " does not fit in int8"));
  }
  return make_call(DType::kInt8, "requantize",
                   {x, make_int(multiplier, DType::kInt64), make_int(shift, DType::kInt64),
                    make_int(zero_point, DType::kInt64)});
}

Expr bitwise_op(const std::string& name, Expr a, Expr b) {
  DType ta = a.dtype(), tb = b.dtype();
  if (!is_int(ta) || !is_int(tb)) {
    throw ExprError(str(name, " needs integer operands, got ", dtype_name(ta), " and ",
                        dtype_name(tb),
                        is_float(ta) || is_float(tb) ? "; cast the float first" : "",
                        ta == DType::kBool || tb == DType::kBool ? "; use & | on two bools" : ""));
  }
  std::optional<DType> t = promote(ta, tb);
  if (!t) {
    throw ExprError(str(name, " mixes ", dtype_name(ta), " and ", dtype_name(tb),
                        ", which would lose information; cast one side explicitly"));
  }
  return make_call(*t, name, {make_cast(*t, a), make_cast(*t, b)});
}

Expr bitwise_not(Expr a) {
  if (!is_int(a.dtype())) {
    throw ExprError(str("bitwise_not needs an integer operand, got ", dtype_name(a.dtype())));
  }
  return make_call(a.dtype(), "bitwise_not", {a});
}

Expr math_call(const std::string& name, std::vector<Expr> args) {
  static const char* kUnaryFloat[] = {"exp", "log", "sqrt", "tanh", "sigmoid", "floor", "ceil"};
  for (const char* n : kUnaryFloat) {
    if (name == n) {
      if (args.size() != 1) throw ExprError(str(name, " takes one argument"));
      if (!is_float(args[0].dtype())) {
        throw ExprError(str(name, " needs a float argument, got ", dtype_name(args[0].dtype()),
                            "; cast it (e.g. astype(\"float32\"))"));
      }
      return make_call(args[0].dtype(), name, args);
    }
  }
  if (name == "abs") {
    if (args.size() != 1) throw ExprError("abs takes one argument");
    if (args[0].dtype() == DType::kBool) throw ExprError("abs is not defined on bool");
    return make_call(args[0].dtype(), name, args);
  }
  if (name == "pow") {
    if (args.size() != 2) throw ExprError("pow takes two arguments");
    Expr probe = binary_op(ExprKind::kAdd, args[0], args[1]);
    if (!is_float(probe.dtype())) throw ExprError("pow needs float arguments");
    return make_call(probe.dtype(), name,
                     {make_cast(probe.dtype(), args[0]), make_cast(probe.dtype(), args[1])});
  }
  throw ExprError(str("unknown math function '", name,
                      "'; known: exp, log, sqrt, tanh, sigmoid, floor, ceil, abs, pow"));
}

}  // namespace tessera
