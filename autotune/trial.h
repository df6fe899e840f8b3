// One trial of a search: its index in the search (0, 1, ... in proposal order), the config and
// its measured result.
#pragma once

#include <cstdint>

#include "autotune/config.h"
#include "autotune/measure_result.h"

namespace tessera::autotune {

struct Trial {
  int64_t index = 0;
  Config config;
  MeasureResult result;
};

}  // namespace tessera::autotune
