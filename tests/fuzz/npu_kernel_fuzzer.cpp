// libFuzzer harness: kernel-file loader, instruction decoder, and the simulator behind them.
// Invariants checked (a violation traps, which libFuzzer reports as a finding):
//   - malformed input only ever raises KernelFileError (anything else escapes and aborts);
//   - every decodable instruction re-encodes to the same 32 bytes;
//   - every loadable file re-serializes to the same bytes;
//   - every loaded name is valid UTF-8 without NUL;
//   - a loaded kernel simulates (timing, and functional under a small work limit) or raises a
//     UserError, and both modes agree on the cycles.
// The input is also tried with its checksum recomputed, so mutations reach past the checksum.
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/base/utf8.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/simulator.h"

using namespace tessera::npu;

namespace {

void simulate_kernel(Kernel k) {
  static const Target target = default_target();
  k.target_name = target.name;  // reach the simulator whatever hash the input carries
  k.target_hash = target_hash(target);
  try {
    SimStats timing = simulate_timing(k, target);
    if (k.ddr_bytes() <= (1u << 20)) {
      // The simulator's own work bound keeps one input from stalling the fuzzer: a program over
      // it is a SimulationError before anything runs.
      SimOptions small;
      small.max_work = 4000000;
      std::vector<uint8_t> ddr(k.ddr_bytes(), 0x5a);
      SimStats functional = simulate_functional(k, target, ddr, small);
      if (functional.cycles != timing.cycles) __builtin_trap();
    }
  } catch (const tessera::UserError&) {
  }
}

// Names reach Python as str: a loaded kernel's names must be valid UTF-8 without NUL.
void check_names(const Kernel& k) {
  if (!tessera::text_name_problem(k.name).empty()) __builtin_trap();
  if (!tessera::text_name_problem(k.target_name).empty()) __builtin_trap();
  for (const BufferDecl& b : k.buffers)
    if (!tessera::text_name_problem(b.name).empty()) __builtin_trap();
}

void load(const uint8_t* data, size_t size) {
  Kernel k;
  try {
    k = parse_kernel(data, size, "fuzz");
  } catch (const tessera::KernelFileError&) {
    return;
  }
  check_names(k);
  std::vector<uint8_t> again = serialize_kernel(k);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
  for (const Insn& i : k.program) (void)disassemble(i);
  if (k.program.size() <= 4096) simulate_kernel(std::move(k));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (size_t off = 0; off + kInsnBytes <= size && off < 64 * kInsnBytes; off += kInsnBytes) {
    try {
      Insn insn = decode(data + off, off / kInsnBytes);
      EncodedInsn e = encode(insn);
      if (std::memcmp(e.data(), data + off, kInsnBytes) != 0) __builtin_trap();
      (void)disassemble(insn);
    } catch (const tessera::KernelFileError&) {
    }
  }
  load(data, size);
  if (size >= 8) {
    std::vector<uint8_t> fixed(data, data + size);
    uint64_t c = kernel_checksum(fixed.data(), size - 8);
    for (int i = 0; i < 8; ++i) fixed[size - 8 + i] = uint8_t(c >> (8 * i));
    load(fixed.data(), fixed.size());
  }
  return 0;
}
