// The measurement function of the NPU templates: (task, config, target) -> result, as the
// auto-tuner's executors run it (autotune/executor.h: MeasureFn).
//
// Phases, with the cancellation flag polled between them: construct (the template builds the
// operator and its schedule from the config), lower, codegen (the NPU kernel), then the kernel's
// fingerprint — FNV-1a 64 of the kernel file's bytes with the kernel name emptied, so two configs
// that generate the same instructions have the same fingerprint — and, unless the context knows
// that fingerprint's result already (a duplicate: returned without simulating), the timing
// simulation. Errors are thrown as the typed tessera errors and classified by run_measurement:
// a config the schedule rejects is invalid_config (ScheduleError), one that does not fit or
// cannot be lowered compile_error (LowerError), a kernel the simulator refuses simulation_error.
//
// The task is read from its key (the template and its canonical arguments) and its space, so a
// farm worker that rebuilt the task from the key measures the same thing.
#pragma once

#include <cstdint>

#include "autotune/executor.h"
#include "autotune/templates/npu_task.h"
#include "runtime/npu/simulator.h"

namespace tessera {

struct NpuMeasurement {
  autotune::MeasureResult result;
  // Wall time of each phase, microseconds (0 for a phase that did not run).
  double construct_us = 0, lower_us = 0, codegen_us = 0, timing_us = 0;
  int64_t insns = 0;       // instructions of the kernel, when one was built
  // The roofline bound of the operator's true work (the kernel's Work), when one was built.
  double bound_cycles = 0;
  npu::SimStats stats;     // of the timing run, when it ran
  bool duplicate = false;  // the context knew the kernel: not simulated
};

// The MeasureFn.
autotune::MeasureResult measure_npu(const autotune::MeasureInput& input,
                                    const autotune::MeasureContext& context);

// The same measurement with its phases' times and the kernel's statistics; errors are classified
// into result (run_measurement), never thrown.
NpuMeasurement measure_npu_detailed(const autotune::TuningTask& task,
                                    const autotune::Config& config, const npu::Target& target,
                                    const autotune::MeasureContext& context = {});

// The fingerprint of a kernel: FNV-1a 64 (in hex) over its file bytes, the name emptied.
std::string kernel_fingerprint(const npu::Kernel& kernel);

}  // namespace tessera
