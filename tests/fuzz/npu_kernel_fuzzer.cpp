// libFuzzer harness: kernel-file loader, instruction decoder, and the simulator behind them.
// Invariants checked (a violation traps, which libFuzzer reports as a finding):
//   - malformed input only ever raises KernelFileError (anything else escapes and aborts);
//   - every decodable instruction re-encodes to the same 32 bytes;
//   - every loadable file re-serializes to the same bytes;
//   - a loaded kernel simulates (timing, and functional when small) or raises a UserError.
// The input is also tried with its checksum recomputed, so mutations reach past the checksum.
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/simulator.h"

using namespace tessera::npu;

namespace {

// Bounded work, so that one input cannot stall the fuzzer: iterations of GEMM and vector loops
// and DMA units, summed over the program.
uint64_t functional_work(const Kernel& k) {
  uint64_t w = 0;
  for (const Insn& i : k.program) {
    if (i.opcode == Opcode::kGemm) w += uint64_t(i.gemm.ext0) * i.gemm.ext1;
    if (i.opcode == Opcode::kVector) w += uint64_t(i.vec.ext0) * i.vec.ext1;
    if (i.opcode == Opcode::kLoad || i.opcode == Opcode::kStore)
      w += uint64_t(i.dma.rows + i.dma.pad_top + i.dma.pad_bottom) *
           (i.dma.cols + i.dma.pad_left + i.dma.pad_right);
  }
  return w;
}

void simulate_kernel(Kernel k) {
  static const Target target = default_target();
  k.target_name = target.name;  // reach the simulator whatever hash the input carries
  k.target_hash = target_hash(target);
  try {
    SimStats timing = simulate_timing(k, target);
    if (k.ddr_bytes() <= (1u << 20) && functional_work(k) <= 200000) {
      std::vector<uint8_t> ddr(k.ddr_bytes(), 0x5a);
      SimStats functional = simulate_functional(k, target, ddr);
      if (functional.cycles != timing.cycles) __builtin_trap();
    }
  } catch (const tessera::UserError&) {
  }
}

void load(const uint8_t* data, size_t size) {
  Kernel k;
  try {
    k = parse_kernel(data, size, "fuzz");
  } catch (const tessera::KernelFileError&) {
    return;
  }
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
