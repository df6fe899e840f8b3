// Tensor intrinsics: a small tensor-expression computation plus the instruction it becomes.
// `tensorize(axis, intrin)` replaces the loops under `axis` by the intrinsic after lowering has
// proved that they compute exactly the intrinsic's computation (compiler/passes/tensorize.h).
//
// npu.gemm{BO}x{BI} — one step of a BLOCK_OUT x BLOCK_IN MAC array (becomes an NpuGemm statement):
//     out[o] = sum over i < BI of int32(inp[i]) * int32(wgt[o, i])       (inp, wgt int8)
// The loops under the tensorized axis must be o (data-parallel, extent BO) and i (reduction,
// extent BI); the output's innermost index must be o with stride 1, inp's innermost index i
// with stride 1, and wgt's index BI * o + i within its BO x BI tile.
#pragma once

#include <memory>
#include <string>

#include "compiler/te/operation.h"
#include "runtime/npu/target.h"

namespace tessera {

enum class IntrinKind : uint8_t { kNpuGemm };

struct TensorIntrinNode {
  std::string name;
  IntrinKind kind;
  Operation op;  // the computation, written over placeholders of the intrinsic's own shape
  // The MAC array the intrinsic runs on (its operands are rows of that array's block).
  int64_t block_in = 0, block_out = 0;
  std::string to_string() const;  // the computation as text, for error messages
};
using TensorIntrin = std::shared_ptr<const TensorIntrinNode>;

// The GEMM intrinsic of `target`'s MAC array (mac_out x mac_in).
TensorIntrin npu_gemm_intrin(const npu::Target& target);

}  // namespace tessera
