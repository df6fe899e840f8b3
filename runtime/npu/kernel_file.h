// The kernel file: how a Kernel is saved, shipped and loaded. Layout (little-endian):
//
//   magic "TSRNPUKF" | u32 format version | u32 flags (0) | u64 target hash
//   | u16 length + kernel name | u16 length + target name
//   | u32 buffer count | per buffer: u16 length + name, u8 dtype, u8 role, u8 rank, u8 0,
//                                   rank x i64 extents, u64 DDR offset
//   | u32 work flag (0 none, 1 declared) | u64 MACs, u64 minimum DDR bytes, u64 vector ops
//     (the kernel's true work, Kernel::work; all 0 when none is declared)
//   | u32 instruction count | instructions, 32 bytes each (encoding.h)
//   | u64 FNV-1a 64 checksum of every preceding byte
//
// Loading checks magic, then version, then checksum, then every field with bounds; a truncated,
// corrupted or wrong-version file is a KernelFileError that names the file, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/npu/kernel.h"

namespace tessera::npu {

// Version 2 added the true work after the buffer table; version 1 files are refused by name.
constexpr uint32_t kKernelFormatVersion = 2;
constexpr char kKernelMagic[8] = {'T', 'S', 'R', 'N', 'P', 'U', 'K', 'F'};

std::vector<uint8_t> serialize_kernel(const Kernel& kernel);

// `source` names the bytes in error messages (a path, or "<memory>").
Kernel parse_kernel(const uint8_t* data, size_t size, const std::string& source);

void save_kernel(const Kernel& kernel, const std::string& path);
Kernel load_kernel(const std::string& path);

// The checksum stored in the last 8 bytes, computed over `size` bytes.
uint64_t kernel_checksum(const uint8_t* data, size_t size);

// The checksum serialize_kernel(kernel) ends with, without building the file: the header, then
// each instruction encoded and hashed in turn (the tuner fingerprints every kernel it measures).
uint64_t kernel_file_checksum(const Kernel& kernel);

}  // namespace tessera::npu
