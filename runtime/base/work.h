// The true work of an operator: what any kernel that computes it must do at least, counted on its
// logical (unpadded) shape. A kernel in a padded layout does more (channels padded to the MAC
// array's lanes, diagonal depthwise weight tiles), so roofline figures measured against the true
// work say how much of the machine the operator really uses (docs/npu_isa.md section 9).
//
// Declared by an operator from its logical shape (compute(..., true_work)), or computed by
// lowering from the tensor expression (compiler/te/true_work.h); carried into the NPU kernel
// (Kernel::work, saved in the kernel file) so that NpuModule::roofline() can use it.
#pragma once

#include <cstdint>

namespace tessera {

struct Work {
  uint64_t macs = 0;           // multiply-accumulates
  uint64_t min_ddr_bytes = 0;  // every input byte read once, every output byte written once
  uint64_t vector_ops = 0;     // element operations besides the MACs (requantize, add, max, ...)

  bool operator==(const Work& o) const {
    return macs == o.macs && min_ddr_bytes == o.min_ddr_bytes && vector_ops == o.vector_ops;
  }
  bool operator!=(const Work& o) const { return !(*this == o); }
  Work& operator+=(const Work& o) {
    macs += o.macs;
    min_ddr_bytes += o.min_ddr_bytes;
    vector_ops += o.vector_ops;
    return *this;
  }
};

}  // namespace tessera
