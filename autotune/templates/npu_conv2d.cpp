#include "autotune/templates/npu_conv2d.h"

#include <algorithm>

#include "autotune/templates/npu_shape_checks.h"
#include "runtime/base/error.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

void check_conv_shape(const char* op, const Conv2dShape& sh) {
  check_size_arg(op, "C", sh.C, "input channels");
  check_size_arg(op, "K", sh.K, "output channels");
  check_window_args(op, sh.H, sh.W, sh.R, sh.S, sh.stride, sh.pad);
}

bool conv_skips_rows(const Conv2dShape& sh) { return sh.pad == 0 && sh.R < sh.stride; }
bool conv_skips_cols(const Conv2dShape& sh) { return sh.pad == 0 && sh.S < sh.stride; }

bool fold_applies(const Conv2dShape& sh, const NpuConv2dParams& p) {
  if (p.fold != ConvFold::kPixels) return true;
  // Consecutive pixels of a tile of whole rows read the input at a constant stride: stride 1,
  // compact columns ('strided'), or sampled rows ('strided_rows') aligned to stride x OW columns.
  bool sampled = p.input_load != InputLoad::kWindow && conv_skips_rows(sh);
  return sh.R == 1 && sh.S == 1 && p.tile_ow >= sh.OW() && (sh.stride == 1 || sampled);
}

bool pixels_align_rows(const Conv2dShape& sh, const NpuConv2dParams& p) {
  return p.fold == ConvFold::kPixels && sh.stride > 1 && p.input_load == InputLoad::kStridedRows &&
         conv_skips_rows(sh);
}

Work conv2d_work(const Conv2dShape& sh) {
  return Work{uint64_t(sh.macs()),
              uint64_t(sh.C * sh.H * sh.W + sh.K * sh.C * sh.R * sh.S + sh.K * sh.OH() * sh.OW()),
              uint64_t(sh.K * sh.OH() * sh.OW())};
}

namespace {

void check_params(const Conv2dShape& sh, const NpuConv2dParams& p) {
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tile_kb", p.tile_kb},
                         {"tile_oh", p.tile_oh},
                         {"tile_ow", p.tile_ow},
                         {"tile_cb", p.tile_cb}}) {
    if (v < 1) throw ScheduleError(str("npu_conv2d: ", name, " = ", v, " must be at least 1"));
  }
  check_tile_order("npu_conv2d", p.order, {"kb", "oh", "ow"});
  if (p.input_load == InputLoad::kStridedRows && !conv_skips_rows(sh)) {
    throw ScheduleError(
        str("npu_conv2d: input_load 'strided_rows' needs a window smaller than the "
            "stride and no padding; this convolution (",
            sh.R, "x", sh.S, ", stride ", sh.stride, ", pad ", sh.pad,
            ") reads every row, so only 'window' applies"));
  }
  if (p.input_load == InputLoad::kStrided && !conv_skips_cols(sh)) {
    throw ScheduleError(
        str("npu_conv2d: input_load 'strided' needs a window narrower than the "
            "stride and no padding; this convolution (",
            sh.R, "x", sh.S, ", stride ", sh.stride, ", pad ", sh.pad, ") reads every column"));
  }
  if (!fold_applies(sh, p)) {
    throw ScheduleError(str("npu_conv2d: fold 'pixels' needs a 1x1 window (this one is ", sh.R, "x",
                            sh.S, "), tiles of whole output rows (tile_ow = ", p.tile_ow, " of ",
                            sh.OW(),
                            " columns) and an input tile of consecutive pixels (stride 1, or "
                            "input_load 'strided')"));
  }
}

// The input stage and how the accumulation reads it. `window`: the zero-padded input (the DMA
// pads it). Otherwise only the rows (and columns) the strided window reads: a row dimension
// [OH, R] instead of [H] (and [OW, S] instead of [W]), loaded with a stride.
struct InputStage {
  Tensor P;
  bool rows = false, cols = false;  // sampled
  Expr read(const Expr& c, const Expr& oh, const Expr& ow, const Expr& r, const Expr& s,
            const Expr& lane, int64_t stride) const {
    Expr st = make_int(stride);
    std::vector<Expr> idx{c};
    if (rows) {
      idx.push_back(oh);
      idx.push_back(r);
    } else {
      idx.push_back(oh * st + r);
    }
    if (cols) {
      idx.push_back(ow);
      idx.push_back(s);
    } else {
      idx.push_back(ow * st + s);
    }
    idx.push_back(lane);
    return P(idx);
  }
};

// `aligned`: the sampled rows are stride x OW columns wide (zero past the input's width), so that
// output pixel p of a tile of whole rows reads the stage at p * stride.
InputStage input_stage(const Tensor& X, const Conv2dShape& sh, InputLoad load, bool aligned) {
  InputStage in;
  in.rows = load != InputLoad::kWindow && conv_skips_rows(sh);
  in.cols = load == InputLoad::kStrided && conv_skips_cols(sh);
  if (!in.rows && !in.cols) {
    in.P = zero_padded(X, sh.pad);
    return in;
  }
  const auto& xs = X.shape();  // [CB, H, W, B]; no padding here
  std::vector<int64_t> shape{xs[0]};
  std::vector<std::string> names{"c"};
  if (in.rows) {
    shape.insert(shape.end(), {sh.OH(), sh.R});
    names.insert(names.end(), {"oh", "r"});
  } else {
    shape.push_back(xs[1]);
    names.push_back("h");
  }
  if (in.cols) {
    shape.insert(shape.end(), {sh.OW(), sh.S});
    names.insert(names.end(), {"ow", "s"});
  } else {
    shape.push_back(aligned ? std::max(xs[2], sh.stride * sh.OW()) : xs[2]);
    names.push_back("w");
  }
  shape.push_back(xs[3]);
  names.push_back("l");
  const bool rows = in.rows, cols = in.cols;
  const int64_t width = xs[2];
  const bool beyond = !cols && shape[shape.size() - 2] > width;  // columns past the input: zero
  Expr st = make_int(sh.stride);
  in.P = compute(
      shape,
      [&](const std::vector<Var>& v) {
        size_t d = 1;
        Expr h = rows ? v[d] * st + v[d + 1] : Expr(v[d]);
        d += rows ? 2 : 1;
        Expr w = cols ? v[d] * st + v[d + 1] : Expr(v[d]);
        d += cols ? 2 : 1;
        Expr x = X({v[0], h, w, v[d]});
        return beyond ? select(w < make_int(width), x, int_literal(0, DType::kInt8)) : x;
      },
      "P", names);
  return in;
}

}  // namespace

NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& sh, const Requant& q,
                 const NpuConv2dParams& p) {
  check_conv_shape("npu_conv2d", sh);
  check_params(sh, p);
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B), KB = ceil_div(sh.K, B);
  const int64_t OH = sh.OH(), OW = sh.OW();
  Tensor X = placeholder({CB, sh.H, sh.W, B}, DType::kInt8, "X");
  Tensor W = placeholder({KB, CB, sh.R, sh.S, B, B}, DType::kInt8, "W");
  const bool aligned = pixels_align_rows(sh, p);
  InputStage in = input_stage(X, sh, p.input_load, aligned);
  IterVar rc = reduce_axis(0, CB, "rc");
  IterVar rr = reduce_axis(0, sh.R, "rr");
  IterVar rs = reduce_axis(0, sh.S, "rs");
  IterVar i = reduce_axis(0, B, "i");
  Tensor acc =
      compute({KB, OH, OW, B},
              [&](const std::vector<Var>& v) {
                Expr x = cast(DType::kInt32,
                              in.read(rc->var, v[1], v[2], rr->var, rs->var, i->var, sh.stride));
                Expr w = cast(DType::kInt32, W({v[0], rc->var, rr->var, rs->var, v[3], i->var}));
                return sum(binary_op(ExprKind::kMul, x, w), {rc, rr, rs, i});
              },
              "acc", {"k", "oh", "ow", "o"});
  Tensor Y = compute(
      {KB, OH, OW, B},
      [&](const std::vector<Var>& v) {
        return requant_expr(acc({v[0], v[1], v[2], v[3]}), q);
      },
      "Y", {"k", "oh", "ow", "o"}, conv2d_work(sh));

  auto s = create_schedule({Y.op()});
  Schedule& sch = *s;
  Tensor ys = sch.cache_write(Y, "sram");
  Tensor ws = sch.cache_read(W, "sram", {acc.op()});
  sch[in.P].set_scope("sram");
  sch[acc].set_scope("acc");
  OutputTiles t =
      tile_output(sch[Y], {"kb", "oh", "ow"}, {p.tile_kb, p.tile_oh, p.tile_ow}, p.order);
  Stage a = sch[acc];
  a.compute_at(sch[Y], t.innermost());
  sch[ys].compute_at(sch[Y], t.innermost());
  // The requantize is one vector instruction per iteration of its outer loop (it folds the two
  // inner ones): with more output blocks than rows in a tile, the rows go outside.
  if (std::min(p.tile_kb, KB) > std::min(p.tile_oh, OH)) {
    const auto& yx = ys.op()->axis;
    sch[ys].reorder({yx[1], yx[0], yx[2], yx[3]});
  }
  const auto& ax = acc.op()->axis;
  std::vector<IterVar> loops;
  IterVar rci = rc;
  if (p.tile_cb < CB) {
    auto [rco, inner] = a.split(rc, p.tile_cb);
    rci = inner;
    loops.push_back(rco);
    sch[in.P].compute_at(a, rco);
    if (p.weights_at == WeightsAt::kTile) sch[ws].compute_at(a, rco);
  } else {
    if (p.weights_at == WeightsAt::kTile) sch[ws].compute_at(sch[Y], t.outer("kb"));
    sch[in.P].compute_at(sch[Y], t.inner_of({"oh", "ow"}));
  }
  if (p.fold == ConvFold::kChannels) {
    loops.insert(loops.end(), {ax[0], rr, rs, ax[1], rci, ax[2], ax[3], i});
  } else if (p.fold == ConvFold::kPixels) {
    loops.insert(loops.end(), {rci, rr, rs, ax[0], ax[1], ax[2], ax[3], i});
  } else if (p.fold == ConvFold::kBlocks) {
    // The reduction outside the tile's rows: tensorize resets at its first step just inside rs,
    // and below that (rows, output blocks, columns) nest perfectly, so a GEMM folds two of them.
    loops.insert(loops.end(), {rci, rr, rs, ax[1], ax[0], ax[2], ax[3], i});
  } else {
    loops.insert(loops.end(), {ax[0], rr, rci, rs, ax[1], ax[2], ax[3], i});
  }
  a.reorder(loops);
  // Weights per row of taps: the stage is computed at the accumulation's rr loop, a reduction
  // loop, so each load holds one row of taps (smaller, overlapped tiles; the same bytes).
  if (p.weights_at == WeightsAt::kTapRow) sch[ws].compute_at(a, rr);
  // One loop over the tile's pixels (rows of whole width): the GEMM folds it with the channel
  // blocks, every accumulator row new in each step.
  if (p.fold == ConvFold::kPixels) a.fuse(ax[1], ax[2]);
  // Sampled rows for 'pixels': each loaded row stride x OW columns wide, the odd ones unread.
  if (aligned) sch[in.P].align_extent(in.P.op()->axis[3], sh.stride * sh.OW());
  a.tensorize(ax[3], npu_gemm_intrin(target));
  if (p.db_input) sch[in.P].double_buffer();
  if (p.db_weights) sch[ws].double_buffer();
  if (p.db_output) sch[ys].double_buffer();
  if (p.db_acc) a.double_buffer();
  return NpuOp{"conv2d", {X, W, Y}, s};
}

NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q) {
  check_conv_shape("npu_conv2d", shape);
  return npu_conv2d(target, shape, q, default_conv2d_params(target, shape));
}

OnchipFootprint conv2d_footprint(const npu::Target& target, const Conv2dShape& sh,
                                 const NpuConv2dParams& p) {
  check_conv_shape("conv2d_footprint", sh);
  const int64_t B = target.block();
  const int64_t CB = ceil_div(sh.C, B), KB = ceil_div(sh.K, B);
  const int64_t OH = sh.OH(), OW = sh.OW();
  const int64_t kb = std::min(p.tile_kb, KB), oh = std::min(p.tile_oh, OH),
                ow = std::min(p.tile_ow, OW), cb = std::min(p.tile_cb, CB);
  const bool rows = p.input_load != InputLoad::kWindow && conv_skips_rows(sh);
  const bool cols = p.input_load == InputLoad::kStrided && conv_skips_cols(sh);
  // The input tile: the channel blocks of one reduction step (all of them without a channel
  // split), the window's rows and columns (capped at the padded input).
  int64_t in_rows = rows ? oh * sh.R : std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad);
  int64_t in_cols = cols ? ow * sh.S
                    : pixels_align_rows(sh, p)
                        ? sh.stride * sh.OW()
                        : std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad);
  int64_t input = cb * in_rows * in_cols;
  // Per row of taps: the loops outside rr (the output block for rows and channels folds, the
  // input block for pixels and blocks) have one iteration in the region.
  const bool kb_inside_rr = p.fold == ConvFold::kPixels || p.fold == ConvFold::kBlocks;
  int64_t weights = p.weights_at == WeightsAt::kTile ? kb * cb * sh.R * sh.S * B
                    : kb_inside_rr                   ? kb * sh.S * B
                                                     : cb * sh.S * B;
  int64_t out = kb * oh * ow;
  OnchipFootprint f;
  f.sram_rows =
      input * (p.db_input ? 2 : 1) + weights * (p.db_weights ? 2 : 1) + out * (p.db_output ? 2 : 1);
  f.acc_rows = out * (p.db_acc ? 2 : 1);
  return f;
}

}  // namespace tessera
