// The tuners' one interface: propose the next batch given what was observed, then observe its
// results. The driver alternates the two: propose(n), measure, observe(those trials), ...
//
// Every tuner is seeded and deterministic: the same seed and the same observed results give the
// same proposals (so a resumed search, fed its logged results, proposes exactly what the killed
// one did). A tuner never proposes a config twice, and never proposes one the space's validity
// check rejects: such configs are skipped, not measured, and use no trial (the check is the
// template's cheap on-chip footprint; a config it rejects would only fill the log with errors).
// A tuner keeps a reference to its task: the task must outlive it.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/trial.h"

namespace tessera::autotune {

class Tuner {
 public:
  virtual ~Tuner() = default;
  // "xgb", "random", "grid", "ga": what the log records.
  virtual const char* name() const = 0;
  virtual uint64_t seed() const = 0;
  // Up to n new valid configs; fewer, or none, when the space has no more.
  virtual std::vector<Config> propose(size_t n) = 0;
  // The results of the configs of the last propose(), in the same order.
  virtual void observe(const std::vector<Trial>& trials) = 0;
};

}  // namespace tessera::autotune
