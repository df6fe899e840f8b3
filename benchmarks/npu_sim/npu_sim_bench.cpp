// Simulator throughput, reported never asserted: instructions per second in timing and functional
// mode on one 100k-instruction kernel (a double-buffered GEMM pipeline), and simulated MACs per
// second in functional mode. Also reports the cycles of the 64x64x64 GEMM in both schedules
// against its roofline bound. Prints the report and writes it to benchmarks/npu_sim/REPORT.md.
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

namespace {

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

  Kernel db = pipeline_kernel(t, 16, "gemm64_double_buffered");
  Kernel serial = serial_gemm(t);
  SimStats s_db = simulate_timing(db, t), s_serial = simulate_timing(serial, t);
  RooflineBound bound = roofline_bound(db, t);

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
    << "| mode | ms per run | instructions / s | simulated MACs / s |\n"
    << "| --- | ---: | ---: | ---: |\n";
  std::snprintf(buf, sizeof buf, "| timing | %.2f (%.2f) | %.1f M (%.1f M) | - |\n",
                t_timing.cpu * 1e3, t_timing.wall * 1e3, n / t_timing.cpu / 1e6,
                n / t_timing.wall / 1e6);
  r << buf;
  std::snprintf(
      buf, sizeof buf, "| functional | %.1f (%.1f) | %.2f M (%.2f M) | %.2f G (%.2f G) |\n",
      t_func.cpu * 1e3, t_func.wall * 1e3, n / t_func.cpu / 1e6, n / t_func.wall / 1e6,
      double(functional.macs) / t_func.cpu / 1e9, double(functional.macs) / t_func.wall / 1e9);
  r << buf;
  r << "\nTarget: timing mode >= 20 M instructions/s on one core.\n\n"
    << "## GEMM 64x64x64 int8 with requantize (16 tiles of 16x16)\n\n"
    << "| schedule | cycles | roofline bound | achieved / bound |\n| --- | ---: | ---: | ---: |\n";
  std::snprintf(buf, sizeof buf, "| serial | %llu | %.0f | %.2f |\n",
                (unsigned long long)s_serial.cycles, bound.cycles,
                achieved_over_bound(s_serial.cycles, bound));
  r << buf;
  std::snprintf(buf, sizeof buf, "| double buffered | %llu | %.0f | %.2f |\n",
                (unsigned long long)s_db.cycles, bound.cycles,
                achieved_over_bound(s_db.cycles, bound));
  r << buf;
  r << "\nThe bound is MAC-limited (262144 MACs / 256 per cycle); the tiles reload weights per "
       "tile, so both schedules are DMA-bound (see tests/cpp/npu/timing_test.cpp).\n";
  if (functional.cycles != timing.cycles) r << "\nERROR: the two modes disagree on cycles.\n";

  std::cout << r.str();
  if (!quick) {
    std::ofstream out(TESSERA_REPORT_PATH);
    out << r.str();
    std::cout << "\nwritten to " << TESSERA_REPORT_PATH << "\n";
  }
  return functional.cycles == timing.cycles ? 0 : 1;
}
