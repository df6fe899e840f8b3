#include "runtime/npu/kernel.h"

#include <algorithm>

#include "runtime/base/error.h"

namespace tessera::npu {

const char* role_name(BufferRole r) {
  switch (r) {
    case BufferRole::kInput:
      return "input";
    case BufferRole::kOutput:
      return "output";
    case BufferRole::kScratch:
      return "scratch";
  }
  return "unknown";
}

uint64_t BufferDecl::elements() const {
  uint64_t n = 1;
  for (int64_t e : shape) n *= static_cast<uint64_t>(e);
  return n;
}

uint64_t Kernel::ddr_bytes() const {
  uint64_t end = 0;
  for (const BufferDecl& b : buffers) end = std::max(end, b.ddr_offset + b.bytes());
  return end;
}

const BufferDecl& Kernel::buffer(const std::string& name) const {
  for (const BufferDecl& b : buffers)
    if (b.name == name) return b;
  std::string names;
  for (const BufferDecl& b : buffers) names += (names.empty() ? "'" : ", '") + b.name + "'";
  throw ArgumentError(str("kernel '", this->name, "' has no buffer '", name, "' (it has ",
                          names.empty() ? "none" : names, ")"));
}

void check_kernel_target(const Kernel& kernel, const Target& target) {
  uint64_t hash = target_hash(target);
  if (kernel.target_hash == hash && kernel.target_name == target.name) return;
  throw TargetError(str("kernel '", kernel.name, "' was built for target '", kernel.target_name,
                        "' (hash ", std::hex, kernel.target_hash,
                        ") but the simulator runs target '", target.name, "' (hash ", hash,
                        std::dec, "); rebuild the kernel for this target"));
}

void check_buffers(const Kernel& kernel, const std::string& source) {
  constexpr uint64_t kMaxDdr = uint64_t(1) << 32;
  std::vector<const BufferDecl*> order;
  for (const BufferDecl& b : kernel.buffers) {
    if (b.name.empty()) throw KernelFileError(str(source, ": a buffer has an empty name"));
    if (b.dtype != DType::kInt8 && b.dtype != DType::kInt32)
      throw KernelFileError(str(source, ": buffer '", b.name, "' has dtype ", dtype_name(b.dtype),
                                "; NPU buffers are int8 or int32"));
    if (b.shape.empty() || b.shape.size() > 8)
      throw KernelFileError(str(source, ": buffer '", b.name, "' has rank ", b.shape.size(),
                                "; ranks 1 to 8 are supported"));
    uint64_t elements = 1;
    for (int64_t e : b.shape) {
      if (e < 1 || static_cast<uint64_t>(e) > kMaxDdr)
        throw KernelFileError(str(source, ": buffer '", b.name, "' has extent ", e,
                                  "; extents must be in [1, 2^32]"));
      elements *= static_cast<uint64_t>(e);
      if (elements > kMaxDdr)
        throw KernelFileError(str(source, ": buffer '", b.name, "' is larger than 4 GiB"));
    }
    if (b.ddr_offset > kMaxDdr || b.ddr_offset + b.bytes() > kMaxDdr)
      throw KernelFileError(str(source, ": buffer '", b.name, "' at DDR offset ", b.ddr_offset,
                                " ends beyond the 4 GiB DMA address space"));
    for (const BufferDecl* o : order)
      if (o->name == b.name)
        throw KernelFileError(str(source, ": buffer name '", b.name, "' is used twice"));
    order.push_back(&b);
  }
  std::stable_sort(order.begin(), order.end(), [](const BufferDecl* a, const BufferDecl* b) {
    return a->ddr_offset < b->ddr_offset;
  });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i - 1]->ddr_offset + order[i - 1]->bytes() > order[i]->ddr_offset)
      throw KernelFileError(str(source, ": buffers '", order[i - 1]->name, "' and '",
                                order[i]->name, "' overlap in DDR"));
}

}  // namespace tessera::npu
