#include "schedule/tensor_intrin.h"

#include "compiler/ir/ir_printer.h"
#include "compiler/te/te.h"
#include "runtime/base/error.h"

namespace tessera {

TensorIntrin npu_gemm_intrin(const npu::Target& target) {
  const int64_t bi = target.mac_in, bo = target.mac_out;
  Tensor inp = placeholder({bi}, DType::kInt8, "inp");
  Tensor wgt = placeholder({bo, bi}, DType::kInt8, "wgt");
  IterVar i = reduce_axis(0, bi, "i");
  Tensor out = compute({bo},
                       [&](const std::vector<Var>& o) {
                         return sum(binary_op(ExprKind::kMul, cast(DType::kInt32, inp({i->var})),
                                              cast(DType::kInt32, wgt({o[0], i->var}))),
                                    {i});
                       },
                       "out", {"o"});
  auto n = std::make_shared<TensorIntrinNode>();
  n->name = str("npu.gemm", bo, "x", bi);
  n->kind = IntrinKind::kNpuGemm;
  n->op = out.op();
  n->block_in = bi;
  n->block_out = bo;
  return TensorIntrin(n);
}

std::string TensorIntrinNode::to_string() const {
  std::string axes;
  for (const IterVar& iv : op->axis) axes += (axes.empty() ? "" : ", ") + iv->var.name();
  return op->name + "[" + axes + "] = " + tessera::to_string(op->body);
}

}  // namespace tessera
