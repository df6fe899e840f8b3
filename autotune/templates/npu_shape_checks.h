// Argument checks of the NPU operator library, run first thing by each operator (and by the
// default-parameter functions, which compute output sizes too): a stride of 0 used to reach the
// output-size division and kill the process with SIGFPE, a negative stride surfaced as an error
// about an internal tensor, and a negative pad silently computed a crop. Each failure is an
// ArgumentError naming the operator and the field and saying what is legal.
#pragma once

#include <cstdint>

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_max_pool2d.h"

namespace tessera {

// `op` names the operator in messages ("conv2d", "depthwise_conv2d").
void check_conv2d_shape(const Conv2dShape& shape, const char* op);
void check_max_pool2d_shape(const Pool2dShape& shape);
void check_dense_shape(int64_t M, int64_t K, int64_t N);
void check_add_shape(int64_t C, int64_t H, int64_t W);

}  // namespace tessera
