// The roofline bound of a kernel (DESIGN.md): the cycles no schedule can beat on this target,
//   max(MACs / MACs-per-cycle, minimum DDR bytes / DDR bytes-per-cycle, vector ops / lanes),
// and how far a measured run is from it.
#pragma once

#include <cstdint>

#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

struct RooflineBound {
  uint64_t macs = 0;
  uint64_t ddr_bytes = 0;   // minimum DDR traffic
  uint64_t vector_ops = 0;  // element operations
  double mac_cycles = 0, ddr_cycles = 0, vector_cycles = 0;
  double cycles = 0;  // the bound: the largest of the three
};

RooflineBound roofline_bound(const Target& target, uint64_t macs, uint64_t min_ddr_bytes,
                             uint64_t vector_ops);

// Derives the three figures from a kernel: MACs and vector ops from its GEMM and vector
// instructions, minimum DDR traffic as the sizes of its input and output buffers (each read or
// written once; scratch buffers are not counted). Runs prepare_program(), so it checks the kernel.
RooflineBound roofline_bound(const Kernel& kernel, const Target& target);

// Achieved cycles over the bound: 1.0 is the physical limit, 2.0 means twice as slow.
double achieved_over_bound(uint64_t achieved_cycles, const RooflineBound& bound);

}  // namespace tessera::npu
