// The tuners by kind: one explicit table (no string registry). Names are what the CLI takes and
// the log records: "xgb", "random", "grid", "ga".
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "autotune/genetic_tuner.h"
#include "autotune/tuner.h"
#include "autotune/xgb_tuner.h"

namespace tessera::autotune {

enum class TunerKind { kXgb, kRandom, kGrid, kGenetic };

const char* tuner_kind_name(TunerKind kind);
// UserError listing the names for any other text.
TunerKind parse_tuner_kind(const std::string& name);

struct TunerOptions {
  XgbTunerOptions xgb;
  GeneticOptions genetic;
};

std::unique_ptr<Tuner> make_tuner(TunerKind kind, const TuningTask& task, uint64_t seed,
                                  const TunerOptions& options = {});

}  // namespace tessera::autotune
