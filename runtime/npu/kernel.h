// An NPU kernel: the buffer table that lays the kernel's tensors out in DDR, and the program.
// A kernel is stamped with the name and hash of the target it was built for; the simulator refuses
// it on any other target (check_kernel_target).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"
#include "runtime/base/work.h"
#include "runtime/npu/isa.h"
#include "runtime/npu/target.h"

namespace tessera::npu {

// Inputs are read, outputs written by the caller's data; scratch is DDR the kernel uses for itself.
// The roofline's minimum DDR traffic counts inputs and outputs once each.
enum class BufferRole : uint8_t { kInput = 0, kOutput = 1, kScratch = 2 };

const char* role_name(BufferRole r);

struct BufferDecl {
  std::string name;
  std::vector<int64_t> shape;  // row-major; every extent >= 1
  DType dtype = DType::kInt8;  // int8 or int32 (the kernel file encodes no other)
  BufferRole role = BufferRole::kInput;
  uint64_t ddr_offset = 0;  // bytes from the start of the kernel's DDR space

  uint64_t elements() const;
  uint64_t bytes() const { return elements() * uint64_t(bytes_of(dtype)); }
};

struct Kernel {
  std::string name;
  std::string target_name;
  uint64_t target_hash = 0;
  std::vector<BufferDecl> buffers;
  std::vector<Insn> program;
  // The true work of the operator the kernel computes (runtime/base/work.h), when its builder
  // declared it: the compiler always does, the assembler on request (Assembler::declare_work).
  // The roofline bound is measured against it (roofline.h).
  std::optional<Work> work;

  // Size of the kernel's DDR space: the end of the last buffer.
  uint64_t ddr_bytes() const;
  const BufferDecl& buffer(const std::string& name) const;  // ArgumentError if absent
};

// Throws TargetError naming both targets when the kernel was built for another one.
void check_kernel_target(const Kernel& kernel, const Target& target);

// Checks the buffer table: non-empty unique names, positive extents, no overlap, every byte
// addressable by a DMA (below 4 GiB). Throws KernelFileError prefixed with `source`.
void check_buffers(const Kernel& kernel, const std::string& source);

}  // namespace tessera::npu
