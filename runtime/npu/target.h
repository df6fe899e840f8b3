// The NPU target description: every number the simulator and the compiler use about the machine.
//
// A target is loaded from JSON (runtime/npu/targets/npu-v1.json holds the defaults, which are also
// built in so a fresh clone needs no file path). Every field is required, unknown fields are
// rejected, and each value is range-checked; every error is a TargetError naming the field.
// A stable 64-bit hash of the description is stamped into every kernel, so a kernel built for one
// target is refused by a simulator configured for another.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::npu {

struct Target {
  std::string name = "npu-v1";
  int64_t clock_hz = 1000000000;  // only converts cycles to seconds
  // MAC array: one GEMM step per cycle computes acc[mac_out] += inp[mac_in] . wgt[mac_out x
  // mac_in]. mac_in is also the width in bytes of one SRAM row; mac_out the width (int32) of one
  // accumulator row. The vector unit moves whole rows between them, so the two must be equal.
  int64_t mac_in = 16;
  int64_t mac_out = 16;
  int64_t sram_bytes = 256 * 1024;  // int8 scratchpad: inputs, weights, int8 outputs
  int64_t acc_bytes = 64 * 1024;    // int32 accumulator
  int64_t vector_lanes = 16;        // int32 lanes of the vector unit
  int64_t ddr_bytes_per_cycle = 16;
  int64_t dma_fixed_cycles = 100;  // request latency; does not hold the DDR port
  int64_t dma_row_cycles = 1;      // per DDR row moved, while holding the port
  int64_t gemm_fixed_cycles = 20;
  int64_t vector_fixed_cycles = 10;
  int64_t load_queue_depth = 64;  // instruction queues: the fetcher stalls when one is full
  int64_t compute_queue_depth = 64;
  int64_t store_queue_depth = 64;
  int64_t token_queue_depth = 32;  // dependency-token queues: pushing onto a full one is an error
  // Fidelity costs (docs/npu_isa.md section 6, each with the public design its default is from).
  // 0 turns a cost off.
  int64_t fetch_burst_insns = 64;      // instructions fetched per DDR burst (shared port); 0: free
  int64_t acc_raw_latency_cycles = 3;  // a GEMM step's accumulator row is readable this much later
  int64_t pad_unit_cycles = 1;         // load-unit cycles per zero unit written for padding

  int64_t sram_rows() const { return sram_bytes / mac_in; }
  int64_t acc_rows() const { return acc_bytes / (4 * mac_out); }
  int64_t macs_per_cycle() const { return mac_in * mac_out; }
};

// The built-in npu-v1 description (identical to runtime/npu/targets/npu-v1.json).
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
