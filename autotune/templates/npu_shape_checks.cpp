#include "autotune/templates/npu_shape_checks.h"

#include "runtime/base/error.h"

namespace tessera {

namespace {

void in_range(const char* op, const char* field, int64_t v, const char* meaning, int64_t lo) {
  if (v < lo || v > kMaxOperatorExtent) {
    throw ArgumentError(str(op, ": ", field, " = ", v, " (", meaning, ") must be in [", lo, ", ",
                            kMaxOperatorExtent, "]"));
  }
}

}  // namespace

void check_size_arg(const char* op, const char* field, int64_t v, const char* meaning) {
  in_range(op, field, v, meaning, 1);
}

void check_window_args(const char* op, int64_t H, int64_t W, int64_t R, int64_t S, int64_t stride,
                       int64_t pad) {
  check_size_arg(op, "H", H, "input height");
  check_size_arg(op, "W", W, "input width");
  check_size_arg(op, "R", R, "window height");
  check_size_arg(op, "S", S, "window width");
  in_range(op, "stride", stride, "the window's step in rows and columns", 1);
  in_range(op, "pad", pad, "zero rows and columns added on each side", 0);
  if (R > H + 2 * pad) {
    throw ArgumentError(str(op, ": R = ", R,
                            " (window height) is larger than the padded input: H + 2 * pad = ",
                            H + 2 * pad, "; the window must fit, R <= H + 2 * pad"));
  }
  if (S > W + 2 * pad) {
    throw ArgumentError(str(op, ": S = ", S,
                            " (window width) is larger than the padded input: W + 2 * pad = ",
                            W + 2 * pad, "; the window must fit, S <= W + 2 * pad"));
  }
}

}  // namespace tessera
