// Functional semantics of one instruction: moves and computes real data, bit-exact.
// Called by the simulator in functional mode after prepare_program() has checked every address,
// so nothing here range-checks. Saturation rules are documented in docs/npu_isa.md:
// GEMM accumulation wraps modulo 2^32 (like the hardware adder tree); every vector op computes in
// 64 bits and saturates to the destination type (int32 in the accumulator, int8 in SRAM).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/npu/isa.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

struct Memories {
  std::vector<int8_t> sram;  // sram_rows x mac_in
  std::vector<int32_t> acc;  // acc_rows x mac_out
  uint8_t* ddr = nullptr;    // the kernel's DDR space, little-endian
  size_t ddr_size = 0;
};

void execute_insn(const Insn& insn, const Target& target, Memories& mem);

}  // namespace tessera::npu
