#include "autotune/make_tuner.h"

#include "autotune/grid_tuner.h"
#include "autotune/random_tuner.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

constexpr TunerKind kAllKinds[] = {TunerKind::kXgb, TunerKind::kRandom, TunerKind::kGrid,
                                   TunerKind::kGenetic};

}  // namespace

const char* tuner_kind_name(TunerKind kind) {
  switch (kind) {
    case TunerKind::kXgb:
      return "xgb";
    case TunerKind::kRandom:
      return "random";
    case TunerKind::kGrid:
      return "grid";
    case TunerKind::kGenetic:
      return "ga";
  }
  throw InternalError("unknown TunerKind");
}

TunerKind parse_tuner_kind(const std::string& name) {
  for (TunerKind k : kAllKinds)
    if (name == tuner_kind_name(k)) return k;
  throw UserError(str("unknown tuner '", name, "'; tuners: xgb, random, grid, ga"));
}

std::unique_ptr<Tuner> make_tuner(TunerKind kind, const TuningTask& task, uint64_t seed,
                                  const TunerOptions& options) {
  switch (kind) {
    case TunerKind::kXgb:
      return std::make_unique<XgbTuner>(task, seed, options.xgb);
    case TunerKind::kRandom:
      return std::make_unique<RandomTuner>(task, seed);
    case TunerKind::kGrid:
      return std::make_unique<GridTuner>(task, seed);
    case TunerKind::kGenetic:
      return std::make_unique<GeneticTuner>(task, seed, options.genetic);
  }
  throw InternalError("unknown TunerKind");
}

}  // namespace tessera::autotune
