#include "autotune/templates/npu_shape_checks.h"

#include "runtime/base/error.h"

namespace tessera {

namespace {

// Sizes above this are far beyond any on-chip tile and would overflow the shape arithmetic.
constexpr int64_t kMaxExtent = int64_t(1) << 24;

void positive(const char* op, const char* field, int64_t v, const char* meaning) {
  if (v < 1 || v > kMaxExtent)
    throw ArgumentError(str("npu_ops.", op, ": ", field, " = ", v, " (", meaning,
                            ") must be in [1, ", kMaxExtent, "]"));
}

// The window (R x S, stride, pad) against the input (H x W): what conv2d and pooling share.
void check_window(const char* op, int64_t H, int64_t W, int64_t R, int64_t S, int64_t stride,
                  int64_t pad) {
  positive(op, "H", H, "input height");
  positive(op, "W", W, "input width");
  positive(op, "R", R, "window height");
  positive(op, "S", S, "window width");
  if (stride < 1 || stride > kMaxExtent)
    throw ArgumentError(str("npu_ops.", op, ": stride = ", stride,
                            " must be a positive integer (the window's step in rows and columns)"));
  if (pad < 0 || pad > kMaxExtent)
    throw ArgumentError(str("npu_ops.", op, ": pad = ", pad,
                            " must be >= 0 (zero rows and columns added on each side)"));
  if (H + 2 * pad < R)
    throw ArgumentError(str("npu_ops.", op, ": R = ", R,
                            " is taller than the padded input (H + 2 * pad = ", H + 2 * pad,
                            "); the window must fit: R <= H + 2 * pad"));
  if (W + 2 * pad < S)
    throw ArgumentError(str("npu_ops.", op, ": S = ", S,
                            " is wider than the padded input (W + 2 * pad = ", W + 2 * pad,
                            "); the window must fit: S <= W + 2 * pad"));
}

}  // namespace

void check_conv2d_shape(const Conv2dShape& s, const char* op) {
  positive(op, "C", s.C, "input channels");
  positive(op, "K", s.K, "output channels");
  check_window(op, s.H, s.W, s.R, s.S, s.stride, s.pad);
}

void check_max_pool2d_shape(const Pool2dShape& s) {
  positive("max_pool2d", "C", s.C, "channels");
  check_window("max_pool2d", s.H, s.W, s.R, s.S, s.stride, s.pad);
  if (s.pad >= s.R || s.pad >= s.S)  // a window entirely in the padding would have no maximum
    throw ArgumentError(str("npu_ops.max_pool2d: pad = ", s.pad,
                            " must be smaller than the window ", s.R, "x", s.S));
}

void check_dense_shape(int64_t M, int64_t K, int64_t N) {
  positive("dense", "M", M, "rows of the input");
  positive("dense", "K", K, "reduction length");
  positive("dense", "N", N, "output features");
}

void check_add_shape(int64_t C, int64_t H, int64_t W) {
  positive("add", "C", C, "channels");
  positive("add", "H", H, "height");
  positive("add", "W", W, "width");
}

}  // namespace tessera
