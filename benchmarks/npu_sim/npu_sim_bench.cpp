// Simulator throughput, reported never asserted: instructions per second in timing mode and in
// functional mode with and without its hazard check, on one 100k-instruction kernel (a
// double-buffered GEMM pipeline), and simulated MACs per second in functional mode. Also reports
// the cycles of the 64x64x64 GEMM in both schedules against the roofline bound of its true work,
// on npu-v1 and on npu-v1 without its fidelity costs (fetch, accumulator latency, padding).
// Prints the report and writes it to benchmarks/npu_sim/REPORT.md.
//   npu_sim_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/npu/assembler.h"
#include "runtime/npu/roofline.h"
#include "runtime/npu/simulator.h"

using namespace tessera::npu;
using tessera::DType;

namespace {

// C[64x64] = requantize(A[64x64] . W[64x64]): its true work.
tessera::Work gemm64_work() { return tessera::Work{64 * 64 * 64, 3 * 64 * 64, 64 * 64}; }

Target without_fidelity_costs(Target t) {
  t.name = "npu-v1-no-fidelity-costs";
  t.fetch_burst_insns = 0;
  t.acc_raw_latency_cycles = 0;
  t.pad_unit_cycles = 0;
  return t;
}

// The pipeline of tests/cpp/npu/gemm_kernel.cpp, repeated: per iteration load an input tile and a
// weight block, two GEMMs (64 MAC-array steps), requantize, store; double buffered with tokens.
Kernel pipeline_kernel(const Target& t, int iterations, const char* name) {
  Assembler a(t, name);
  uint32_t A = a.buffer("A", {64, 64}, DType::kInt8, BufferRole::kInput);
  uint32_t W = a.buffer("W", {4, 4, 16, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t C = a.buffer("C", {64, 64}, DType::kInt8, BufferRole::kOutput);
  for (int it = 0; it < iterations; ++it) {
    int mb = (it / 4) % 4, nb = it % 4, b = it % 2;
    uint32_t inp = b * 64, wgt = 128 + b * 64, out = 256 + b * 16, accb = b * 16;
    bool first = it < 2, more = it + 2 < iterations;
    a.load(Mem::kSram, inp, 4, A + mb * 16 * 64, 64, 16, 4, first ? 0 : kPopNext);
    a.load(Mem::kSram, wgt, 64, W + nb * 1024, 1024, 1, 64, kPushNext);
    a.gemm(true, 16, 1, at(accb, 1), at(inp, 4), at(wgt), kPopPrev);
    a.gemm(false, 16, 3, at(accb, 1), at(inp + 1, 4, 1), at(wgt + 16, 0, 16));
    a.requantize(16, 1, sram(out, 1), acc(accb, 1), 1 << 20, 30, 0,
                 kPushNext | (first ? 0 : kPopNext) | (more ? kPushPrev : 0));
    a.store(Mem::kSram, out, 1, C + mb * 16 * 64 + nb * 16, 64, 16, 1,
            kPopPrev | (more ? kPushPrev : 0));
  }
  a.declare_work(gemm64_work());
  return a.finish();
}

// The same GEMM without the double buffering: every step waits for the previous one.
Kernel serial_gemm(const Target& t) {
  Assembler a(t, "gemm64_serial");
  uint32_t A = a.buffer("A", {64, 64}, DType::kInt8, BufferRole::kInput);
  uint32_t W = a.buffer("W", {4, 4, 16, 16}, DType::kInt8, BufferRole::kInput);
  uint32_t C = a.buffer("C", {64, 64}, DType::kInt8, BufferRole::kOutput);
  for (int it = 0; it < 16; ++it) {
    int mb = it / 4, nb = it % 4;
    a.load(Mem::kSram, 0, 4, A + mb * 16 * 64, 64, 16, 4, it ? kPopNext : 0);
    a.load(Mem::kSram, 128, 64, W + nb * 1024, 1024, 1, 64, kPushNext);
    a.gemm(true, 16, 1, at(0, 1), at(0, 4), at(128), kPopPrev);
    a.gemm(false, 16, 3, at(0, 1), at(1, 4, 1), at(144, 0, 16));
    a.requantize(16, 1, sram(256, 1), acc(0, 1), 1 << 20, 30, 0, kPushNext);
    a.store(Mem::kSram, 256, 1, C + mb * 16 * 64 + nb * 16, 64, 16, 1, kPopPrev | kPushPrev);
    if (it < 15) a.sync(Queue::kCompute, kPopNext | kPushPrev);
  }
  a.declare_work(gemm64_work());
  return a.finish(kPopNext);
}

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Fastest of repeated runs (at least 3, at least `min_seconds` in all), by CPU time of this
// thread (robust when other jobs share the machine) and by wall-clock time.
struct Timing {
  double cpu = 1e30, wall = 1e30;
};

template <typename F>
Timing best_of(F&& f, double min_seconds) {
  Timing best;
  double total = 0;
  for (int runs = 0; runs < 3 || total < min_seconds; ++runs) {
    auto wall0 = std::chrono::steady_clock::now();
    double cpu0 = thread_cpu_seconds();
    f();
    double cpu = thread_cpu_seconds() - cpu0;
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    best.cpu = std::min(best.cpu, cpu);
    best.wall = std::min(best.wall, wall);
    total += wall;
  }
  return best;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const double min_seconds = quick ? 0.2 : 2.0;
  Target t = default_target();
  Kernel k = pipeline_kernel(t, 16667, "pipeline_100k");
  const double n = double(k.program.size());

  SimStats timing;
  Timing t_timing = best_of([&] { timing = simulate_timing(k, t); }, min_seconds);
  std::vector<uint8_t> ddr(k.ddr_bytes());
  for (size_t i = 0; i < ddr.size(); ++i) ddr[i] = uint8_t(i * 2654435761u >> 13);
  SimStats functional;
  Timing t_func = best_of([&] { functional = simulate_functional(k, t, ddr); }, min_seconds);
  SimOptions unchecked;
  unchecked.check_hazards = false;
  SimStats unchecked_stats;
  Timing t_unchecked =
      best_of([&] { unchecked_stats = simulate_functional(k, t, ddr, unchecked); }, min_seconds);

  const Target bare = without_fidelity_costs(t);
  struct GemmRow {
    const char* name;
    uint64_t cycles, bare_cycles;
  };
  GemmRow rows[2] = {
      {"serial", simulate_timing(serial_gemm(t), t).cycles,
       simulate_timing(serial_gemm(bare), bare).cycles},
      {"double buffered",
       simulate_timing(pipeline_kernel(t, 16, "gemm64_double_buffered"), t).cycles,
       simulate_timing(pipeline_kernel(bare, 16, "gemm64_double_buffered"), bare).cycles}};
  RooflineBound bound = roofline_bound(pipeline_kernel(t, 16, "gemm64_double_buffered"), t);

  std::ostringstream r;
  char buf[512];
  r << "# NPU simulator benchmark\n\n"
    << "Written by `benchmarks/npu_sim/npu_sim_bench` (configure with "
       "`-DTESSERA_BUILD_BENCHMARKS=ON`). Each figure is the fastest of repeated runs on one "
       "thread, measured by the thread's CPU time (and, in brackets, wall-clock time, which "
       "includes time lost to other jobs on a shared machine). Each run includes the static "
       "checks (prepare_program).\n\n"
    << "- machine: " << cpu_model() << "\n- build: " << TESSERA_BUILD_FLAGS << "\n"
    << "- kernel: `pipeline_100k`, " << k.program.size()
    << " instructions (double-buffered GEMM tiles: 2 loads, 2 GEMMs, 1 requantize, 1 store per "
       "tile), "
    << timing.cycles << " simulated cycles\n\n"
    << "| mode | ms per run | instructions / s | simulated MACs / s | time / timing mode |\n"
    << "| --- | ---: | ---: | ---: | ---: |\n";
  auto functional_row = [&](const char* mode, const Timing& tm, const SimStats& st) {
    std::snprintf(
        buf, sizeof buf, "| %s | %.1f (%.1f) | %.2f M (%.2f M) | %.2f G (%.2f G) | %.2f |\n", mode,
        tm.cpu * 1e3, tm.wall * 1e3, n / tm.cpu / 1e6, n / tm.wall / 1e6,
        double(st.macs) / tm.cpu / 1e9, double(st.macs) / tm.wall / 1e9, tm.cpu / t_timing.cpu);
    r << buf;
  };
  std::snprintf(buf, sizeof buf, "| timing | %.2f (%.2f) | %.1f M (%.1f M) | - | 1 |\n",
                t_timing.cpu * 1e3, t_timing.wall * 1e3, n / t_timing.cpu / 1e6,
                n / t_timing.wall / 1e6);
  r << buf;
  functional_row("functional, hazard check on (the default)", t_func, functional);
  functional_row("functional, hazard check off", t_unchecked, unchecked_stats);
  std::snprintf(buf, sizeof buf,
                "\nTarget: timing mode >= 20 M instructions/s on one core. The hazard check costs "
                "%.0f %% of functional mode's time on this kernel.\n\n",
                100.0 * (t_func.cpu - t_unchecked.cpu) / t_unchecked.cpu);
  r << buf;
  r << "## GEMM 64x64x64 int8 with requantize (16 tiles of 16x16)\n\n"
    << "Against the roofline bound of the GEMM's true work (both kernels declare it). *Without "
       "fidelity costs*: the same kernel on npu-v1 with `fetch_burst_insns`, "
       "`acc_raw_latency_cycles` and `pad_unit_cycles` set to 0 (the model before they "
       "existed).\n\n"
    << "| schedule | cycles on npu-v1 | without fidelity costs | roofline bound | achieved / "
       "bound |\n| --- | ---: | ---: | ---: | ---: |\n";
  for (const GemmRow& g : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %llu | %llu | %.0f | %.2f |\n", g.name,
                  (unsigned long long)g.cycles, (unsigned long long)g.bare_cycles, bound.cycles,
                  achieved_over_bound(g.cycles, bound));
    r << buf;
  }
  r << "\nThe bound is MAC-limited (262144 MACs / 256 per cycle); the tiles reload weights per "
       "tile, so both schedules are DMA-bound (see tests/cpp/npu/timing_test.cpp). Each tile's "
       "second GEMM steps 3 times on each accumulator row, so it waits for the accumulator's "
       "read-after-write latency.\n";
  bool agree = functional.cycles == timing.cycles && unchecked_stats.cycles == timing.cycles;
  if (!agree) r << "\nERROR: the modes disagree on cycles.\n";

  std::cout << r.str();
  if (!quick) {
    std::ofstream out(TESSERA_REPORT_PATH);
    out << r.str();
    std::cout << "\nwritten to " << TESSERA_REPORT_PATH << "\n";
  }
  return agree ? 0 : 1;
}
