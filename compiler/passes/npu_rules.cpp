#include "compiler/passes/npu_rules.h"

#include "runtime/base/error.h"

namespace tessera {

std::string onchip_problem(const Buffer& b, const npu::Target& target, bool check_rows) {
  if (b->scope != "sram" && b->scope != "acc") {
    return str("buffer '", b->name, "' has scope '", b->scope,
               "', which the NPU cannot hold on chip; on-chip buffers are in scope 'sram' (int8) "
               "or 'acc' (int32)");
  }
  DType want = b->scope == "sram" ? DType::kInt8 : DType::kInt32;
  if (b->dtype != want) {
    return str("on-chip buffer '", b->name, "' in scope '", b->scope, "' has dtype ",
               dtype_name(b->dtype), "; scope '", b->scope, "' holds ", dtype_name(want), " only");
  }
  const int64_t lanes = target.block();
  if (check_rows && (b->shape.empty() || b->shape.back() % lanes != 0)) {
    return str("on-chip buffer '", b->name, "' has an innermost dimension of ",
               b->shape.empty() ? 1 : b->shape.back(), " elements; it must be a multiple of ",
               lanes, " (one row of ", target.name, "'s ", lanes, " lanes)");
  }
  return "";
}

std::string elementwise_store_problem(const BufferStoreNode* store) {
  return str(
      "the loop body is not a DMA, a tensorized GEMM or a vector op; it stores into buffer '",
      store->buffer->name,
      "' element by element, which cannot be expressed as NPU instructions (tensorize the "
      "stage's inner loops, or cache its input/output with a DMA)");
}

int64_t onchip_rows(const Buffer& b, const npu::Target& target) {
  return b->num_elements() / target.block();
}

std::vector<NpuTouch> npu_touches(const Stmt& leaf, const npu::Target& t) {
  auto one = [](const Buffer& b, const Expr& row, const char* role) {
    return NpuTouch{b, row, row + make_int(1), role};
  };
  if (const auto* g = leaf.as<NpuGemmNode>()) {
    return {one(g->acc, g->acc_row, "GEMM accumulator"), one(g->inp, g->inp_row, "GEMM input"),
            NpuTouch{g->wgt, g->wgt_row, g->wgt_row + make_int(t.mac_out), "GEMM weight tile"}};
  }
  if (const auto* v = leaf.as<NpuVectorNode>()) {
    std::vector<NpuTouch> out = {one(v->dst, v->dst_row, "vector destination"),
                                 one(v->src, v->src_row, "vector source")};
    if (v->src2) out.push_back(one(v->src2, v->src2_row, "vector operand"));
    return out;
  }
  const auto* d = leaf.as<NpuDmaNode>();
  TESSERA_ICHECK(d, "npu_touches of a statement that is not an NPU statement");
  // On chip: (pad_top + rows + pad_bottom) rows of the block, each pad_left + cols + pad_right
  // units wide, row r at chip_row + r * stride. In DDR: rows rows of cols units.
  Expr height = d->pad_top + d->rows + d->pad_bottom;
  Expr width = d->pad_left + d->cols + d->pad_right;
  Expr chip_end = d->chip_row + (height - make_int(1)) * make_int(d->chip_row_stride) + width;
  Expr ddr_end = d->ddr_offset + (d->rows - make_int(1)) * make_int(d->ddr_row_stride) +
                 d->cols * make_int(t.block());
  return {
      NpuTouch{d->chip, d->chip_row, chip_end, d->load ? "DMA destination" : "DMA source"},
      NpuTouch{d->ddr, d->ddr_offset, ddr_end, d->load ? "DMA source" : "DMA destination", true}};
}

}  // namespace tessera
