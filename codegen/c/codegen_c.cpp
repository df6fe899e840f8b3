#include "codegen/c/codegen_c.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "codegen/c/c_expr.h"
#include "compiler/ir/ir_visitor.h"
#include "runtime/base/error.h"
#include "runtime/cpu/module_metadata.h"
#include "runtime/ndarray.h"

namespace tessera {

namespace {

constexpr int64_t kMaxUnroll = 64;

// GCC 12 (12.2 at least) miscompiles zero-then-accumulate loop nests inside an
// `omp parallel for` at -O3: loop distribution turns the zeroing stores of an outer loop into one
// memset over the wrong region, so a batch_matmul with the parallel loop outermost and K = 1
// leaves whole rows at 0 (tests/python/test_silent_wrong_results.py shows it; -O2, clang and
// -fno-tree-loop-distribute-patterns are right). The fix is in the generated code rather than in
// CompileOptions::flags so that it holds whatever flags a caller passes, and so that the flags
// stay valid for clang (which rejects the option): every function of the unit is compiled without
// the memset/memcpy pattern replacement. Measured on the two matmul benchmark schedules
// (benchmarks/matmul_cpu, n = 512, one thread): no difference beyond run-to-run noise; the loops
// it would have replaced are accumulator initialisations, which the vectorizer still handles.
constexpr const char* kGccMiscompileGuard =
    "// GCC 12 -O3 miscompiles zero-then-accumulate nests under omp parallel for (loop\n"
    "// distribution into memset); codegen/c/codegen_c.cpp says more.\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC optimize(\"no-tree-loop-distribute-patterns\")\n"
    "#endif\n\n";
constexpr int kAlignment = 64;

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Text safe inside a // comment: control characters (a newline would end it) become spaces.
std::string comment_text(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (std::iscntrl(static_cast<unsigned char>(c))) c = ' ';
  }
  return out;
}

// A C string literal holding `s` exactly. Bytes outside printable ASCII become 3-digit octal
// escapes (which, unlike \x, cannot swallow a following character).
std::string c_string_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f || c == '?') {  // '?' avoids trigraphs
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Writes the function body. Expressions go through c_expr(); this class handles statements,
// loop annotations, scopes and allocations.
class BodyWriter {
 public:
  explicit BodyWriter(CEmitContext& ctx) : ctx_(ctx) {}

  void stmt(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::kFor:
        return emit_for(s.as<ForNode>());
      case StmtKind::kBufferStore:
        return emit_store(s.as<BufferStoreNode>());
      case StmtKind::kAllocate:
        return emit_allocate(s.as<AllocateNode>());
      case StmtKind::kSeq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) stmt(x);
        return;
      case StmtKind::kIfThenElse:
        return emit_if(s.as<IfThenElseNode>());
      case StmtKind::kLetStmt:
        return emit_let(s.as<LetStmtNode>());
      case StmtKind::kAttrStmt:
        return emit_attr(s.as<AttrStmtNode>());
      case StmtKind::kExternCall:
        return emit_extern_call(s.as<ExternCallNode>());
      case StmtKind::kNpuDma:
      case StmtKind::kNpuGemm:
      case StmtKind::kNpuVector:
        throw InternalError("codegen_c: an NPU statement reached the C backend");
      case StmtKind::kTensorize:
        throw InternalError("codegen_c: a tensorize region reached the C backend");
    }
  }

  std::string text() const { return os_.str(); }
  bool uses_status() const { return uses_status_; }
  // The extern calls whose status the kernel checks, in call order (ModuleMetadata::externs).
  const std::vector<ExternSpec>& checked_externs() const { return externs_; }
  int depth = 1;

 private:
  void line(const std::string& s) { os_ << std::string(2 * depth, ' ') << s << "\n"; }
  std::string expr(const Expr& e) { return strip_outer_parens(c_expr(e, ctx_)); }
  void block(const Stmt& body) {
    ++depth;
    stmt(body);
    --depth;
  }

  void emit_for(const ForNode* op) {
    std::string lo = expr(op->min);
    std::string hi;
    const int64_t* cmin = as_const_int(op->min);
    const int64_t* cext = as_const_int(op->extent);
    if (cmin && cext) {
      hi = c_expr(make_int(*cmin + *cext, op->var.dtype()), ctx_);
    } else if (cmin && *cmin == 0) {
      hi = c_expr(op->extent, ctx_);
    } else {
      hi = "(" + c_expr(op->min, ctx_) + " + " + c_expr(op->extent, ctx_) + ")";
    }
    bool was_parallel = in_parallel_, was_simd = in_simd_;
    switch (op->for_kind) {
      case ForKind::kSerial:
        break;
      case ForKind::kParallel:
        if (in_parallel_ || in_simd_) {
          line("// parallel loop inside a parallel or simd loop: runs serially");
        } else {
          line("#pragma omp parallel for schedule(static)");
          in_parallel_ = true;
        }
        break;
      case ForKind::kVectorized:
        if (in_simd_) {
          line("// vectorized loop inside a simd loop: runs serially");
        } else {
          line("#pragma omp simd");
          in_simd_ = true;
        }
        break;
      case ForKind::kUnrolled:
        if (cext) {
          line(str("#pragma GCC unroll ", std::max<int64_t>(1, std::min(*cext, kMaxUnroll))));
        } else {
          line("// unrolled loop with a non-constant extent: left to the C compiler");
        }
        break;
    }
    // The bounds above are printed before the variable is bound: they cannot mention it.
    ctx_.bound_vars.insert(op->var.id());
    ctx_.ranges[op->var] = Interval{op->min, op->min + op->extent - make_int(1, op->var.dtype())};
    std::string v = ctx_.names.name_of(op->var);
    line(str("for (", dtype_c_name(op->var.dtype()), " ", v, " = ", lo, "; ", v, " < ", hi, "; ++",
             v, ") {"));
    block(op->body);
    line("}");
    ctx_.bound_vars.erase(op->var.id());
    ctx_.ranges.erase(op->var);
    in_parallel_ = was_parallel;
    in_simd_ = was_simd;
  }

  void emit_store(const BufferStoreNode* op) {
    auto it = ctx_.buffers.find(op->buffer.get());
    if (it == ctx_.buffers.end()) {
      throw InternalError(str("codegen_c: function '", ctx_.func_name, "' writes buffer '",
                              op->buffer->name, "', which is neither an argument nor allocated"));
    }
    if (op->indices.size() != 1) {
      throw InternalError(str("codegen_c: function '", ctx_.func_name, "' writes buffer '",
                              op->buffer->name, "' with ", op->indices.size(),
                              " indices; flatten_storage must leave exactly one"));
    }
    line(it->second + "[" + expr(op->indices[0]) +
         "] = " + c_store_value(op->buffer->dtype, expr(op->value), ctx_) + ";");
  }

  void emit_allocate(const AllocateNode* op) {
    const Buffer& b = op->buffer;
    if (b->scope != "global" && b->scope != "local") {
      throw LowerError(str("function '", ctx_.func_name, "': buffer '", b->name, "' is in scope '",
                           b->scope, "', which the C target does not have; use \"global\" or ",
                           "\"local\""));
    }
    TESSERA_ICHECK(!ctx_.buffers.count(b.get()), "codegen_c: buffer '", b->name,
                   "' is allocated while already in scope in function '", ctx_.func_name, "'");
    const std::string T = dtype_c_name(b->dtype);
    const int64_t elems = std::max<int64_t>(1, b->num_elements());  // C has no empty arrays
    const int64_t bytes = elems * bytes_of(b->dtype);
    const std::string name = ctx_.names.unique(b->name);
    ctx_.buffers[b.get()] = name;
    if (bytes <= kMaxStackAllocBytes) {
      line(str("_Alignas(", kAlignment, ") ", T, " ", name, "[", elems, "];  // ", b->scope));
      stmt(op->body);
    } else {
      // aligned_alloc needs a size that is a multiple of the alignment.
      int64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
      line(str(T, "* restrict ", name, " = (", T, "*)aligned_alloc(", kAlignment, ", ", rounded,
               ");  // ", b->scope));
      // No early return: this may run inside a parallel loop. The failure is reported through
      // the status the function returns.
      line(str("if (", name, " == NULL) {"));
      line("  __atomic_store_n(&tsr_status, -1, __ATOMIC_RELAXED);");
      line("} else {");
      block(op->body);
      line(str("  free(", name, ");"));
      line("}");
      uses_status_ = true;
    }
    ctx_.buffers.erase(b.get());
  }

  void emit_if(const IfThenElseNode* op) {
    line("if (" + expr(op->cond) + ") {");
    block(op->then_case);
    if (op->else_case.defined()) {
      line("} else {");
      block(op->else_case);
    }
    line("}");
  }

  void emit_let(const LetStmtNode* op) {
    // A variable bound a second time (e.g. a duplicated body) gets its own C block, so that its
    // declaration does not clash with the earlier one.
    bool rebound = !ever_bound_.insert(op->var.id()).second;
    std::string value = expr(op->value);
    if (rebound) {
      line("{");
      ++depth;
    }
    ctx_.bound_vars.insert(op->var.id());
    ctx_.ranges[op->var] = Interval::point(op->value);
    line(str("const ", c_value_type(op->var.dtype()), " ", ctx_.names.name_of(op->var), " = ",
             value, ";"));
    stmt(op->body);
    ctx_.bound_vars.erase(op->var.id());
    ctx_.ranges.erase(op->var);
    if (rebound) {
      --depth;
      line("}");
    }
  }

  void emit_attr(const AttrStmtNode* op) {
    if (op->key == "produce") {
      line("// produce " + comment_text(op->value));
    } else if (op->key.rfind("pragma_", 0) == 0) {
      line("// pragma " + comment_text(op->key.substr(7)) + ": " + comment_text(op->value));
    } else {
      line("// attr " + comment_text(op->key) + ": " + comment_text(op->value));
    }
    stmt(op->body);
  }

  // A te.extern stage: the user's function gets each buffer's data pointer and each scalar by
  // value. An integer return is a status: nonzero makes the kernel return
  // -(kExternStatusBase + i), i naming the call in the module's metadata (cpu_module.h).
  void emit_extern_call(const ExternCallNode* op) {
    std::string call = op->func + "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      const ExternCallArg& a = op->args[i];
      std::string arg;
      if (a.buffer) {
        auto it = ctx_.buffers.find(a.buffer.get());
        TESSERA_ICHECK(it != ctx_.buffers.end(), "codegen_c: extern stage '", op->stage,
                       "' passes buffer '", a.buffer->name, "', which is not in scope");
        arg = it->second;
      } else {
        arg = expr(a.value);
      }
      call += (i ? ", " : "") + arg;
    }
    call += ")";
    line("// extern stage " + comment_text(op->stage));
    if (op->ret && is_int(*op->ret)) {
      int32_t code = -(kExternStatusBase + static_cast<int32_t>(externs_.size()));
      externs_.push_back({op->stage, op->func});
      // After a failure the later extern calls do not run (TVM returns at the first failing
      // call), so the status names the first failing function.
      line("if (__atomic_load_n(&tsr_status, __ATOMIC_RELAXED) == 0 && " + call + " != 0) {");
      line("  __atomic_store_n(&tsr_status, " + std::to_string(code) + ", __ATOMIC_RELAXED);");
      line("}");
      uses_status_ = true;
    } else {
      line(call + ";");
    }
  }

  CEmitContext& ctx_;
  std::ostringstream os_;
  bool in_parallel_ = false;
  bool in_simd_ = false;
  bool uses_status_ = false;
  std::vector<ExternSpec> externs_;
  std::set<uint64_t> ever_bound_;
};

}  // namespace

namespace {
// The functions the extern stages call, each once, in order of appearance.
std::vector<std::string> extern_functions(const LoweredFunc& f) {
  class Calls : public IRVisitor {
   public:
    using IRVisitor::visit;
    std::vector<std::string> names;

   protected:
    void visit_ExternCall(const ExternCallNode* op, const Stmt& s) override {
      if (std::find(names.begin(), names.end(), op->func) == names.end()) {
        names.push_back(op->func);
      }
      IRVisitor::visit_ExternCall(op, s);
    }
  } calls;
  calls.visit(f.body);
  return calls.names;
}
}  // namespace

std::vector<ArgSpec> c_arg_specs(const LoweredFunc& f) {
  // Which arguments the body stores to: those must be writeable arrays when the function runs.
  class Stores : public IRVisitor {
   public:
    using IRVisitor::visit;
    std::set<const BufferNode*> written;

   protected:
    void visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
      written.insert(op->buffer.get());
      IRVisitor::visit_BufferStore(op, s);
    }
    void visit_ExternCall(const ExternCallNode* op, const Stmt& s) override {
      for (const ExternCallArg& a : op->args) {
        if (a.output) written.insert(a.buffer.get());
      }
      IRVisitor::visit_ExternCall(op, s);
    }
  } stores;
  stores.visit(f.body);
  std::vector<ArgSpec> specs;
  for (const Buffer& b : f.args) {
    specs.push_back(ArgSpec{b->name, b->dtype, b->shape, stores.written.count(b.get()) > 0});
  }
  return specs;
}

std::string codegen_c(const LoweredFunc& f) {
  if (!is_c_identifier(f.name)) {
    throw LowerError(str("function name '", f.name, "' is not a C identifier; use letters, ",
                         "digits and '_', not starting with a digit"));
  }
  const auto& reserved = c_reserved_names();
  if (std::find(reserved.begin(), reserved.end(), f.name) != reserved.end() ||
      f.name.rfind("tsr_", 0) == 0 || f.name.rfind("tessera_", 0) == 0) {
    throw LowerError(str("function name '", f.name, "' clashes with a C keyword, a C library ",
                         "name or a name tessera generates (tsr_*, tessera_*); rename it"));
  }
  CEmitContext ctx;
  ctx.func_name = f.name;
  ctx.names.unique(f.name);
  for (const std::string& r : reserved) ctx.names.unique(r);
  // The extern stages' functions (te.extern): no buffer or variable may shadow them.
  std::vector<std::string> externs = extern_functions(f);
  for (const std::string& e : externs) {
    if (std::find(reserved.begin(), reserved.end(), e) != reserved.end() || e == f.name) {
      throw LowerError(str("extern function '", e, "' clashes with ",
                           e == f.name ? "the kernel's name" : "a C keyword or library name",
                           " the generated code uses; rename it"));
    }
    ctx.names.unique(e);
  }

  // Arguments first, in order, so their C names do not depend on the body.
  std::ostringstream params;
  ModuleMetadata meta{f.name, c_arg_specs(f)};
  std::string signature_names;
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Buffer& b = f.args[i];
    TESSERA_ICHECK(!ctx.buffers.count(b.get()), "codegen_c: buffer '", b->name,
                   "' appears twice among the arguments of '", f.name, "'");
    std::string name = ctx.names.unique(b->name);
    ctx.buffers[b.get()] = name;
    std::string T = dtype_c_name(b->dtype);
    params << "  " << T << "* restrict " << name << " = (" << T << "*)args[" << i << "];\n";
    signature_names += (i ? ", " : "") + name;
  }

  BodyWriter body(ctx);
  body.stmt(f.body);

  std::ostringstream os;
  os << "// Generated by tessera (codegen/c) for function " << f.name << "(" << signature_names
     << ").\n";
  for (const ArgSpec& a : meta.args) {
    os << "//   " << comment_text(a.name) << ": " << dtype_name(a.dtype) << " "
       << shape_to_string(a.shape) << "\n";
  }
  os << "// Calling convention: int32_t " << f.name << "(void** args); args[i] points to the\n"
     << "// dense row-major data of argument i; arguments must not overlap. Returns 0, or -1\n"
     << "// when a temporary buffer could not be allocated. Integer / and % are floor division\n"
     << "// and modulo; integer data arithmetic wraps (done in unsigned).\n"
     << "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n\n"
     << kGccMiscompileGuard;
  if (!ctx.helpers.empty()) {
    for (const auto& [h, t] : ctx.helpers) os << c_helper_definition(h, t);
    os << "\n";
  }
  if (!f.extern_sources.empty()) {
    os << "// ---- the C sources of the extern stages (te.extern), as given ----\n";
    for (const std::string& src : f.extern_sources) os << src << "\n";
    // A call that does not match the user's declaration is an error, not a silent conversion.
    os << "// ---- end of the extern sources ----\n"
       << "#pragma GCC diagnostic error \"-Wimplicit-function-declaration\"\n"
       << "#pragma GCC diagnostic error \"-Wincompatible-pointer-types\"\n"
       << "#pragma GCC diagnostic error \"-Wint-conversion\"\n\n";
  }
  meta.externs = body.checked_externs();
  os << "const char tessera_module_entry[] = " << c_string_literal(f.name) << ";\n";
  os << "const char tessera_metadata_" << f.name
     << "[] = " << c_string_literal(module_metadata_to_json(meta)) << ";\n\n";
  os << "int32_t " << f.name << "(void** args) {\n" << params.str();
  if (body.uses_status()) os << "  int32_t tsr_status = 0;\n";
  os << body.text();
  os << "  return " << (body.uses_status() ? "tsr_status" : "0") << ";\n}\n";
  return os.str();
}

}  // namespace tessera
