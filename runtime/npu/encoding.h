// Fixed-width binary encoding of NPU instructions: 32 bytes, little-endian, byte-aligned fields.
// The layout of every opcode is tabled in docs/npu_isa.md. Bytes an opcode does not define must be
// zero, so that a corrupted instruction is caught by decode() rather than silently reinterpreted.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "runtime/npu/isa.h"

namespace tessera::npu {

constexpr size_t kInsnBytes = 32;
using EncodedInsn = std::array<uint8_t, kInsnBytes>;

// Writes the fields `insn.opcode` uses; others are ignored. An unknown opcode is written as is
// (so tests can build bad programs); decode() rejects it.
EncodedInsn encode(const Insn& insn);

// Decodes kInsnBytes bytes. A malformed instruction (unknown opcode, vector op or memory, nonzero
// reserved bits) is a KernelFileError naming `index` and showing the bytes.
Insn decode(const uint8_t* bytes, size_t index);

}  // namespace tessera::npu
