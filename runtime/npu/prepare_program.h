// The simulator's first step, shared by both modes: check every instruction against the target
// and the kernel's DDR space, and precompute what the timing model needs per instruction.
// Static errors (unknown opcode, illegal dependency flag, out-of-range SRAM/accumulator/DDR
// access, bad operand, token underflow, missing finish) are SimulationErrors that name the
// instruction's index and disassembly, raised before anything runs: timing mode catches exactly
// the errors functional mode does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

constexpr uint8_t kNoTokenQueue = 0xff;
// Token queues, named by direction: load->compute, compute->load, compute->store, store->compute.
constexpr int kNumTokenQueues = 4;
const char* token_queue_name(int tq);

// What the scheduler needs about one instruction, packed for the hot loop.
struct PreparedOp {
  uint64_t cycles = 0;      // compute: whole duration; DMA: cycles holding the DDR port
  uint64_t pad_cycles = 0;  // load: writing its zero padding after the transfer (not the port)
  uint32_t ddr_units = 0;   // DMA: rows x cols units moved over the DDR port
  uint8_t queue = 0;
  bool is_dma = false;
  bool is_store = false;
  bool acc_units = false;  // DMA: a unit is an accumulator row (else an SRAM row)
  Opcode opcode = Opcode::kFinish;
  uint8_t pops[2] = {kNoTokenQueue, kNoTokenQueue};    // token queues popped before starting
  uint8_t pushes[2] = {kNoTokenQueue, kNoTokenQueue};  // token queues pushed on completion
};

static_assert(sizeof(PreparedOp) <= 32, "the scheduler's hot loop reads one PreparedOp per step");

// Which execution unit behind the compute queue runs an instruction (Target::compute_units = 2):
// GEMMs the MAC array, vector instructions the vector unit; sync and finish wait for both.
enum class ComputeUnit : uint8_t { kMac = 0, kVector = 1, kBoth = 2 };

// The on-chip rows a GEMM or vector instruction reads and writes, each operand as the bounding
// range [lo, hi) of its affine loop: what the compute queue's scoreboard compares (two-unit
// targets only). An instruction conflicts with another when one writes a range the other reads
// or writes.
struct ComputeAccess {
  struct Range {
    Mem mem = Mem::kSram;
    uint64_t lo = 0, hi = 0;  // hi == lo: unused
  };
  ComputeUnit unit = ComputeUnit::kBoth;
  Range writes;
  Range reads[3];
  bool conflicts_with(const ComputeAccess& other) const;
};

struct PreparedProgram {
  std::vector<PreparedOp> ops;
  // What functional mode will do, in element operations: MACs, vector lane operations, bytes
  // written on chip by DMA, plus one per instruction. Saturates at UINT64_MAX.
  uint64_t work = 0;
  std::array<std::vector<uint32_t>, 3> queue_insns;  // program indices per queue, in order
  // Per compute-queue position (queue_insns[kCompute] order), for two-unit targets only (empty
  // otherwise): which unit runs it and what it touches.
  std::vector<ComputeAccess> compute_access;
  std::array<uint64_t, kNumTokenQueues> pushes_total{};
  std::array<uint64_t, kNumOpcodes> insn_count{};
  uint64_t macs = 0;
  uint64_t vector_ops = 0;      // element operations
  uint64_t sram_rows_used = 0;  // highest SRAM row touched + 1
  uint64_t acc_rows_used = 0;
};

// `max_work` bounds PreparedProgram::work: a program over it is a SimulationError naming the
// instruction at which the total first passes the limit (the simulator passes SimOptions::max_work;
// the roofline, which runs nothing, passes no limit).
PreparedProgram prepare_program(const Kernel& kernel, const Target& target,
                                uint64_t max_work = UINT64_MAX);

// "instruction #12 (gemm ...)": how every simulation error names an instruction.
std::string describe_insn(const Kernel& kernel, size_t index);

}  // namespace tessera::npu
