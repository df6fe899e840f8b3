// The file an exported CPU module lives in, and everything CpuModule::load learns from its bytes
// before dlopen sees them (so that the loader is fuzzable without loading anything):
//
//   <the shared library> | magic "TSRCPUL1" | u64 size of the library | u64 FNV-1a 64 of it
//
// (little-endian). ELF ignores bytes after its contents, so the file stays a valid shared library
// for any other loader. The library defines `tessera_module_entry` and
// `tessera_metadata_<entry>` (codegen/c/codegen_c.h), read here from the file, not from memory.
#pragma once

#include <string>

#include "runtime/cpu/module_metadata.h"

namespace tessera {

constexpr const char* kModuleEntrySymbol = "tessera_module_entry";

// The file bytes for a compiled shared library: the library with its checksum trailer.
std::string library_file_bytes(const std::string& library);

struct LibraryFile {
  std::string library;  // the shared library, without the trailer
  ModuleMetadata meta;  // its entry function and arguments
};

// Checks, in order: the trailer and checksum (a truncated or damaged file), the ELF structure
// (check_shared_library.h), the entry and metadata symbols, the metadata. RuntimeError naming
// `origin` for the first that fails.
LibraryFile parse_library_file(const std::string& file, const std::string& origin);

}  // namespace tessera
