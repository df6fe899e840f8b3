#include "autotune/templates/measure_npu.h"

#include <chrono>
#include <cstdio>

#include "autotune/errors.h"
#include "autotune/run_measurement.h"
#include "codegen/npu/codegen_npu.h"
#include "compiler/lower.h"
#include "runtime/base/fnv1a.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/roofline.h"

namespace tessera {

namespace {

double since_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// The fingerprint of a kernel whose name is already empty: FNV-1a 64 of the file's bytes. The
// file ends with its checksum, the FNV-1a 64 of every byte before it, which is the hash's state
// after those bytes; so the fingerprint continues from the checksum over its own 8 bytes, and the
// checksum is computed without building the file (kernel_file_checksum): the same value.
std::string unnamed_fingerprint(const npu::Kernel& k) {
  uint64_t checksum = npu::kernel_file_checksum(k);
  uint8_t trailer[8];
  for (int i = 0; i < 8; ++i) trailer[i] = static_cast<uint8_t>(checksum >> (8 * i));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a64(trailer, 8, checksum)));
  return hex;
}

const NpuTemplate& template_of(const autotune::TuningTask& task) {
  const nlohmann::json& key = task.key;
  if (!key.is_object() || !key.contains("template") || !key["template"].is_string() ||
      !key.contains("args")) {
    throw autotune::ConfigError(
        str("task key ", key.dump(), " is not an NPU template task {\"template\", \"args\"}"));
  }
  return npu_template(key["template"].get<std::string>());
}

autotune::MeasureResult run(const autotune::TuningTask& task, const autotune::Config& config,
                            const npu::Target& target, const autotune::MeasureContext& context,
                            NpuMeasurement* m) {
  const NpuTemplate& tmpl = template_of(task);
  const nlohmann::json& args = task.key["args"];
  task.space.index_of(config);  // ConfigError for a config outside the space
  auto t0 = std::chrono::steady_clock::now();
  NpuOp op = tmpl.build(args, task.space, config, target);
  m->construct_us = since_us(t0);
  context.throw_if_cancelled();
  t0 = std::chrono::steady_clock::now();
  LoweredFunc f = lower(*op.schedule, op.args, tmpl.name, target);
  m->lower_us = since_us(t0);
  context.throw_if_cancelled();
  t0 = std::chrono::steady_clock::now();
  npu::Kernel k = codegen_npu(f, target);
  m->codegen_us = since_us(t0);
  m->insns = static_cast<int64_t>(k.program.size());
  if (k.work) m->bound_cycles = npu::roofline_bound(target, *k.work).cycles;
  // The name set aside rather than the kernel copied (kernel_fingerprint's result).
  std::string name = std::move(k.name);
  k.name.clear();
  std::string fp = unnamed_fingerprint(k);
  k.name = std::move(name);
  if (std::optional<autotune::MeasureResult> known = context.known_result(fp)) {
    m->duplicate = true;
    known->fingerprint = fp;
    return *known;
  }
  context.throw_if_cancelled();
  t0 = std::chrono::steady_clock::now();
  m->stats = npu::simulate_timing(k, target);
  m->timing_us = since_us(t0);
  return autotune::MeasureResult::success(static_cast<int64_t>(m->stats.cycles), fp);
}

}  // namespace

std::string kernel_fingerprint(const npu::Kernel& kernel) {
  if (kernel.name.empty()) return unnamed_fingerprint(kernel);
  npu::Kernel k = kernel;
  k.name.clear();
  return unnamed_fingerprint(k);
}

autotune::MeasureResult measure_npu(const autotune::MeasureInput& input,
                                    const autotune::MeasureContext& context) {
  NpuMeasurement m;
  return run(input.task, input.config, input.target, context, &m);
}

NpuMeasurement measure_npu_detailed(const autotune::TuningTask& task,
                                    const autotune::Config& config, const npu::Target& target,
                                    const autotune::MeasureContext& context) {
  NpuMeasurement m;
  autotune::MeasureInput input{task, config, target};
  m.result = autotune::run_measurement(
      [&m](const autotune::MeasureInput& in, const autotune::MeasureContext& ctx) {
        return run(in.task, in.config, in.target, ctx, &m);
      },
      input, context);
  return m;
}

}  // namespace tessera
