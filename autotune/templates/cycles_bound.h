// A sound lower bound on the timing simulator's cycles for a config, computed from the task and the
// config alone (no lowering, no code generation): what an exact search (branch and bound over a
// config space) needs to prove that a config it never measures is slower than one it did.
//
// A template counts, from its schedule's structure, lower bounds on what the kernel must contain
// (KernelWork: per unit, the instructions and their variable costs), and cycles_lower_bound turns
// them into cycles with the timing model's rules (docs/npu_isa.md sections 5 and 6), every cost
// read from the target:
//   * fetch: instructions arrive in bursts of fetch_burst_insns, each requested only once the
//     previous one's instructions are dispatched, so the bursts form a chain: each costs
//     dma_fixed_cycles of latency plus its transfer on the DDR port, and the last instruction
//     starts after the last burst arrives;
//   * nothing starts before the first burst has arrived;
//   * each unit runs its instructions one at a time: the load and store queues (every DMA's
//     latency, transfer and padding writes), the MAC array (fixed cost plus one cycle per step at
//     least), the vector unit; with one compute unit, GEMMs and vector instructions share it;
//   * the DDR port moves every DMA's and fetch burst's bytes and rows one at a time, from the
//     first request's latency on.
// The bound is the largest of these. Every count is a lower bound (a test checks bound <= the
// simulator's cycles on seeded samples of several shapes, and benchmarks/tuner checks it on
// every config it measures).
#pragma once

#include <cstdint>
#include <functional>

#include "autotune/config_space.h"
#include "runtime/npu/target.h"

namespace tessera {

// Lower bounds on a kernel's work, per unit.
struct KernelWork {
  uint64_t gemms = 0, gemm_steps = 0;      // GEMM instructions; MAC-array steps
  uint64_t vectors = 0, vector_rows = 0;   // vector instructions; rows they process
  uint64_t loads = 0, stores = 0;          // DMA instructions
  uint64_t load_bytes = 0, store_bytes = 0;  // DDR bytes moved
  // Per DMA transfer, ceil(bytes / ddr_bytes_per_cycle) summed (callers add per DMA group: the
  // sum of ceilings is at least the ceiling of the sum).
  uint64_t load_xfer = 0, store_xfer = 0;
  uint64_t load_ddr_rows = 0, store_ddr_rows = 0;  // DDR rows (contiguous runs) moved
  uint64_t pad_units = 0;                           // zero units written by loads
  uint64_t other_insns = 0;                         // sync, finish, ...: fetched, 1 cycle each

  uint64_t insns() const { return gemms + vectors + loads + stores + other_insns; }
  // Adds `times` identical groups of `dmas` DMAs, each group moving `bytes` in `ddr_rows` runs
  // (a group's transfers take at least ceil(bytes / bytes_per_cycle) port cycles in all).
  void add_loads(uint64_t times, uint64_t dmas, uint64_t bytes, uint64_t ddr_rows,
                 uint64_t bytes_per_cycle);
  void add_stores(uint64_t times, uint64_t dmas, uint64_t bytes, uint64_t ddr_rows,
                  uint64_t bytes_per_cycle);
};

// The bound's parts (cycles), for tests and reports.
struct CyclesBound {
  uint64_t fetch_chain = 0, port = 0, load = 0, store = 0, mac = 0, vector = 0, compute = 0;
  uint64_t cycles = 0;  // the largest
};

CyclesBound cycles_lower_bound(const npu::Target& target, const KernelWork& work);

// A template's lower bounds on the work of a config's kernel, made once per task
// (NpuTemplate::work_bound).
using WorkBounder = std::function<KernelWork(const autotune::ConfigSpace&, const autotune::Config&)>;

}  // namespace tessera
