#include "runtime/cpu/library_file.h"

#include <cstring>
#include <optional>

#include "runtime/base/error.h"
#include "runtime/base/fnv1a.h"
#include "runtime/cpu/check_shared_library.h"

namespace tessera {

namespace {

constexpr char kTrailerMagic[8] = {'T', 'S', 'R', 'C', 'P', 'U', 'L', '1'};
constexpr size_t kTrailerBytes = 24;

void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t get_u64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}
uint64_t checksum(const std::string& s, size_t n) {
  return fnv1a64(reinterpret_cast<const uint8_t*>(s.data()), n);
}

}  // namespace

std::string library_file_bytes(const std::string& library) {
  std::string file = library;
  file.append(kTrailerMagic, sizeof kTrailerMagic);
  put_u64(file, library.size());
  put_u64(file, checksum(library, library.size()));
  return file;
}

LibraryFile parse_library_file(const std::string& file, const std::string& origin) {
  const size_t n = file.size();
  if (n < kTrailerBytes || std::memcmp(file.data() + n - kTrailerBytes, kTrailerMagic, 8) != 0) {
    throw RuntimeError(str("could not load '", origin,
                           "': it does not end with the checksum trailer export_library writes, "
                           "so it is truncated, damaged, or not a library exported by tessera; "
                           "export it again"));
  }
  if (get_u64(file, n - 16) != n - kTrailerBytes ||
      get_u64(file, n - 8) != checksum(file, n - kTrailerBytes)) {
    throw RuntimeError(str("could not load '", origin,
                           "': the checksum does not match its contents (the file is damaged); "
                           "export it again"));
  }
  LibraryFile out;
  out.library = file.substr(0, n - kTrailerBytes);
  SharedLibraryInfo info = check_shared_library(out.library, origin);
  std::optional<std::string> entry = info.string_object(out.library, kModuleEntrySymbol);
  if (!entry) {
    throw RuntimeError(
        str("'", origin, "' is not a tessera CPU library: it has no symbol ", kModuleEntrySymbol));
  }
  std::string meta_symbol = "tessera_metadata_" + *entry;
  std::optional<std::string> json = info.string_object(out.library, meta_symbol);
  if (!json) {
    throw RuntimeError(
        str("'", origin, "' is not a tessera CPU library: it has no symbol ", meta_symbol));
  }
  out.meta = module_metadata_from_json(*json, origin);
  if (out.meta.name != *entry) {
    throw RuntimeError(str("'", origin, "': its metadata names function '", out.meta.name,
                           "' but the library's entry is '", *entry, "'"));
  }
  return out;
}

}  // namespace tessera
