// tessera-npu-dis: prints a kernel file as text: header, buffer table, one line per instruction.
//   tessera-npu-dis kernel.tnpu [--target target.json]
// With --target, also checks that the kernel was built for that target. Exit code 1 on any error,
// with the error's message on stderr.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "runtime/base/error.h"
#include "runtime/npu/kernel_file.h"

using namespace tessera::npu;

namespace {

int usage() {
  std::cerr << "usage: tessera-npu-dis KERNEL_FILE [--target TARGET_JSON]\n";
  return 2;
}

std::string shape_text(const BufferDecl& b) {
  std::string s;
  for (int64_t e : b.shape) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, target_path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--target") == 0 && i + 1 < argc)
      target_path = argv[++i];
    else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0)
      return usage();
    else if (path.empty())
      path = argv[i];
    else
      return usage();
  }
  if (path.empty()) return usage();
  try {
    Kernel k = load_kernel(path);
    if (!target_path.empty()) check_kernel_target(k, load_target(target_path));
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(k.target_hash));
    std::cout << "kernel " << k.name << "\ntarget " << k.target_name << " hash " << hash
              << "\nddr_bytes " << k.ddr_bytes() << "\n";
    for (const BufferDecl& b : k.buffers)
      std::cout << "buffer " << b.name << " " << role_name(b.role) << " " << dtype_name(b.dtype)
                << "[" << shape_text(b) << "] ddr=" << b.ddr_offset << " bytes=" << b.bytes()
                << "\n";
    if (k.work)
      std::cout << "work macs=" << k.work->macs << " min_ddr_bytes=" << k.work->min_ddr_bytes
                << " vector_ops=" << k.work->vector_ops << "\n";
    for (size_t i = 0; i < k.program.size(); ++i)
      std::cout << "#" << i << ": " << disassemble(k.program[i]) << "\n";
  } catch (const tessera::Error& e) {
    std::cerr << "tessera-npu-dis: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    // Nothing may abort the tool: out of memory on a huge buffer table, a failing stream, ...
    std::cerr << "tessera-npu-dis: " << path << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
