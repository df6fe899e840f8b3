#include "autotune/job/task_bound.h"

#include "compiler/te/true_work.h"
#include "runtime/npu/roofline.h"

namespace tessera::autotune {

double task_bound_cycles(const NpuTask& task) {
  NpuOp op = build_npu_op(task, default_config(task));
  return npu::roofline_bound(task.target, true_work(op.args)).cycles;
}

}  // namespace tessera::autotune
