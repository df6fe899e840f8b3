// A built NPU kernel with its target, callable like a CPU module: arrays in, outputs written in
// place, run on the functional simulator; timing and the roofline bound from the timing mode.
//
//   NpuModule m = build_npu(f, npu::default_target());   // codegen/npu/build_npu.h
//   m.run({a, w, c});                                     // c written in place, bit-exact
//   npu::SimStats s = m.timing();                         // s.cycles
//   double f = m.roofline().cycles / s.cycles;            // fraction of the true-work bound
//   m.save("matmul.tnpu");  NpuModule m2 = NpuModule::load("matmul.tnpu");
//
// Arguments are the kernel's buffers in table order (the lowered function's arguments, in the
// user's order). Lives in tessera_core (it needs NDArray); runtime/npu stays compiler-free.
#pragma once

#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/npu/kernel.h"
#include "runtime/npu/roofline.h"
#include "runtime/npu/simulator.h"
#include "runtime/npu/target.h"

namespace tessera {

class NpuModule {
 public:
  // TargetError when the kernel was built for another target.
  NpuModule(npu::Kernel kernel, npu::Target target);
  // Loads a kernel file (KernelFileError naming the file) for `target`.
  static NpuModule load(const std::string& path, const npu::Target& target = npu::default_target());

  // Copies every argument into the kernel's DDR image, runs the functional simulator (with its
  // hazard check, unless `options` turns it off) and copies the output buffers back.
  // ArgumentError naming the argument for a wrong count, dtype or shape, or a read-only output;
  // SimulationError from the simulator (including its work limit and stop hook, `options`).
  // Returns the run's statistics.
  npu::SimStats run(const std::vector<NDArray>& args,
                    const npu::SimOptions& options = npu::SimOptions()) const;
  // Timing mode (no data): cycles and per-unit statistics. Deterministic.
  npu::SimStats timing(const npu::SimOptions& options = npu::SimOptions()) const;
  // The roofline bound of the operator's true work (unpadded MACs, minimum DDR bytes; the kernel
  // carries it from lowering) on the module's target: the figure to report.
  npu::RooflineBound roofline() const;
  // The bound of the kernel's own instructions and buffers (padded work counts as work).
  npu::RooflineBound kernel_roofline() const;
  // Writes the kernel file (docs/npu_isa.md section 7).
  void save(const std::string& path) const;

  const std::string& name() const { return kernel_.name; }
  const npu::Kernel& kernel() const { return kernel_; }
  const npu::Target& target() const { return target_; }

 private:
  npu::Kernel kernel_;
  npu::Target target_;
};

}  // namespace tessera
