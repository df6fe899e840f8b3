// The roofline bound of an NPU task's true work (DESIGN.md: unpadded MACs, minimum DDR traffic,
// vector ops, from the operator's tensor expression) on the task's target, in cycles: what the
// job's progress bar, log-summary and the benchmarks divide by the cycles to get the true-work
// fraction. The same for every config of the task (the work does not depend on the schedule).
#pragma once

#include "autotune/templates/npu_task.h"

namespace tessera::autotune {

double task_bound_cycles(const NpuTask& task);

}  // namespace tessera::autotune
