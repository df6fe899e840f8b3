#include "autotune/templates/npu_add.h"

#include <algorithm>

#include "autotune/templates/npu_shape_checks.h"
#include "runtime/base/error.h"

namespace tessera {

void check_add_shape(const char* op, int64_t C, int64_t H, int64_t W) {
  check_size_arg(op, "C", C, "channels");
  check_size_arg(op, "H", H, "height");
  check_size_arg(op, "W", W, "width");
}

NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu,
              const NpuAddParams& p) {
  check_add_shape("npu_add", C, H, W);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tile_cb", p.tile_cb},
                         {"tile_h", p.tile_h},
                         {"tile_w", p.tile_w}}) {
    if (v < 1) throw ScheduleError(str("npu_add: ", name, " = ", v, " must be at least 1"));
  }
  check_tile_order("npu_add", p.order, {"cb", "h", "w"});
  const int64_t blk = target.block();
  const int64_t CB = ceil_div(C, blk);
  Tensor A = placeholder({CB, H, W, blk}, DType::kInt8, "A");
  Tensor B = placeholder({CB, H, W, blk}, DType::kInt8, "B");
  Tensor Y = compute(
      {CB, H, W, blk},
      [&](const std::vector<Var>& v) {
        Expr s = binary_op(ExprKind::kAdd, cast(DType::kInt32, A({v[0], v[1], v[2], v[3]})),
                           cast(DType::kInt32, B({v[0], v[1], v[2], v[3]})));
        // Written as the saturating clamp that inject_npu_ops recognises as an int8 vector add.
        Expr r = cast(DType::kInt8,
                      binary_op(ExprKind::kMin,
                                binary_op(ExprKind::kMax, s, int_literal(-128, DType::kInt32)),
                                int_literal(127, DType::kInt32)));
        if (relu) r = binary_op(ExprKind::kMax, r, int_literal(0, DType::kInt8));
        return r;
      },
      "Y", {"c", "h", "w", "l"},
      Work{0, uint64_t(3 * C * H * W), uint64_t(C * H * W)});  // at the logical shape

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor as = sch.cache_read(A, "sram", {ys.op()});
  Tensor bs = sch.cache_read(B, "sram", {ys.op()});
  OutputTiles t = tile_output(sch[Y], {"cb", "h", "w"}, {p.tile_cb, p.tile_h, p.tile_w}, p.order);
  sch[ys].compute_at(sch[Y], t.innermost());
  sch[as].compute_at(sch[Y], t.innermost());
  sch[bs].compute_at(sch[Y], t.innermost());
  if (p.db_input) {
    sch[as].double_buffer();
    sch[bs].double_buffer();
  }
  if (p.db_output) sch[ys].double_buffer();
  return NpuOp{"add", {A, B, Y}, s};
}

NpuOp npu_add(const npu::Target& target, int64_t C, int64_t H, int64_t W, bool relu) {
  check_add_shape("npu_add", C, H, W);
  return npu_add(target, C, H, W, relu, default_add_params(target, C, H, W, relu));
}

OnchipFootprint add_footprint(const npu::Target& target, int64_t C, int64_t H, int64_t W,
                              const NpuAddParams& p) {
  check_add_shape("add_footprint", C, H, W);
  const int64_t CB = ceil_div(C, target.block());
  const int64_t tile = std::min(p.tile_cb, CB) * std::min(p.tile_h, H) * std::min(p.tile_w, W);
  OnchipFootprint f;
  f.sram_rows = 2 * tile * (p.db_input ? 2 : 1) + tile * (p.db_output ? 2 : 1);
  return f;
}

}  // namespace tessera
