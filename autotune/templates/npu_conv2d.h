// NPU conv2d (batch 1) in NCHWc{B}, B = target.block():
//   X [CB, H, W, B], W [KB, CB, R, S, B, B] -> Y [KB, OH, OW, B]
//   Y[k, oh, ow] = requant(sum_{c, r, s} Xpad[c, oh*stride + r, ow*stride + s] * W[k, c, r, s])
//
// The schedule (NpuConv2dParams; the template's knobs, conv2d_template.cpp):
//   * output tiles of tile_kb channel blocks x tile_oh rows x tile_ow columns (tails allowed),
//     their three tile loops in `order` (outermost first);
//   * per tile, the int32 partial sums stay in the accumulator (scope acc) while the reduction runs
//     over input-channel tiles of tile_cb blocks; then one requantize into an SRAM output tile,
//     stored by DMA;
//   * the input tile (the padded window the output tile reads; the DMA pads it on load) and the
//     weight tile live in SRAM. With tile_cb < CB both are loaded per input-channel tile, inside
//     the accumulation. Otherwise the weights are loaded at the output-channel tile loop and the
//     input at the inner of the two spatial tile loops, so the order decides which one stays
//     resident while the other streams (weights resident: kb outermost);
//   * weights_at: "tile" as above, or "tap_row": the weights are loaded per row of the window's
//     taps, inside the accumulation (a cache stage at a reduction loop): smaller loads that
//     overlap better, the same bytes when each row of taps is used once per load;
//   * fold: which two loops one GEMM instruction covers: the tile's rows x columns ("rows"), its
//     input channel blocks x columns ("channels": better when a tile has few rows and columns), or
//     its output channel blocks x pixels ("pixels": rows and columns fused into one loop, for 1x1
//     windows whose input tile is contiguous — stride 1, or a strided input load — with tiles of
//     whole rows; fold_applies says when), or its output channel blocks x columns, one GEMM per
//     output row and reduction step ("blocks": any window and input load; the reduction loops
//     run outside the rows, so the first reduction step resets the accumulator and no zeroing
//     pass is needed; the MAC array's long GEMMs for small spatial tiles of many channels);
//   * input_load: a strided convolution whose window is smaller than its stride (1x1 stride 2)
//     reads only some rows and columns; "strided_rows" loads only the rows it reads, "strided" only
//     the rows and the columns (more DMAs, each one pixel per row, less traffic). No padding then.
//   * db_input, db_weights, db_output: double buffering of the three SRAM stages; db_acc: of the
//     accumulator tile (offered on targets whose MAC array and vector unit overlap, where the
//     requantize of one tile then runs beside the next tile's GEMMs).
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/cycles_bound.h"
#include "autotune/templates/npu_template.h"

namespace tessera {

struct Conv2dShape {
  int64_t C, H, W, K, R, S, stride, pad;
  int64_t OH() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - S) / stride + 1; }
  int64_t macs() const { return K * OH() * OW() * C * R * S; }
};

enum class ConvFold : uint8_t { kRows, kChannels, kPixels, kBlocks };
enum class InputLoad : uint8_t { kWindow, kStridedRows, kStrided };
enum class WeightsAt : uint8_t { kTile, kTapRow };

struct NpuConv2dParams {
  int64_t tile_kb = 1, tile_oh = 1, tile_ow = 1, tile_cb = 1;
  std::vector<std::string> order;  // the tile loops, outermost first; empty: axis order
  ConvFold fold = ConvFold::kRows;
  InputLoad input_load = InputLoad::kWindow;
  WeightsAt weights_at = WeightsAt::kTile;
  bool db_input = true, db_weights = true, db_output = true;
  bool db_acc = false;
};

// The true work at the logical shape (runtime/base/work.h): channels padded to the lanes add
// MACs, bytes and requantizes that no kernel needs.
Work conv2d_work(const Conv2dShape& shape);

// ArgumentError naming `op` and the field unless every size is in [1, kMaxOperatorExtent], pad
// >= 0 and the window fits the padded input (npu_shape_checks.h). Every function here that takes
// a shape checks it first, before any output size is computed.
void check_conv_shape(const char* op, const Conv2dShape& shape);

// Whether the convolution reads only some of its input rows (columns): window < stride, no pad.
bool conv_skips_rows(const Conv2dShape& sh);
bool conv_skips_cols(const Conv2dShape& sh);

// Whether fold "pixels" can fold for these parameters (the others always can): a 1x1 window, tiles
// of whole output rows, and an input tile whose pixels are consecutive rows (stride 1, or both
// rows and columns loaded strided).
bool fold_applies(const Conv2dShape& shape, const NpuConv2dParams& p);

// Whether a config's input stage is aligned for the 'pixels' fold: a strided 1x1 convolution whose
// sampled input rows ('strided_rows') are loaded stride x OW columns wide, so that consecutive
// output pixels read the stage at a constant stride.
bool pixels_align_rows(const Conv2dShape& sh, const NpuConv2dParams& p);

// ScheduleError naming the parameter for tiles < 1, an order that is not a permutation of
// kb, oh, ow, a strided input load the shape does not allow, or a fold that does not apply.
NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q,
                 const NpuConv2dParams& p);
// With default_conv2d_params.
NpuOp npu_conv2d(const npu::Target& target, const Conv2dShape& shape, const Requant& q);

// What the schedule of `p` allocates on chip (mirrors infer_bounds' regions and allocate_onchip).
OnchipFootprint conv2d_footprint(const npu::Target& target, const Conv2dShape& shape,
                                 const NpuConv2dParams& p);

// The shape-aware default: the point of the template's space that a small model of the target
// (MAC-array steps and per-instruction costs against DMA traffic with the order's reuse, DMA
// latency and the DDR port) rates best among those that fit.
NpuConv2dParams default_conv2d_params(const npu::Target& target, const Conv2dShape& shape);

// Lower bounds on the work of the kernel npu_conv2d builds for `p` (cycles_bound.h), from the
// schedule's structure alone (conv2d_bound.cpp).
KernelWork conv2d_work_lower_bound(const npu::Target& target, const Conv2dShape& shape,
                                   const NpuConv2dParams& p);

// The template's space, and conversions between its configs and parameters (conv2d_template.cpp).
autotune::ConfigSpace conv2d_space(const npu::Target& target, const Conv2dShape& shape);
NpuConv2dParams conv2d_params(const autotune::ConfigSpace& space, const autotune::Config& config);
// ConfigError when a parameter is not in its knob's domain.
autotune::Config conv2d_config(const autotune::ConfigSpace& space, const NpuConv2dParams& p);

}  // namespace tessera
