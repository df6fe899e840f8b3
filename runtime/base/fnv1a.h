// FNV-1a 64: the one hash used for target descriptions, kernel-file checksums and the checksum
// trailer of exported CPU libraries. Chosen because it is tiny, has no dependency, and gives the
// same value on every machine.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera {

constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;

inline uint64_t fnv1a64(const uint8_t* data, size_t size, uint64_t hash = kFnv1aOffset) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  size_t i = 0;
  // Byte by byte as always, eight to an iteration (kernel files hash 32 bytes per instruction).
  for (; i + 8 <= size; i += 8) {
    hash = (hash ^ data[i]) * kPrime;
    hash = (hash ^ data[i + 1]) * kPrime;
    hash = (hash ^ data[i + 2]) * kPrime;
    hash = (hash ^ data[i + 3]) * kPrime;
    hash = (hash ^ data[i + 4]) * kPrime;
    hash = (hash ^ data[i + 5]) * kPrime;
    hash = (hash ^ data[i + 6]) * kPrime;
    hash = (hash ^ data[i + 7]) * kPrime;
  }
  for (; i < size; ++i) hash = (hash ^ data[i]) * kPrime;
  return hash;
}

}  // namespace tessera
