// Measures the configs profile.py --dump wrote (one JSON line each: task key, target path, config
// index), once each, and prints instructions, cycles and the kernel fingerprint per measurement:
// the same work as profile.py without Python, so that callgrind names every function.
//
//   npu_measure_profile /tmp/set.jsonl
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "autotune/templates/measure_npu.h"
#include "autotune/templates/npu_task.h"
#include "runtime/npu/target.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: npu_measure_profile SET.jsonl (from profile.py --dump)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "npu_measure_profile: cannot read '" << argv[1] << "'\n";
    return 2;
  }
  std::map<std::string, tessera::npu::Target> targets;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    std::string path = j["target"].get<std::string>();
    auto it = targets.find(path);
    if (it == targets.end()) it = targets.emplace(path, tessera::npu::load_target(path)).first;
    tessera::NpuTask task = tessera::npu_task_from_key(j["key"], it->second);
    tessera::autotune::Config c = task.tuning.space.at(j["index"].get<uint64_t>());
    tessera::NpuMeasurement m = tessera::measure_npu_detailed(task.tuning, c, task.target);
    std::printf("%s %s: insns %lld cycles %lld fingerprint %s\n", it->second.name.c_str(),
                task.tuning.key_text().c_str(), static_cast<long long>(m.insns),
                static_cast<long long>(m.result.cycles), m.result.fingerprint.c_str());
  }
  return 0;
}
