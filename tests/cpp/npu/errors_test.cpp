// Acceptance 4: the error catalogue. Each malformed description, file or program gives a typed
// error whose message names the field, file or instruction (with its disassembly).
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

// The message contains `part` (shown in full when it does not).
#define EXPECT_CONTAINS(message, part) \
  EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message)

const Target t = default_target();

template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

std::string target_json_with(const char* field, nlohmann::json value) {
  nlohmann::json j = nlohmann::json::parse(target_to_json(t));
  if (value.is_null())
    j.erase(field);
  else
    j[field] = value;
  return j.dump();
}

// ---- target descriptions ----

TEST(Errors, zero_sized_mac_array_names_the_field) {
  std::string m =
      message_of<TargetError>([] { parse_target(target_json_with("mac_in", 0), "t.json"); });
  EXPECT_CONTAINS(m, "'mac_in' is 0");
  EXPECT_CONTAINS(m, "t.json");
}

TEST(Errors, missing_target_field_names_the_field) {
  std::string m = message_of<TargetError>(
      [] { parse_target(target_json_with("sram_bytes", nullptr), "t.json"); });
  EXPECT_CONTAINS(m, "missing field 'sram_bytes'");
}

TEST(Errors, unknown_target_field_names_the_field) {
  std::string m =
      message_of<TargetError>([] { parse_target(target_json_with("sram_kib", 256), "t.json"); });
  EXPECT_CONTAINS(m, "unknown field 'sram_kib'");
}

TEST(Errors, out_of_range_target_value_names_the_field_and_the_range) {
  std::string m = message_of<TargetError>(
      [] { parse_target(target_json_with("ddr_bytes_per_cycle", -16), "t.json"); });
  EXPECT_CONTAINS(m, "'ddr_bytes_per_cycle'");
  EXPECT_CONTAINS(m, "out of range [1, 4096]");
  m = message_of<TargetError>([] { parse_target(target_json_with("clock_hz", "1GHz"), "t.json"); });
  EXPECT_CONTAINS(m, "'clock_hz' must be an integer");
}

TEST(Errors, kernel_built_for_another_target_is_refused_with_both_names) {
  Target other = t;
  other.name = "npu-v2";
  other.sram_bytes = 512 * 1024;
  Assembler a(other, "k");
  Kernel k = a.finish();
  std::string m = message_of<TargetError>([&] { simulate_timing(k, t); });
  EXPECT_CONTAINS(m, "built for target 'npu-v2'");
  EXPECT_CONTAINS(m, "runs target 'npu-v1'");
}

// ---- kernel files ----

std::vector<uint8_t> small_file() {
  Assembler a(t, "small");
  a.buffer("x", {64}, DType::kInt8, BufferRole::kInput);
  a.load(Mem::kSram, 0, 1, 0, 16, 4, 1);
  return serialize_kernel(a.finish());
}

void fix_checksum(std::vector<uint8_t>& f) {
  uint64_t c = kernel_checksum(f.data(), f.size() - 8);
  for (int i = 0; i < 8; ++i) f[f.size() - 8 + i] = uint8_t(c >> (8 * i));
}

TEST(Errors, truncated_kernel_file_is_reported_not_crashed) {
  std::vector<uint8_t> f = small_file();
  for (size_t n : {size_t(0), size_t(5), size_t(20), f.size() - 1}) {
    std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), n, "k.tnpu"); });
    EXPECT_CONTAINS(m, "kernel file 'k.tnpu'");
    EXPECT_TRUE(m.find("truncated") != std::string::npos || m.find("checksum") != std::string::npos)
        << m;
  }
}

TEST(Errors, corrupted_kernel_file_fails_the_checksum) {
  std::vector<uint8_t> f = small_file();
  f[f.size() / 2] ^= 0x40;
  std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "checksum does not match");
}

TEST(Errors, wrong_version_kernel_file_names_both_versions) {
  std::vector<uint8_t> f = small_file();
  f[8] = 7;
  std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "format version 7 is not supported (this build reads version 2)");
  f[8] = 1;  // the format before kernels carried their true work
  m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "format version 1 is not supported (this build reads version 2)");
}

TEST(Errors, work_figures_without_the_work_flag_are_refused) {
  std::vector<uint8_t> f = small_file();
  // The work block follows the buffer table: flag (u32) then three u64; set the MACs alone.
  size_t flag = f.size() - 8 - 2 * 32 - 4 - 3 * 8 - 4;  // 2 instructions, count, work, flag
  ASSERT_EQ(f[flag], 0);
  f[flag + 4] = 5;
  fix_checksum(f);
  std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "work figures are nonzero but the work flag says none is declared");
  f[flag] = 2;
  fix_checksum(f);
  m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "work flag 2 is not 0 (none) or 1 (declared)");
}

TEST(Errors, file_without_the_magic_is_not_a_kernel) {
  std::vector<uint8_t> f = small_file();
  f[0] = 'X';
  std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "bad magic");
}

TEST(Errors, unknown_opcode_in_a_file_names_the_instruction_and_its_bytes) {
  std::vector<uint8_t> f = small_file();
  size_t first_insn = f.size() - 8 - 2 * kInsnBytes;
  f[first_insn] = 0x9c;
  fix_checksum(f);
  std::string m = message_of<KernelFileError>([&] { parse_kernel(f.data(), f.size(), "k.tnpu"); });
  EXPECT_CONTAINS(m, "instruction #0: unknown opcode 156 (bytes: 9c 00");
}

TEST(Errors, missing_kernel_file_names_the_path) {
  std::string m = message_of<KernelFileError>([] { load_kernel("/nonexistent/k.tnpu"); });
  EXPECT_CONTAINS(m, "'/nonexistent/k.tnpu': cannot open");
}

// ---- programs ----

Assembler program(const char* name) {
  Assembler a(t, name);
  a.buffer("x", {4096}, DType::kInt8, BufferRole::kInput);
  return a;
}

TEST(Errors, sram_access_out_of_range_names_the_instruction) {
  Assembler a = program("sram_oob");
  a.load(Mem::kSram, 16380, 1, 0, 16, 8, 1);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "instruction #0 (load sram[16380] stride=1 <- ddr[0] ddr_stride=16 size=8x1)");
  EXPECT_CONTAINS(m, "SRAM rows [16380, 16388) but the SRAM has 16384 rows");
}

TEST(Errors, accumulator_access_out_of_range_names_the_instruction) {
  Assembler a = program("acc_oob");
  a.gemm(true, 4, 300, at(0, 300, 1), at(0), at(16));
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "instruction #0 (gemm reset ext=4x300");
  EXPECT_CONTAINS(m, "accumulator rows [0, 1200) but the accumulator has 1024 rows");
}

TEST(Errors, ddr_access_out_of_range_names_the_instruction) {
  Assembler a = program("ddr_oob");
  a.gemm(true, 1, 1, at(0), at(0), at(16));
  a.store(Mem::kAcc, 0, 1, 4000, 0, 1, 2, kPopPrev);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "instruction #1 (store acc[0]");
  EXPECT_CONTAINS(m, "DDR bytes [4000, 4128) are outside the kernel's DDR space of 4096 bytes");
}

TEST(Errors, token_underflow_names_the_popping_instruction) {
  Assembler a = program("underflow");
  a.load(Mem::kSram, 0, 1, 0, 16, 1, 1, kPushNext);
  a.gemm(true, 1, 1, at(0), at(0), at(16), kPopPrev);
  a.gemm(true, 1, 1, at(0), at(0), at(16), kPopPrev);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "instruction #2 (gemm reset");
  EXPECT_CONTAINS(m, "token underflow: pop #2 from the load->compute token queue");
}

TEST(Errors, token_deadlock_is_detected_within_a_second) {
  // Load waits for compute, compute waits for load: both tokens exist, later in each queue.
  Assembler a = program("deadlock");
  a.load(Mem::kSram, 0, 1, 0, 16, 1, 1, kPopNext);
  a.load(Mem::kSram, 1, 1, 0, 16, 1, 1, kPushNext);
  a.gemm(true, 1, 1, at(0), at(0), at(16), kPopPrev);
  a.gemm(true, 1, 1, at(0), at(0), at(16), kPushPrev);
  Kernel k = a.finish();
  auto start = std::chrono::steady_clock::now();
  std::string m = message_of<SimulationError>([&] { simulate_timing(k, t); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // Nothing can start once the 5 instructions have arrived in one fetch burst.
  EXPECT_CONTAINS(m, str("deadlock at cycle ",
                         t.dma_fixed_cycles + 5 * 32 / t.ddr_bytes_per_cycle + t.dma_row_cycles));
  EXPECT_CONTAINS(m, "load queue waits at instruction #0 (load sram[0]");
  EXPECT_CONTAINS(m, "for a token on the compute->load queue");
  EXPECT_CONTAINS(m, "compute queue waits at instruction #2 (gemm reset");
  std::vector<uint8_t> ddr(k.ddr_bytes());
  EXPECT_THROW(simulate_functional(k, t, ddr), SimulationError) << "both modes detect it";
}

TEST(Errors, deadlock_through_a_full_instruction_queue_is_detected) {
  // Depth 1: the second load cannot be dispatched until the first completes, and the first waits
  // for a token that the gemm behind the second load would push.
  Target shallow = t;
  shallow.load_queue_depth = 1;
  Assembler a(shallow, "fetch_deadlock");
  a.buffer("x", {4096}, DType::kInt8, BufferRole::kInput);
  a.load(Mem::kSram, 0, 1, 0, 16, 1, 1, kPopNext);
  a.load(Mem::kSram, 1, 1, 0, 16, 1, 1);
  a.gemm(true, 1, 1, at(0), at(0), at(16), kPushPrev);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), shallow); });
  EXPECT_CONTAINS(m, "compute queue waits for instruction #2 to be dispatched");
  EXPECT_CONTAINS(m, "the load instruction queue is full");
}

TEST(Errors, token_queue_overflow_names_the_pushing_instruction) {
  Target small = t;
  small.token_queue_depth = 2;
  Assembler a(small, "overflow");
  a.buffer("x", {4096}, DType::kInt8, BufferRole::kInput);
  for (int i = 0; i < 3; ++i) a.load(Mem::kSram, i, 1, 0, 16, 1, 1, kPushNext);
  a.gemm(true, 2000, 1, at(0), at(0), at(16));  // compute pops only after 2020 cycles
  for (int i = 0; i < 3; ++i) a.sync(Queue::kCompute, kPopPrev);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), small); });
  EXPECT_CONTAINS(m, "instruction #2 (load sram[2]");
  EXPECT_CONTAINS(m, "token queue overflow: push #3 onto the load->compute token queue");
}

TEST(Errors, unknown_opcode_in_a_program_names_the_instruction) {
  Assembler a = program("bad_opcode");
  Insn bad;
  bad.opcode = static_cast<Opcode>(0x7f);
  a.emit(bad);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "instruction #0 (unknown opcode 127): unknown opcode 127");
}

TEST(Errors, illegal_dependency_flag_names_the_queue) {
  Assembler a = program("bad_flag");
  a.load(Mem::kSram, 0, 1, 0, 16, 1, 1, kPopPrev);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "the load queue has no previous queue, so pop_prev is illegal");
}

TEST(Errors, program_without_finish_is_rejected) {
  Assembler a = program("no_finish");
  a.load(Mem::kSram, 0, 1, 0, 16, 1, 1);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.kernel(), t); });
  EXPECT_CONTAINS(m, "instruction #0 (load");
  EXPECT_CONTAINS(m, "must end with finish");
}

TEST(Errors, reversed_clip_bounds_are_rejected) {
  Assembler a = program("clip");
  a.clip(1, 1, acc(0), acc(0), 10, -10);
  std::string m = message_of<SimulationError>([&] { simulate_timing(a.finish(), t); });
  EXPECT_CONTAINS(m, "(vector.clip ext=1x1 acc[0+0i+0j] <- acc[0+0i+0j] lo=10 hi=-10)");
  EXPECT_CONTAINS(m, "clip bounds are reversed");
}

}  // namespace
}  // namespace tessera::npu
