#include "schedule/tensor_intrin.h"

#include "compiler/ir/ir_printer.h"
#include "compiler/te/te.h"

namespace tessera {

TensorIntrin npu_gemm_intrin() {
  static const TensorIntrin intrin = [] {
    Tensor inp = placeholder({kNpuLanes}, DType::kInt8, "inp");
    Tensor wgt = placeholder({kNpuLanes, kNpuLanes}, DType::kInt8, "wgt");
    IterVar i = reduce_axis(0, kNpuLanes, "i");
    Tensor out = compute({kNpuLanes},
                         [&](const std::vector<Var>& o) {
                           return sum(binary_op(ExprKind::kMul, cast(DType::kInt32, inp({i->var})),
                                                cast(DType::kInt32, wgt({o[0], i->var}))),
                                      {i});
                         },
                         "out", {"o"});
    auto n = std::make_shared<TensorIntrinNode>();
    n->name = "npu.gemm16";
    n->kind = IntrinKind::kNpuGemm;
    n->op = out.op();
    return TensorIntrin(n);
  }();
  return intrin;
}

std::string TensorIntrinNode::to_string() const {
  std::string axes;
  for (const IterVar& iv : op->axis) axes += (axes.empty() ? "" : ", ") + iv->var.name();
  return op->name + "[" + axes + "] = " + tessera::to_string(op->body);
}

}  // namespace tessera
