// Tensor intrinsics: a small tensor-expression computation plus the instruction(s) it becomes.
// `tensorize(axis, intrin)` replaces the loops under `axis` by the intrinsic after the tensorize
// pass (compiler/passes/tensorize.h) has proved that they compute exactly the declared
// computation: the same loops (data-parallel and reduction, extents), the same expression (ops,
// dtypes, casts), each input read with the declared strides from a buffer in the declared scope,
// and the output written likewise. The proof is generic: a new intrinsic is a new declaration.
//
// The two NPU intrinsics, for a target whose block (MAC-array side, on-chip row) is B:
//   npu.gemm{B}x{B}  out[o] = sum over i < B of int32(inp[i]) * int32(wgt[o, i])
//                    one MAC-array step: NpuGemm (reset form: overwrite, else accumulate)
//   npu.vmac{B}      out[l] = sum over nothing of int32(inp[l]) * int32(wgt[l])
//                    a per-lane multiply-accumulate on the vector unit: NpuVector mac, the reset
//                    form NpuVector mul (a partial sum whose reduction loops lie outside)
// Both read inputs from "sram" (int8) and accumulate into "acc" (int32).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/te/operation.h"
#include "runtime/npu/target.h"

namespace tessera {

// A matched operand: its buffer and the first on-chip row the intrinsic touches.
struct IntrinOperand {
  Buffer buffer;
  Expr row;
};

struct TensorIntrinNode {
  std::string name;
  // The computation, over placeholders of the intrinsic's own shape: op->body is a sum (a Reduce
  // over op->reduce_axis, possibly none); op->inputs are the operands, in order.
  Operation op;
  std::vector<std::string> input_scopes;  // per op->inputs
  std::string output_scope;
  // Elements of one on-chip row, the unit operands are addressed in: the target's block.
  int64_t row_elems = 0;
  // The statement for one instance: `reset` overwrites the output (the first step of a
  // reduction whose loops lie outside), else it accumulates. `inputs` follow op->inputs.
  std::function<Stmt(bool reset, const IntrinOperand& out,
                     const std::vector<IntrinOperand>& inputs)>
      emit;
  std::string to_string() const;  // the computation as text, for error messages
};

// One step of `target`'s MAC array (mac_out x mac_in).
TensorIntrin npu_gemm_intrin(const npu::Target& target);
// A multiply-accumulate of one on-chip row per lane on `target`'s vector unit.
TensorIntrin npu_vmac_intrin(const npu::Target& target);

}  // namespace tessera
