// FNV-1a 64: the one hash used for target descriptions, kernel-file checksums and the checksum
// trailer of exported CPU libraries. Chosen because it is tiny, has no dependency, and gives the
// same value on every machine.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera {

constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;

inline uint64_t fnv1a64(const uint8_t* data, size_t size, uint64_t hash = kFnv1aOffset) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace tessera
