// libFuzzer harness: the NPU target-description parser (runtime/npu/target.h) on arbitrary text.
// Invariants checked (a violation traps, which libFuzzer reports as a finding):
//   - malformed input only ever raises TargetError (anything else escapes and aborts);
//   - a description that parses is valid, and its canonical JSON parses back to the same target
//     (same canonical text, so the same hash that kernels are stamped with).
#include <cstdint>
#include <string>

#include "runtime/base/error.h"
#include "runtime/npu/target.h"

using namespace tessera::npu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Target t;
  try {
    t = parse_target(text, "fuzz");
  } catch (const tessera::TargetError&) {
    return 0;
  }
  validate_target(t, "fuzz");  // a TargetError here escapes: parse accepted an invalid target
  std::string canonical = target_to_json(t);
  Target again = parse_target(canonical, "fuzz (canonical)");
  if (target_to_json(again) != canonical || target_hash(again) != target_hash(t)) __builtin_trap();
  return 0;
}
