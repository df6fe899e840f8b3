// The hazard check of functional mode (docs/npu_isa.md section 6, "Hazards").
//
// Two instructions of different queues race when one writes an on-chip (SRAM, accumulator) or DDR
// range the other reads or writes, and neither is ordered before the other by queue order or
// dependency tokens. Such a program's result depends on timing, so it is reported as a
// SimulationError naming both instructions (index and disassembly) and the overlapping range.
//
// Ordering is tracked with vector clocks: an instruction knows, per queue, how many of that queue's
// instructions are done before it starts, through its own queue's order and the instructions whose
// tokens it pops (transitively). The simulator calls on_start() for every instruction in the order
// it starts them, which respects both orders. Each instruction is compared only with instructions
// of the other queues that it does not know to be done; instructions every other queue knows are
// done are forgotten.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/npu/kernel.h"
#include "runtime/npu/prepare_program.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

class HazardChecker {
 public:
  HazardChecker(const Kernel& kernel, const Target& target, const PreparedProgram& prepared);

  // `pushers`: the instructions whose tokens `insn` pops (kNoPusher when a slot is unused).
  // Throws SimulationError when `insn` races with an instruction that started before it.
  void on_start(uint32_t insn, const uint32_t pushers[2]);

  static constexpr uint32_t kNoPusher = UINT32_MAX;

  // A run of consecutive rows (SRAM, accumulator) or bytes (DDR).
  struct Interval {
    uint8_t space = 0;  // 0 SRAM, 1 accumulator, 2 DDR
    uint64_t lo = 0, hi = 0;
  };

 private:
  using Clock = std::array<uint32_t, kNumQueues>;  // per queue: instructions known done
  struct Entry {
    uint32_t insn = 0;
    uint32_t pos = 0;                     // position in its queue, from 1
    std::vector<Interval> reads, writes;  // sorted by (space, lo), merged
  };

  void accesses(uint32_t insn, Entry& e);
  void check_against(const Entry& e, int queue, const Entry& other, int other_queue) const;
  void forget_known();

  const Kernel& k_;
  const Target& t_;
  const PreparedProgram& p_;
  std::vector<Clock> clock_;                           // per instruction, once started
  std::array<uint32_t, kNumQueues> started_{};         // instructions started per queue
  std::array<std::vector<Entry>, kNumQueues> window_;  // started, not known done everywhere
  std::array<size_t, kNumQueues> head_{};
  std::vector<Entry> spare_;  // forgotten entries, kept for their buffers
};

}  // namespace tessera::npu
