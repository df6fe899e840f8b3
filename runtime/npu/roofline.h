// The roofline bound (DESIGN.md): the cycles no schedule can beat on this target,
//   max(MACs / MACs-per-cycle, minimum DDR bytes / DDR bytes-per-cycle, vector ops / lanes),
// and how far a measured run is from it.
//
// Two bounds, named for what they count (docs/npu_isa.md section 9):
//   roofline_bound(kernel)         the operator's true work (Kernel::work: unpadded MACs, every
//                                  input and output once at its logical size), what users read;
//   kernel_roofline_bound(kernel)  the kernel's own work: MACs and vector ops of its instructions
//                                  (padding included), bytes of its input and output buffers.
#pragma once

#include <cstdint>

#include "runtime/base/work.h"
#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

struct RooflineBound {
  uint64_t macs = 0;
  uint64_t ddr_bytes = 0;   // minimum DDR traffic
  uint64_t vector_ops = 0;  // element operations
  double mac_cycles = 0, ddr_cycles = 0, vector_cycles = 0;
  double cycles = 0;  // the bound: the largest of the three
  // Which of the three sets the bound: "MAC", "DDR" or "vector" (the first of them on a tie).
  const char* limited_by() const;
};

RooflineBound roofline_bound(const Target& target, uint64_t macs, uint64_t min_ddr_bytes,
                             uint64_t vector_ops);
RooflineBound roofline_bound(const Target& target, const Work& work);

// The bound of the kernel's true work (Kernel::work). ArgumentError naming the kernel when it
// declares none (an assembler kernel without Assembler::declare_work).
RooflineBound roofline_bound(const Kernel& kernel, const Target& target);

// Derived from the kernel itself: MACs and vector ops from its GEMM and vector instructions,
// minimum DDR traffic as the sizes of its input and output buffers (each read or written once;
// scratch buffers are not counted). Padded work counts as work. Runs prepare_program(), so it
// checks the kernel.
RooflineBound kernel_roofline_bound(const Kernel& kernel, const Target& target);

// Achieved cycles over the bound: 1.0 is the physical limit, 2.0 means twice as slow.
double achieved_over_bound(uint64_t achieved_cycles, const RooflineBound& bound);

}  // namespace tessera::npu
