// The NPU target description: every number the simulator and the compiler use about the machine.
//
// A target is loaded from JSON (runtime/npu/targets/ holds npu-v1, the default, whose file is also
// compiled in, and other array shapes). Every field is required, unknown fields are
// rejected, and each value is range-checked; every error is a TargetError naming the field.
// A stable 64-bit hash of the description is stamped into every kernel, so a kernel built for one
// target is refused by a simulator configured for another.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::npu {

struct Target {
  // Every field is a fact of one machine, so none has a default here: a Target comes from
  // default_target() (npu-v1), load_target() or parse_target(). The values below are "unset".
  std::string name;
  int64_t clock_hz = 0;  // only converts cycles to seconds
  // MAC array: one GEMM step per cycle computes acc[mac_out] += inp[mac_in] . wgt[mac_out x
  // mac_in] (VTA's BLOCK_IN and BLOCK_OUT). mac_in is also the width in bytes of one SRAM row;
  // mac_out the width (int32) of one accumulator row. The vector unit moves whole rows between
  // them, so the two must be equal (validate_target rejects other shapes): block() is both.
  int64_t mac_in = 0;
  int64_t mac_out = 0;
  int64_t sram_bytes = 0;    // int8 scratchpad: inputs, weights, int8 outputs
  int64_t acc_bytes = 0;     // int32 accumulator
  int64_t vector_lanes = 0;  // int32 lanes of the vector unit
  int64_t ddr_bytes_per_cycle = 0;
  int64_t dma_fixed_cycles = 0;  // request latency; does not hold the DDR port
  int64_t dma_row_cycles = 0;    // per DDR row moved, while holding the port
  int64_t gemm_fixed_cycles = 0;
  int64_t vector_fixed_cycles = 0;
  int64_t load_queue_depth = 0;  // instruction queues: the fetcher stalls when one is full
  int64_t compute_queue_depth = 0;
  int64_t store_queue_depth = 0;
  int64_t token_queue_depth = 0;  // dependency-token queues: pushing onto a full one is an error
  // Fidelity costs (docs/npu_isa.md section 6, each with the public design its default is from).
  // 0 turns a cost off.
  int64_t fetch_burst_insns = 0;       // instructions fetched per DDR burst (shared port); 0: free
  int64_t acc_raw_latency_cycles = 0;  // a GEMM step's accumulator row is readable this much later
  int64_t pad_unit_cycles = 0;         // load-unit cycles per zero unit written for padding
  // Execution units behind the compute queue (docs/npu_isa.md section 6, rule 6). 1: one unit runs
  // GEMM and vector instructions one at a time (VTA's compute module). 2: the MAC array and the
  // vector unit are separate units; the queue still issues in order, and a scoreboard holds an
  // instruction whose on-chip ranges conflict with the other unit's running one (Gemmini-like).
  int64_t compute_units = 0;

  // The channel block of the packed layouts (NCHWc{block}) and the elements of one on-chip row:
  // mac_in (= mac_out).
  int64_t block() const { return mac_in; }
  int64_t sram_rows() const { return sram_bytes / mac_in; }
  int64_t acc_rows() const { return acc_bytes / (4 * mac_out); }
  int64_t macs_per_cycle() const { return mac_in * mac_out; }
  // Cycles the vector unit takes for one on-chip row (mac_out int32 over vector_lanes lanes).
  int64_t vector_cycles_per_row() const { return (mac_out + vector_lanes - 1) / vector_lanes; }
};

// The built-in npu-v1 description: runtime/npu/targets/npu-v1.json, compiled in (the build
// embeds the file), so a fresh clone needs no file path.
Target default_target();

// Parses and validates a JSON description. `source` names the text in error messages (a path).
Target parse_target(const std::string& json_text, const std::string& source);

// Reads and parses a JSON file; a missing file is a TargetError naming the path.
Target load_target(const std::string& path);

// Canonical JSON (sorted keys, fixed formatting): parse_target(target_to_json(t)) == t.
std::string target_to_json(const Target& target);

// FNV-1a 64 of target_to_json(): stable across machines, builds and runs.
uint64_t target_hash(const Target& target);

// Checks the value invariants (ranges, divisibility) of an already-built Target.
void validate_target(const Target& target, const std::string& source);

}  // namespace tessera::npu
