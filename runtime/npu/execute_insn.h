// Functional semantics of one instruction: moves and computes real data, bit-exact.
//
// The data effect is split at the two moments the timing model gives an instruction: begin_insn()
// runs at its start and reads every source (computing the results into a staging buffer), and
// commit_insn() runs at its end and writes the results. The simulator calls begin at each start
// and commits every pending result whose end has come before the next start, so data moves in the
// order the timing model runs instructions (docs/npu_isa.md section 6).
//
// Called after prepare_program() has checked every address, so nothing here range-checks.
// Saturation rules are documented in docs/npu_isa.md: GEMM accumulation wraps modulo 2^32 (like
// the hardware adder tree); every vector op computes in 64 bits and saturates to the destination
// type (int32 in the accumulator, int8 in SRAM).
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

// What an instruction will write at its end: byte segments of one memory, copied from staging.
// Buffers are reused between instructions (one PendingWrites per queue), so they stay allocated.
struct PendingWrites {
  enum class Dest : uint8_t { kNone, kSram, kAcc, kDdr };
  enum class Staging : uint8_t { kBytes, kAccRows, kSramRows };
  struct Segment {
    uint64_t dst = 0;  // byte offset in the destination memory
    uint64_t src = 0;  // byte offset in the staging buffer
    uint64_t bytes = 0;
  };
  Dest dest = Dest::kNone;
  Staging staging = Staging::kBytes;
  std::vector<uint8_t> bytes;     // DMA payload (staging for loads and stores)
  std::vector<int32_t> acc_rows;  // GEMM / vector into the accumulator: the rows it may touch
  std::vector<int8_t> sram_rows;  // vector into SRAM: the rows it may touch
  std::vector<uint8_t> written;   // per staged row: written by this instruction
  uint64_t first_row = 0;         // the first staged row
  std::vector<Segment> segments;
};

// Reads the sources of `insn` from `mem` (as they are at its start) and computes its results.
void begin_insn(const Insn& insn, const Target& target, const Memories& mem, PendingWrites& out);

// Writes the results begin_insn() computed (the instruction's end).
void commit_insn(PendingWrites& pending, Memories& mem);

}  // namespace tessera::npu
