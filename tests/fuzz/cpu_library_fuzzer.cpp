// libFuzzer harness: the CPU module loader's reading of a library file (runtime/cpu/library_file.h:
// checksum trailer, ELF structure, entry and metadata symbols, metadata JSON) — everything
// CpuModule::load does before dlopen, which cannot itself run on fuzzed bytes in-process (loading
// a library runs its code).
// Invariants checked (a violation traps, which libFuzzer reports as a finding):
//   - malformed input only ever raises tessera::RuntimeError (anything else escapes and aborts);
//   - metadata that parses re-serialises to JSON that parses to the same metadata.
// The input is tried as it is, with its trailer recomputed (so mutations reach the ELF checks),
// and as metadata JSON text.
#include <cstdint>
#include <string>

#include "runtime/base/error.h"
#include "runtime/cpu/library_file.h"

using namespace tessera;

namespace {

void check_roundtrip(const ModuleMetadata& m) {
  ModuleMetadata again = module_metadata_from_json(module_metadata_to_json(m), "fuzz");
  if (again.name != m.name || again.args != m.args) __builtin_trap();
}

void parse(const std::string& file) {
  try {
    check_roundtrip(parse_library_file(file, "fuzz").meta);
  } catch (const tessera::RuntimeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  parse(bytes);
  // The same bytes as a library with a valid trailer: strip one if present, then append it.
  std::string library = bytes;
  if (library.size() >= 24 && library.compare(library.size() - 24, 8, "TSRCPUL1") == 0)
    library.resize(library.size() - 24);
  parse(library_file_bytes(library));
  try {
    check_roundtrip(module_metadata_from_json(bytes, "fuzz"));
  } catch (const tessera::RuntimeError&) {
  }
  return 0;
}
