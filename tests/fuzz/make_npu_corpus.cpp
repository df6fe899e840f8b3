// Writes the fuzzer's seed corpus: small valid kernel files that together use every opcode,
// vector op, memory and dependency flag, plus a few single instructions.
//   make_npu_corpus DIR
#include <fstream>
#include <iostream>
#include <string>

#include "runtime/npu/assembler.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/kernel_file.h"

using namespace tessera::npu;
using tessera::DType;
using tessera::Work;

namespace {

void write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_npu_corpus DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  Target t = default_target();

  Assembler a(t, "pipeline");
  uint32_t x = a.buffer("x", {4, 64}, DType::kInt8, BufferRole::kInput);
  uint32_t y = a.buffer("y", {4, 16}, DType::kInt32, BufferRole::kOutput);
  a.buffer("tmp", {64}, DType::kInt8, BufferRole::kScratch);
  a.load(Mem::kSram, 0, 6, x, 64, 4, 4, kPushNext, Pad{1, 1, 1, 1});
  a.load(Mem::kSram, 64, 1, x, 0, 1, 16, kPushNext);
  a.gemm(true, 4, 4, at(0, 4, 1), at(7, 6, 1), at(64), kPopPrev);
  a.gemm(false, 2, 3, at(0, 1), at(1, 1, 1), at(64, 0, 0), kPopPrev | kPushPrev);
  a.vector(VecOp::kAdd, 4, 1, acc(0, 1), acc(0, 1), sram(0, 1));
  a.vector_imm(VecOp::kShr, 4, 1, acc(0, 1), acc(0, 1), 3);
  a.vector(VecOp::kMin, 2, 2, acc(0, 2, 1), acc(0, 2, 1), acc(4, 2, 1));
  a.relu(4, 1, acc(0, 1), acc(0, 1));
  a.clip(4, 1, acc(0, 1), acc(0, 1), -1000, 1000);
  a.requantize(4, 1, sram(200, 1), acc(0, 1), 12345, 14, -2, kPushNext);
  a.store(Mem::kAcc, 0, 1, y, 64, 4, 1, kPopPrev | kPushPrev);
  a.sync(Queue::kLoad, kPopNext);
  a.declare_work(Work{4 * 4 * 256, 4 * 64 + 4 * 64, 4 * 16});
  write(dir + "/pipeline.tnpu", serialize_kernel(a.finish(kPopNext)));

  Assembler b(t, "tiny");
  b.buffer("a", {16}, DType::kInt8, BufferRole::kInput);
  b.load(Mem::kAcc, 0, 1, 0, 0, 1, 1);
  write(dir + "/tiny.tnpu", serialize_kernel(b.finish()));

  Assembler c(t, "empty");
  write(dir + "/empty.tnpu", serialize_kernel(c.kernel()));

  Kernel k = a.kernel();
  for (size_t i = 0; i < k.program.size(); ++i) {
    EncodedInsn e = encode(k.program[i]);
    write(dir + "/insn_" + std::to_string(i) + ".bin", std::vector<uint8_t>(e.begin(), e.end()));
  }
  return 0;
}
