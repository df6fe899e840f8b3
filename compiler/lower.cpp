#include "compiler/lower.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/passes/flatten_storage.h"
#include "compiler/passes/infer_bounds.h"
#include "compiler/passes/inject_npu_ops.h"
#include "compiler/passes/schedule_ops.h"
#include "compiler/passes/tighten_loop_bounds.h"
#include "runtime/base/error.h"

namespace tessera {

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

// Runs one pass, with the debug dump and timing the environment asks for.
template <typename F>
Stmt run_pass(const char* pass, const Stmt& in, F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  Stmt out = f(in);
  if (env_int("TESSERA_TIME_PASSES")) {
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    std::cerr << "[tessera] pass " << pass << ": " << us << " us\n";
  }
  if (env_int("TESSERA_DEBUG") >= 2 && !out.same_as(in)) {
    std::cerr << "[tessera] after " << pass << ":\n" << to_string(out) << "\n";
  }
  return out;
}

std::vector<ArgBinding> bind_args(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<ArgBinding> out;
  std::set<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (!t.defined()) throw LowerError(str("lower: argument ", i, " is empty"));
    for (const ArgBinding& a : out) {
      if (a.op == t.op()) {
        throw LowerError(str("lower: tensor '", t.name(), "' appears twice in the arguments"));
      }
    }
    if (!names.insert(t.name()).second) {
      throw LowerError(
          str("lower: two arguments are named '", t.name(), "'; give tensors distinct names"));
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
    out.push_back({t.op(), make_buffer(t.name(), t.dtype(), t.shape(), "global")});
  }
  for (const Operation& o : sch.outputs()) {
    bool found = false;
    for (const ArgBinding& a : out) found |= a.op == o;
    if (!found) {
      throw LowerError(str("lower: output '", o->name,
                           "' is not in the argument list; pass it so the result has a home"));
    }
  }
  return out;
}

// Every tensor intrinsic of the schedule runs on the target's MAC array.
void check_intrinsics(const Schedule& sch, const Target& target) {
  for (const StagePtr& st : sch.stages()) {
    if (!st->intrin) continue;
    const TensorIntrinNode& in = *st->intrin;
    if (!target.is_npu()) {
      throw TargetError(str("stage '", st->name(), "': tensorize with '", in.name,
                            "' needs an NPU target; target '", target.name(),
                            "' has no MAC array (build for an NPU, or drop the tensorize)"));
    }
    const npu::Target& t = target.npu();
    if (in.block_in != t.mac_in || in.block_out != t.mac_out) {
      throw TargetError(str("stage '", st->name(), "': tensorize with '", in.name,
                            "', declared for a ", in.block_out, "x", in.block_in,
                            " MAC array, but target '", t.name, "' has a ", t.mac_out, "x",
                            t.mac_in,
                            " array (mac_out x mac_in); declare the intrinsic for this "
                            "target (npu_gemm_intrin(target))"));
    }
  }
}

}  // namespace

LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name,
                  const Target& target) {
  check_intrinsics(sch, target);
  std::vector<ArgBinding> bindings = bind_args(sch, args);
  BoundMap bounds = infer_bounds(sch);
  Stmt body = run_pass("schedule_ops", Stmt(),
                       [&](const Stmt&) { return schedule_ops(sch, bounds, bindings); });
  body = run_pass("simplify", body, [](const Stmt& s) { return simplify(s); });
  body = run_pass("flatten_storage", body, [](const Stmt& s) { return flatten_storage(s); });
  body = run_pass("simplify", body, [](const Stmt& s) { return simplify(s); });
  if (target.is_npu()) {
    body = run_pass("inject_npu_ops", body,
                    [&](const Stmt& s) { return inject_npu_ops(s, target.npu()); });
    body =
        run_pass("tighten_loop_bounds", body, [](const Stmt& s) { return tighten_loop_bounds(s); });
  }
  LoweredFunc f;
  f.name = name;
  for (const ArgBinding& a : bindings) f.args.push_back(a.buffer);
  f.body = body;
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
