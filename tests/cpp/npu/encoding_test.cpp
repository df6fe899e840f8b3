#include "runtime/npu/encoding.h"

#include <gtest/gtest.h>

#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/kernel_file.h"

namespace tessera::npu {
namespace {

// One instruction of every kind and operand form, with nonzero values in every field.
std::vector<Insn> every_kind() {
  Assembler a(default_target(), "every_kind");
  a.load(Mem::kSram, 70000, 12, 0x12345678, 0x9abc, 65535, 300, kPopNext | kPushNext,
         Pad{1, 2, 3, 4});
  a.load(Mem::kAcc, 5, 6, 7, 8, 9, 10);
  a.store(Mem::kAcc, 1, 2, 3, 4, 5, 6, kPopPrev | kPushPrev);
  a.gemm(true, 64, 4, at(1, 2, 3), at(4, 5, 6), at(7, 8, 65535), kPopPrev | kPopNext);
  a.gemm(false, 1, 2, at(0xffffffff), at(0), at(0), kPushPrev | kPushNext);
  a.vector(VecOp::kSub, 3, 4, sram(1, 2, 3), acc(4, 5, 6), sram(7, 8, 9));
  a.vector_imm(VecOp::kMul, 3, 4, acc(1), sram(2), -123456);
  a.vector_imm(VecOp::kShr, 1, 1, acc(1), acc(2), 31);
  a.relu(2, 2, sram(0, 1), acc(0, 1));
  a.clip(2, 2, acc(0), acc(0), -5, 5);
  a.requantize(2, 2, sram(0), acc(0), -7, 62, -128);
  a.sync(Queue::kStore, kPopPrev);
  return a.finish(kPopNext).program;
}

TEST(Encoding, every_instruction_kind_round_trips) {
  std::vector<Insn> all = every_kind();
  for (size_t i = 0; i < all.size(); ++i) {
    EncodedInsn e = encode(all[i]);
    Insn back = decode(e.data(), i);
    EXPECT_EQ(encode(back), e) << disassemble(all[i]);
    EXPECT_EQ(disassemble(back), disassemble(all[i]));
  }
}

TEST(Encoding, disassembly_is_stable_text) {
  std::vector<Insn> all = every_kind();
  EXPECT_EQ(disassemble(all[0]),
            "load sram[70000] stride=12 <- ddr[305419896] ddr_stride=39612 size=65535x300 "
            "pad=1,2,3,4 deps=pop_next,push_next");
  EXPECT_EQ(
      disassemble(all[3]),
      "gemm reset ext=64x4 acc[1+2i+3j] inp[4+5i+6j] wgt[7+8i+65535j] deps=pop_prev,pop_next");
  EXPECT_EQ(disassemble(all[5]), "vector.sub ext=3x4 sram[1+2i+3j] <- acc[4+5i+6j] sram[7+8i+9j]");
  EXPECT_EQ(disassemble(all[6]), "vector.mul ext=3x4 acc[1+0i+0j] <- sram[2+0i+0j] imm=-123456");
  EXPECT_EQ(disassemble(all[10]),
            "vector.requantize ext=2x2 sram[0+0i+0j] <- acc[0+0i+0j] mult=-7 shift=62 zp=-128");
  EXPECT_EQ(disassemble(all[11]), "sync store deps=pop_prev");
  EXPECT_EQ(disassemble(all[12]), "finish deps=pop_next");
}

TEST(Encoding, fields_are_little_endian_at_documented_offsets) {
  EncodedInsn e = encode(every_kind()[0]);
  EXPECT_EQ(e[0], 1);     // opcode load
  EXPECT_EQ(e[1], 0xa);   // pop_next | push_next
  EXPECT_EQ(e[4], 0x78);  // ddr_addr 0x12345678, low byte first
  EXPECT_EQ(e[7], 0x12);
  EXPECT_EQ(e[20], 0xff);  // rows 65535
  EXPECT_EQ(e[24], 1);     // pad_top
}

TEST(Encoding, nonzero_reserved_bytes_are_rejected) {
  EncodedInsn e = encode(every_kind()[12]);  // finish
  e[31] = 1;
  EXPECT_THROW(decode(e.data(), 3), KernelFileError);
  EncodedInsn v = encode(every_kind()[6]);  // vector with immediate
  v[3] |= 4;                                // tensor memory bit alongside the immediate
  EXPECT_THROW(decode(v.data(), 0), KernelFileError);
}

TEST(KernelFile, kernel_round_trips_through_a_file) {
  Assembler a(default_target(), "round_trip");
  a.buffer("in", {2, 3, 16}, DType::kInt8, BufferRole::kInput);
  a.buffer("out", {5}, DType::kInt32, BufferRole::kOutput);
  for (const Insn& i : every_kind()) a.emit(i);
  Kernel k = a.kernel();
  std::string path = ::testing::TempDir() + "/round_trip.tnpu";
  save_kernel(k, path);
  Kernel back = load_kernel(path);
  EXPECT_EQ(back.name, "round_trip");
  EXPECT_EQ(back.target_name, "npu-v1");
  EXPECT_EQ(back.target_hash, target_hash(default_target()));
  ASSERT_EQ(back.buffers.size(), 2u);
  EXPECT_EQ(back.buffers[1].name, "out");
  EXPECT_EQ(back.buffers[1].shape, std::vector<int64_t>{5});
  EXPECT_EQ(back.buffers[1].dtype, DType::kInt32);
  EXPECT_EQ(back.buffers[1].role, BufferRole::kOutput);
  EXPECT_EQ(back.buffers[1].ddr_offset, 128u);  // 96 bytes of "in", 64-byte aligned
  EXPECT_FALSE(back.work.has_value()) << "no work declared";
  EXPECT_EQ(serialize_kernel(back), serialize_kernel(k));
}

TEST(KernelFile, declared_true_work_survives_save_and_load) {
  Assembler a(default_target(), "with_work");
  a.buffer("in", {16}, DType::kInt8, BufferRole::kInput);
  a.declare_work(Work{123456789012ull, 4096, 77});
  Kernel k = a.finish();
  std::vector<uint8_t> bytes = serialize_kernel(k);
  Kernel back = parse_kernel(bytes.data(), bytes.size(), "<memory>");
  ASSERT_TRUE(back.work.has_value());
  EXPECT_EQ(back.work->macs, 123456789012ull);
  EXPECT_EQ(back.work->min_ddr_bytes, 4096u);
  EXPECT_EQ(back.work->vector_ops, 77u);
  EXPECT_EQ(serialize_kernel(back), bytes);
}

TEST(KernelFile, overlapping_buffers_are_rejected) {
  Kernel k;
  k.name = "overlap";
  k.buffers = {BufferDecl{"a", {64}, DType::kInt8, BufferRole::kInput, 0},
               BufferDecl{"b", {16}, DType::kInt32, BufferRole::kOutput, 32}};
  EXPECT_THROW(serialize_kernel(k), KernelFileError);
}

}  // namespace
}  // namespace tessera::npu
