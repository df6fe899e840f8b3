#include "runtime/npu/roofline.h"

#include <algorithm>

#include "runtime/base/error.h"
#include "runtime/npu/prepare_program.h"

namespace tessera::npu {

RooflineBound roofline_bound(const Target& t, uint64_t macs, uint64_t min_ddr_bytes,
                             uint64_t vector_ops) {
  RooflineBound b;
  b.macs = macs;
  b.ddr_bytes = min_ddr_bytes;
  b.vector_ops = vector_ops;
  b.mac_cycles = double(macs) / double(t.macs_per_cycle());
  b.ddr_cycles = double(min_ddr_bytes) / double(t.ddr_bytes_per_cycle);
  b.vector_cycles = double(vector_ops) / double(t.vector_lanes);
  b.cycles = std::max({b.mac_cycles, b.ddr_cycles, b.vector_cycles});
  return b;
}

const char* RooflineBound::limited_by() const {
  if (cycles == mac_cycles) return "MAC";
  return cycles == ddr_cycles ? "DDR" : "vector";
}

RooflineBound roofline_bound(const Target& t, const Work& w) {
  return roofline_bound(t, w.macs, w.min_ddr_bytes, w.vector_ops);
}

RooflineBound roofline_bound(const Kernel& kernel, const Target& target) {
  check_kernel_target(kernel, target);
  if (!kernel.work)
    throw ArgumentError(str("kernel '", kernel.name,
                            "' declares no true work (an assembler kernel needs "
                            "Assembler::declare_work); kernel_roofline_bound() gives the bound of "
                            "the kernel's own instructions and buffers"));
  return roofline_bound(target, *kernel.work);
}

RooflineBound kernel_roofline_bound(const Kernel& kernel, const Target& target) {
  PreparedProgram p = prepare_program(kernel, target);
  uint64_t bytes = 0;
  for (const BufferDecl& b : kernel.buffers)
    if (b.role != BufferRole::kScratch) bytes += b.bytes();
  return roofline_bound(target, p.macs, bytes, p.vector_ops);
}

double achieved_over_bound(uint64_t achieved_cycles, const RooflineBound& bound) {
  if (bound.cycles <= 0)
    throw ArgumentError("achieved_over_bound: the bound is 0 cycles (the kernel does no work)");
  return double(achieved_cycles) / bound.cycles;
}

}  // namespace tessera::npu
