#include "compiler/lower.h"
#include "schedule/specialize.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "compiler/arith/arith_memo.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/passes/check_bounds.h"
#include "compiler/passes/flatten_storage.h"
#include "compiler/passes/infer_bounds.h"
#include "compiler/passes/inject_npu_ops.h"
#include "compiler/passes/inline_stages.h"
#include "compiler/passes/schedule_ops.h"
#include "compiler/passes/tensorize.h"
#include "compiler/passes/tighten_loop_bounds.h"
#include "compiler/passes/verify.h"
#include "compiler/te/true_work.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

// Runs one pass, with the debug dump, timing and observer the caller and environment ask for.
// `show` renders the result for TESSERA_DEBUG=2.
template <typename T, typename F, typename Show>
T run_step(const char* pass, F&& f, Show&& show) {
  auto t0 = std::chrono::steady_clock::now();
  T out = f();
  if (env_int("TESSERA_TIME_PASSES")) {
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    std::cerr << "[tessera] pass " << pass << ": " << us << " us\n";
  }
  if (env_int("TESSERA_DEBUG") >= 2) std::cerr << "[tessera] pass " << pass << ":\n" << show(out);
  return out;
}

// Runs the passes over the loop IR: run_step, printing the IR (or that it did not change), then
// the caller's observer.
struct Pipeline {
  const LowerOptions& options;
  template <typename F>
  Stmt pass(const char* name, const Stmt& in, F&& f) const {
    Stmt out = run_step<Stmt>(
        name, [&] { return f(in); },
        [&](const Stmt& r) {
          return in.defined() && r.same_as(in) ? std::string("  IR unchanged\n")
                                               : to_string(r) + "\n";
        });
    if (options.after_pass) options.after_pass(name, out);
    return out;
  }
};

// Arguments whose tensors share a name (two placeholders left with the default "placeholder", as
// TVM users leave them) get a suffix in argument order: placeholder, placeholder_1, ... The names
// depend on the program only; schedule_ops names the other buffers after these.
std::vector<ArgBinding> bind_args(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<ArgBinding> out;
  NameTable names;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (!t.defined()) throw LowerError(str("lower: argument ", i, " is empty"));
    for (const ArgBinding& a : out) {
      if (a.op == t.op()) {
        throw LowerError(str("lower: tensor '", t.name(), "' appears twice in the arguments"));
      }
    }
    if (t.op()->kind == OpKind::kCompute) {
      StagePtr st = sch.find(t.op());
      if (!st) {
        throw LowerError(str("lower: argument '", t.name(), "' is not computed by this schedule"));
      }
      if (st->attach_type == AttachType::kInline) {
        throw LowerError(str("lower: argument '", t.name(),
                             "' is inlined, so it has no buffer; compute_root it or drop it from "
                             "the arguments"));
      }
    }
    out.push_back({t.op(), make_buffer(names.unique(t.name()), t.dtype(), t.shape(), "global")});
  }
  for (const Operation& o : sch.outputs()) {
    bool found = false;
    for (const ArgBinding& a : out) found |= primary_of(a.op) == primary_of(o);
    if (!found) {
      throw LowerError(str("lower: output '", o->name,
                           "' is not in the argument list; pass it so the result has a home"));
    }
  }
  return out;
}

// Extern stages (te.extern) run a C function over whole buffers: only the C target has them, and
// the stages they read must be complete, at the root, when they run (stage.cpp rejects the
// primitives that would break that; a later cache_read or compute_at is caught here).
void check_extern_stages(const Schedule& sch, const Target& target) {
  for (const StagePtr& st : sch.stages()) {
    if (st->op->kind != OpKind::kExtern) continue;
    const std::string& func = st->op->extern_call->func;
    if (target.is_npu()) {
      throw TargetError(str("target '", target.name(), "': stage '", st->name(),
                            "' is an extern stage (te.extern calling the C function '", func,
                            "'); NPU kernels run NPU instructions only: build it for target c"));
    }
    for (const Operation& in : st->inputs()) {
      StagePtr p = sch.find(in);
      if (p && p->attach_type != AttachType::kRoot) {
        const char* where =
            p->attach_type == AttachType::kInline ? "inlined" : "computed at another stage";
        throw LowerError(str("lower: stage '", p->name(), "' is read by extern stage '", st->name(),
                             "' (C function '", func, "'), which needs it whole in a buffer, but ",
                             "it is ", where, "; compute_root it"));
      }
    }
  }
}

// The C sources of the extern stages, each once, in stage order.
std::vector<std::string> extern_sources(const Schedule& sch) {
  std::vector<std::string> out;
  for (const StagePtr& st : sch.stages()) {
    if (st->op->kind != OpKind::kExtern) continue;
    const std::string& src = st->op->extern_call->source;
    if (std::find(out.begin(), out.end(), src) == out.end()) out.push_back(src);
  }
  return out;
}

}  // namespace

LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name,
                  const Target& target, const LowerOptions& options) {
  // Symbolic shapes lower per size (schedule/specialize.h): the loop IR here has numbers.
  if (Var v = first_size_var(sch, args); v.defined()) {
    if (target.is_npu()) {
      throw TargetError(str("target '", target.name(), "': size variable '", v.name(),
                            "' makes a shape symbolic; NPU kernels need constant shapes (their ",
                            "tiles, SRAM and DMA are sized at compile time): build for one size ",
                            "with sizes={", v.name(), ": value}, or use target c, whose module ",
                            "binds sizes at each call"));
    }
    throw LowerError(str("lower: size variable '", v.name(), "' has no value; tessera lowers a ",
                         "symbolic shape per size: lower(s, args, sizes={", v.name(),
                         ": value}) shows one, and build(s, args, target='c') binds the sizes ",
                         "from the arrays at each call (TVM lowers one symbolic function)"));
  }
  check_extern_stages(sch, target);
  if (target.is_npu()) {
    // float16, uint32 and uint64 exist for the C target; the NPU is int8/int32 hardware.
    auto check_dtype = [&](const std::string& tensor, DType t) {
      if (t != DType::kFloat16 && !is_wide_unsigned(t)) return;
      throw TargetError(str("target '", target.name(), "': tensor '", tensor, "' has dtype ",
                            dtype_name(t), ", which the NPU does not compute (its MAC array and ",
                            "vector unit work on int8 and int32): build it for target c"));
    };
    for (const Tensor& t : args) check_dtype(t.name(), t.dtype());
    for (const StagePtr& st : sch.stages()) {
      for (int i = 0; i < num_outputs(st->op); ++i) {
        check_dtype(num_outputs(st->op) > 1 ? str(st->name(), ".v", i) : st->name(),
                    output_dtype(st->op, i));
      }
    }
    for (const StagePtr& st : sch.stages()) {
      if (num_outputs(st->op) > 1) {
        throw TargetError(str("target '", target.name(), "': stage '", st->name(),
                              "' is a multi-output compute (", num_outputs(st->op),
                              " outputs); NPU kernels compute one tensor per stage: build it for "
                              "target c, or write one te.compute per output"));
      }
      const auto* r = st->op->body.as<ReduceNode>();
      if (r && r->init.defined()) {
        throw TargetError(str("target '", target.name(), "': stage '", st->name(),
                              "' is a reduction with init=; NPU kernels start reductions from "
                              "zero: compute the initial value in its own stage and add it"));
      }
    }
  }
  // Lowering asks the same arithmetic questions many times (arith_memo.h): answered once each.
  ArithMemo memo;
  std::vector<ArgBinding> bindings = bind_args(sch, args);
  check_bounds(sch);  // every read inside its tensor's shape, or a LowerError
  InlinedBodies bodies = run_step<InlinedBodies>(
      "inline_stages", [&] { return inline_stages(sch); },
      [&](const InlinedBodies& b) { return to_string(b, sch); });
  BoundMap bounds = run_step<BoundMap>(
      "infer_bounds", [&] { return infer_bounds(sch, bodies); },
      [&](const BoundMap& b) { return to_string(b, sch); });
  Pipeline p{options};
  Stmt body = p.pass("schedule_ops", Stmt(),
                     [&](const Stmt&) { return schedule_ops(sch, bounds, bindings); });
  body = p.pass("tensorize", body, [&](const Stmt& s) { return tensorize(s, target); });
  // One simplify, after flattening: it simplifies each original index as part of the flat one
  // (bottom-up, same loop ranges), which a simplify before flattening did as well (lower.h).
  body = p.pass("flatten_storage", body, [](const Stmt& s) { return flatten_storage(s); });
  body = p.pass("simplify", body, [](const Stmt& s) { return simplify(s); });
  if (target.is_npu()) {
    body = p.pass("inject_npu_ops", body,
                  [&](const Stmt& s) { return inject_npu_ops(s, target.npu()); });
    body =
        p.pass("tighten_loop_bounds", body, [](const Stmt& s) { return tighten_loop_bounds(s); });
  }
  LoweredFunc f;
  f.name = name;
  for (const ArgBinding& a : bindings) f.args.push_back(a.buffer);
  f.body = body;
  f.work = true_work(args);
  f.target = target.name();
  f.extern_sources = extern_sources(sch);
  run_step<bool>(
      "verify",
      [&] {
        verify(f, target);
        return true;
      },
      [](bool) { return std::string("  ok\n"); });
  return f;
}

std::string to_string(const LoweredFunc& f) {
  std::string s = "func " + f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Buffer& b = f.args[i];
    s += (i ? ", " : "") + b->name + ": " + dtype_name(b->dtype) + "[";
    for (size_t d = 0; d < b->shape.size(); ++d) s += (d ? ", " : "") + std::to_string(b->shape[d]);
    s += "]";
  }
  return s + ") {\n" + to_string(f.body, 1) + "}\n";
}

}  // namespace tessera
