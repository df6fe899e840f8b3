// The pieces every NPU operator's argument check is made of (check_conv_shape, check_pool_shape,
// check_dense_shape, check_add_shape call them first thing): a stride of 0 used to reach the
// output-size division and kill the process with SIGFPE, a negative stride surfaced as an error
// about an internal tensor, a negative pad silently computed a crop, and sizes near int64's range
// overflowed the shape arithmetic. Each failure is an ArgumentError naming the operator (`op`:
// the template's name, or the C++ function's) and the field, and saying what is legal.
#pragma once

#include <cstdint>

namespace tessera {

// The largest size, stride or pad an operator takes: far beyond any on-chip tile, and small
// enough that the shape arithmetic (H + 2 * pad, products of a few sizes) cannot overflow.
constexpr int64_t kMaxOperatorExtent = int64_t(1) << 24;

// `field` = v, a size (`meaning`: "input channels", ...), must be in [1, kMaxOperatorExtent].
void check_size_arg(const char* op, const char* field, int64_t v, const char* meaning);

// An R x S window moved by `stride` over an H x W input padded by `pad` zeros on each side: every
// size positive, stride >= 1, pad >= 0, and the window inside the padded input.
void check_window_args(const char* op, int64_t H, int64_t W, int64_t R, int64_t S, int64_t stride,
                       int64_t pad);

}  // namespace tessera
