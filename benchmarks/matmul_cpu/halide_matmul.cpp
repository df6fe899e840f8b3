// The Halide side of the fp32 matmul benchmark: C = A * B for square n x n matrices, scheduled
// by one of Halide 14's autoscheduler plugins (Adams2019 by default), JIT-compiled for the host,
// timed, and checked against a double-precision reference on sampled elements so that a wrong
// kernel cannot report a speed. Prints one JSON object on stdout; run.py reads it.
//
//   halide_matmul <n> <threads> <autoscheduler> <warmup> <reps> [schedule_out.h]
//
// The thread count of the Halide runtime comes from HL_NUM_THREADS, which this program sets from
// <threads> before the first realize; <threads> is also the MachineParams parallelism the
// autoscheduler plans for.
#include <Halide.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

std::string plugin_path(const std::string& scheduler) {
  std::string lower = scheduler;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  return std::string(TESSERA_HALIDE_PLUGIN_DIR) + "/libautoschedule_" + lower + ".so";
}

// JSON string escaping for the few strings we print (target, machine params, file names).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

int os_threads() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++count;
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: %s <n> <threads> <autoscheduler> <warmup> <reps> [schedule_out.h]\n",
                 argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int threads = std::atoi(argv[2]);
  const std::string scheduler = argv[3];
  const int warmup = std::atoi(argv[4]);
  const int reps = std::atoi(argv[5]);
  const std::string schedule_out = argc > 6 ? argv[6] : "";
  // The JIT runtime's thread pool reads this when it starts (at the first parallel realize).
  setenv("HL_NUM_THREADS", std::to_string(threads).c_str(), 1);

  // Row-major matrices as Halide sees them: the first dimension is the contiguous one, so
  // A(k, i) is A[i][k], B(j, k) is B[k][j] and C(j, i) is C[i][j].
  Halide::ImageParam a(Halide::Float(32), 2, "A"), b(Halide::Float(32), 2, "B");
  Halide::Var j("j"), i("i");
  Halide::RDom k(0, n, "k");
  Halide::Func prod("prod"), c("C");
  prod(j, i) = 0.0f;
  prod(j, i) += a(k, i) * b(j, k);
  c(j, i) = prod(j, i);

  a.set_estimates({{0, n}, {0, n}});
  b.set_estimates({{0, n}, {0, n}});
  c.set_estimates({{0, n}, {0, n}});

  Halide::Target target = Halide::get_jit_target_from_environment();
  Halide::load_plugin(plugin_path(scheduler));
  Halide::Pipeline pipeline(c);
  // Parallelism is the thread count we run with; cache size and balance are Halide's generic
  // defaults (Adams2019 uses only the parallelism; Mullapudi2016 uses all three).
  Halide::MachineParams generic = Halide::MachineParams::generic();
  Halide::MachineParams params(threads, generic.last_level_cache_size, generic.balance);
  auto t_sched = std::chrono::steady_clock::now();
  Halide::AutoSchedulerResults results = pipeline.auto_schedule(scheduler, target, params);
  const double schedule_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_sched).count();
  if (!schedule_out.empty()) std::ofstream(schedule_out) << results.schedule_source;
  pipeline.compile_jit(target);

  Halide::Buffer<float> abuf(n, n), bbuf(n, n), cbuf(n, n);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  abuf.for_each_value([&](float& v) { v = dist(rng); });
  bbuf.for_each_value([&](float& v) { v = dist(rng); });
  a.set(abuf);
  b.set(bbuf);

  std::vector<double> times;
  for (int r = 0; r < warmup + reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    pipeline.realize(cbuf);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r >= warmup) times.push_back(dt);
  }
  const int threads_seen = os_threads();

  // Check 64 sampled elements (and the four corners) against a double-precision dot product.
  double max_rel_err = 0.0;
  std::mt19937 pick(1);
  std::uniform_int_distribution<int> idx(0, n - 1);
  std::vector<std::pair<int, int>> samples = {{0, 0}, {0, n - 1}, {n - 1, 0}, {n - 1, n - 1}};
  for (int s = 0; s < 64; ++s) samples.emplace_back(idx(pick), idx(pick));
  for (auto [ii, jj] : samples) {
    double ref = 0.0, mag = 0.0;
    for (int kk = 0; kk < n; ++kk) {
      ref += double(abuf(kk, ii)) * double(bbuf(jj, kk));
      mag += std::abs(double(abuf(kk, ii)) * double(bbuf(jj, kk)));
    }
    max_rel_err = std::max(max_rel_err, std::abs(double(cbuf(jj, ii)) - ref) / (mag + 1e-30));
  }
  const bool ok = max_rel_err < 1e-5;

  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double flops = 2.0 * n * double(n) * n;
  std::printf("{\"side\": \"halide\", \"scheduler\": %s, \"n\": %d, \"threads\": %d, ",
              json_string(results.scheduler_name).c_str(), n, threads);
  std::printf("\"target\": %s, \"machine_params\": %s, \"schedule_seconds\": %.3f, ",
              json_string(target.to_string()).c_str(),
              json_string(results.machine_params_string).c_str(), schedule_s);
  std::printf("\"os_threads\": %d, \"times_s\": [", threads_seen);
  for (size_t t = 0; t < times.size(); ++t) std::printf("%s%.6f", t ? ", " : "", times[t]);
  std::printf("], \"median_s\": %.6f, \"gflops\": %.3f, \"max_rel_err\": %.3e, \"ok\": %s}\n",
              median, flops / median / 1e9, max_rel_err, ok ? "true" : "false");
  return ok ? 0 : 1;
}
