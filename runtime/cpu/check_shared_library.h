// check_shared_library: structural validation of a shared library's bytes before dlopen, so that
// a truncated or corrupted file is a RuntimeError naming the file instead of a crash (dlopen maps
// the file and trusts its headers: a library cut short kills the process with SIGBUS when the
// loader touches a page past the end of the file).
//
// Checked: the ELF identification (64-bit, this machine's byte order and architecture, a shared
// object); the program and section header tables lie inside the file; every loadable segment's
// file bytes lie inside the file; the dynamic section is inside a loadable segment and ends with
// DT_NULL; the string table, symbol table, hash tables, relocation tables and init/fini arrays it
// points at lie inside loadable segments; every relocation targets a loadable segment and names
// an existing symbol; every name offset falls inside the string table.
//
// What it cannot check is the code itself: a library is native code, and loading one runs its
// constructors. It guards against damage, not against a library written to do harm.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tessera {

// What the check learned that a loader may use without trusting the library's memory image.
struct SharedLibraryInfo {
  // Defined data symbols whose bytes are in the file: name -> (file offset, size).
  std::map<std::string, std::pair<uint64_t, uint64_t>> objects;
  // The NUL-terminated string held by data symbol `name` (e.g. `const char x[] = "..."`), read
  // from the file's bytes; nullopt when there is no such symbol or it holds no terminated string.
  std::optional<std::string> string_object(const std::string& bytes, const std::string& name) const;
};

// RuntimeError "'<origin>' is not a loadable shared library: <what is wrong>".
SharedLibraryInfo check_shared_library(const std::string& bytes, const std::string& origin);

}  // namespace tessera
