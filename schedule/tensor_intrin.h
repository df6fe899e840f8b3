// Tensor intrinsics: a small tensor-expression computation plus the instruction it becomes.
// `tensorize(axis, intrin)` replaces the loops under `axis` by the intrinsic after lowering has
// proved that they compute exactly the intrinsic's computation (compiler/passes/tensorize.h).
//
// npu.gemm16 — one step of the 16 x 16 MAC array (becomes an NpuGemm statement):
//     out[o] = sum over i < 16 of int32(inp[i]) * int32(wgt[o, i])       (inp, wgt int8)
// The loops under the tensorized axis must be o (data-parallel, extent 16) and i (reduction,
// extent 16); the output's innermost index must be o with stride 1, inp's innermost index i
// with stride 1, and wgt's index 16 * o + i within its 16 x 16 tile.
#pragma once

#include <memory>
#include <string>

#include "compiler/te/operation.h"

namespace tessera {

enum class IntrinKind : uint8_t { kNpuGemm };

struct TensorIntrinNode {
  std::string name;
  IntrinKind kind;
  Operation op;  // the computation, written over placeholders of the intrinsic's own shape
  std::string to_string() const;  // the computation as text, for error messages
};
using TensorIntrin = std::shared_ptr<const TensorIntrinNode>;

// The built-in intrinsic for the NPU's MAC array.
TensorIntrin npu_gemm_intrin();

}  // namespace tessera
