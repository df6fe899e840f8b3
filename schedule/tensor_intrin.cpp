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
  n->op = out.op();
  n->input_scopes = {"sram", "sram"};
  n->output_scope = "acc";
  n->row_elems = target.block();
  n->emit = [](bool reset, const IntrinOperand& out, const std::vector<IntrinOperand>& in) {
    return make_npu_gemm(reset, out.buffer, out.row, in[0].buffer, in[0].row, in[1].buffer,
                         in[1].row);
  };
  return TensorIntrin(n);
}

TensorIntrin npu_vmac_intrin(const npu::Target& target) {
  const int64_t b = target.block();
  Tensor inp = placeholder({b}, DType::kInt8, "inp");
  Tensor wgt = placeholder({b}, DType::kInt8, "wgt");
  // A sum over no axis: the partial sum of a reduction whose loops all lie outside the
  // intrinsic (a reduction built directly: te's sum() wants at least one axis).
  Tensor out =
      compute({b},
              [&](const std::vector<Var>& l) {
                return make_reduce(ReduceKind::kSum,
                                   binary_op(ExprKind::kMul, cast(DType::kInt32, inp({l[0]})),
                                             cast(DType::kInt32, wgt({l[0]}))),
                                   {}, Expr());
              },
              "out", {"l"});
  auto n = std::make_shared<TensorIntrinNode>();
  n->name = str("npu.vmac", b);
  n->op = out.op();
  n->input_scopes = {"sram", "sram"};
  n->output_scope = "acc";
  n->row_elems = b;
  n->emit = [](bool reset, const IntrinOperand& out, const std::vector<IntrinOperand>& in) {
    return make_npu_vector(reset ? npu::VecOp::kMul : npu::VecOp::kMac, out.buffer, out.row,
                           in[0].buffer, in[0].row, in[1].buffer, in[1].row);
  };
  return TensorIntrin(n);
}

std::string TensorIntrinNode::to_string() const {
  std::string axes;
  for (const IterVar& iv : op->axis) axes += (axes.empty() ? "" : ", ") + iv->var.name();
  return op->name + "[" + axes + "] = " + tessera::to_string(op->body);
}

}  // namespace tessera
