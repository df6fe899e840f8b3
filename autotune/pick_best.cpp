#include "autotune/pick_best.h"

namespace tessera::autotune {

std::map<std::string, LogRecord> pick_best(const std::vector<LogRecord>& records) {
  std::map<std::string, LogRecord> best;
  for (const LogRecord& r : records) {
    if (!r.result.ok()) continue;
    auto [it, fresh] = best.emplace(r.task.dump(), r);
    if (fresh) continue;
    const LogRecord& b = it->second;
    if (r.result.cycles < b.result.cycles ||
        (r.result.cycles == b.result.cycles && r.config.dump() < b.config.dump()))
      it->second = r;
  }
  return best;
}

}  // namespace tessera::autotune
