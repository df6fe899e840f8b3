// A config: one value (an index into the knob's domain) per knob of its ConfigSpace, in the
// space's knob order. A Config means nothing without its space; the space converts it to and
// from JSON and its index, and reads typed knob values from it.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::autotune {

struct Config {
  std::vector<uint32_t> values;

  bool operator==(const Config& o) const { return values == o.values; }
  bool operator!=(const Config& o) const { return values != o.values; }
  bool operator<(const Config& o) const { return values < o.values; }
};

}  // namespace tessera::autotune
