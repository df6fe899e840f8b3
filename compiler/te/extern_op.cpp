#include "compiler/te/extern_op.h"

#include <cctype>

#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Whether `src` has `name` as a whole identifier followed by '(' (a definition, declaration or
// call of it): a cheap check that catches a misspelt function before the C compiler does.
bool mentions_function(const std::string& src, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = src.find(name); p != std::string::npos; p = src.find(name, p + 1)) {
    if (p > 0 && ident(src[p - 1])) continue;
    size_t q = p + name.size();
    if (q < src.size() && ident(src[q])) continue;
    while (q < src.size() && std::isspace(static_cast<unsigned char>(src[q]))) ++q;
    if (q < src.size() && src[q] == '(') return true;
  }
  return false;
}

// A scalar argument may use constants and size variables only (no tensor reads, no loop
// variables: the call runs once, outside any loop).
void check_scalar(const Expr& e, const std::string& what) {
  if (!e.defined()) throw ExprError(what + " is empty");
  if (e.dtype() == DType::kBool) throw ExprError(what + " is a bool; pass an integer or a float");
  post_order_visit(e, [&](const Expr& x) {
    if (x.as<ProducerLoadNode>()) {
      throw ExprError(str(what, " (", to_string(e), ") reads a tensor; pass the tensor itself ",
                          "(ins[i]) and read it in C"));
    }
    if (x.as<ReduceNode>()) throw ExprError(str(what, " is a reduction; compute it in a stage"));
    const auto* v = x.as<VarNode>();
    if (v && !v->size_var) {
      throw ExprError(str(what, " uses variable '", v->name, "', which is not a size variable ",
                          "(te.var); the call runs once, outside any loop"));
    }
  });
}

}  // namespace

Tensor extern_op(const std::vector<Expr>& shape, DType dtype, const std::vector<Tensor>& inputs,
                 const ExternCall& call, const std::string& name) {
  const std::string what = str("te.extern '", name, "'");
  if (!is_c_identifier(call.func)) {
    throw ExprError(str(what, ": function name '", call.func, "' is not a C identifier"));
  }
  if (call.func.rfind("tsr_", 0) == 0 || call.func.rfind("tessera_", 0) == 0) {
    throw ExprError(str(what, ": function name '", call.func, "' clashes with the names tessera ",
                        "generates (tsr_*, tessera_*); rename it"));
  }
  if (call.ret == DType::kBool) {
    throw ExprError(str(what, ": '", call.func, "' returns bool; return int32 (0 for success)"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) throw ExprError(str(what, ": input ", i, " is empty"));
  }
  bool writes_output = false;
  for (size_t a = 0; a < call.args.size(); ++a) {
    const ExternArg& arg = call.args[a];
    std::string arg_what = str(what, ": argument ", a, " of '", call.func, "'");
    if (arg.output) {
      writes_output = true;
    } else if (arg.input >= 0) {
      if (static_cast<size_t>(arg.input) >= inputs.size()) {
        throw ExprError(str(arg_what, " is input buffer ", arg.input, ", but the stage has ",
                            inputs.size(), " input(s)"));
      }
    } else {
      check_scalar(arg.value, arg_what);
    }
  }
  if (!writes_output) {
    throw ExprError(str(what, ": the call to '", call.func, "' is not passed the output buffer ",
                        "(outs[0]), so nothing computes '", name, "'"));
  }
  if (call.source.empty()) {
    throw ExprError(str(what, ": no C source for '", call.func, "': pass c_source= with the ",
                        "function's definition (tessera compiles it into the module)"));
  }
  if (!mentions_function(call.source, call.func)) {
    throw ExprError(str(what, ": unknown function '", call.func, "': c_source does not define ",
                        "it (define `int32_t ", call.func, "(...)` there, or fix the name)"));
  }
  Tensor t = placeholder_sym(shape, dtype, name);
  auto node = std::const_pointer_cast<OperationNode>(t.op());
  node->kind = OpKind::kExtern;
  for (const Tensor& in : inputs) node->inputs.push_back(in.op());
  node->extern_call = std::make_shared<ExternCall>(call);
  return t;
}

}  // namespace tessera
