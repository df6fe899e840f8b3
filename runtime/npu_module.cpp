#include "runtime/npu_module.h"

#include <cstring>

#include "runtime/base/error.h"
#include "runtime/npu/kernel_file.h"

namespace tessera {

NpuModule::NpuModule(npu::Kernel kernel, npu::Target target)
    : kernel_(std::move(kernel)), target_(std::move(target)) {
  npu::check_kernel_target(kernel_, target_);
}

NpuModule NpuModule::load(const std::string& path, const npu::Target& target) {
  return NpuModule(npu::load_kernel(path), target);
}

npu::SimStats NpuModule::run(const std::vector<NDArray>& args,
                             const npu::SimOptions& options) const {
  std::vector<const npu::BufferDecl*> params;
  for (const npu::BufferDecl& b : kernel_.buffers)
    if (b.role != npu::BufferRole::kScratch) params.push_back(&b);
  if (args.size() != params.size()) {
    std::string names;
    for (const npu::BufferDecl* b : params) names += str(names.empty() ? "" : ", ", b->name);
    throw ArgumentError(str(kernel_.name, ": expected ", params.size(), " arguments (", names,
                            "), got ", args.size()));
  }
  std::vector<uint8_t> ddr(kernel_.ddr_bytes(), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const npu::BufferDecl& b = *params[i];
    DType want = b.dtype;
    std::string arg = str(kernel_.name, ": argument ", i, " '", b.name, "'");
    if (args[i].dtype() != want) {
      throw ArgumentError(
          str(arg, " must be ", dtype_name(want), ", got ", dtype_name(args[i].dtype())));
    }
    if (args[i].shape() != b.shape) {
      throw ArgumentError(str(arg, " must have shape ", shape_to_string(b.shape), ", got ",
                              shape_to_string(args[i].shape())));
    }
    if (b.role == npu::BufferRole::kOutput && !args[i].writeable()) {
      throw ArgumentError(str(arg, " is an output, which the kernel writes, but the array is ",
                              "read-only; pass a writeable array (np.array(x) makes a writeable ",
                              "copy)"));
    }
    if (b.bytes() > 0) std::memcpy(ddr.data() + b.ddr_offset, args[i].data(), b.bytes());
  }
  npu::SimStats stats = npu::simulate_functional(kernel_, target_, ddr, options);
  for (size_t i = 0; i < args.size(); ++i) {
    const npu::BufferDecl& b = *params[i];
    if (b.role == npu::BufferRole::kOutput)
      std::memcpy(args[i].data(), ddr.data() + b.ddr_offset, b.bytes());
  }
  return stats;
}

npu::SimStats NpuModule::timing(const npu::SimOptions& options) const {
  return npu::simulate_timing(kernel_, target_, options);
}

npu::RooflineBound NpuModule::roofline() const { return npu::roofline_bound(kernel_, target_); }

npu::RooflineBound NpuModule::kernel_roofline() const {
  return npu::kernel_roofline_bound(kernel_, target_);
}

void NpuModule::save(const std::string& path) const { npu::save_kernel(kernel_, path); }

}  // namespace tessera
