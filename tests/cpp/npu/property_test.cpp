// Acceptance 3: 2,000 random valid programs, seeded. For each: timing cycles >= roofline bound;
// functional and timing modes agree on instruction counts, bytes moved and cycles; repeated
// timing runs give identical statistics; the kernel file round-trips bit for bit.
// And the hazard check is sound: a random program it passes computes the same bytes on targets
// whose costs schedule it differently; its verdict does not depend on the schedule either.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/encoding.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/roofline.h"
#include "runtime/npu/simulator.h"

namespace tessera::npu {
namespace {

class Generator {
 public:
  // dense_tokens: push and pop a token wherever the rules allow, so most programs are race-free.
  Generator(const Target& t, uint32_t seed, bool dense_tokens = false)
      : t_(t), rng_(seed), dense_(dense_tokens) {}

  int range(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  // An affine address with random extents' strides, inside `rows` rows (`extra` rows per point).
  Affine affine(uint16_t e0, uint16_t e1, uint64_t rows, uint64_t extra = 1) {
    for (;;) {
      uint16_t s0 = uint16_t(range(0, 8)), s1 = uint16_t(range(0, 8));
      uint64_t span = uint64_t(s0) * (e0 - 1) + uint64_t(s1) * (e1 - 1) + extra;
      if (span > rows) continue;
      return at(uint32_t(range(0, int(rows - span))), s0, s1);
    }
  }

  // Token flags that never pop a token the program has not pushed earlier in program order,
  // and never push more than the depth in total: valid by construction (docs/npu_isa.md).
  unsigned deps(Queue q) {
    unsigned d = 0;
    auto maybe_pop = [&](int tq, unsigned flag) {
      if (pushed_[tq] > popped_[tq] && (dense_ || range(0, 1))) d |= flag, popped_[tq]++;
    };
    auto maybe_push = [&](int tq, unsigned flag) {
      if (pushed_[tq] < t_.token_queue_depth && (dense_ || range(0, 2) == 0))
        d |= flag, pushed_[tq]++;
    };
    if (q == Queue::kLoad) maybe_pop(1, kPopNext), maybe_push(0, kPushNext);
    if (q == Queue::kCompute)
      maybe_pop(0, kPopPrev), maybe_pop(3, kPopNext), maybe_push(1, kPushPrev),
          maybe_push(2, kPushNext);
    if (q == Queue::kStore) maybe_pop(2, kPopPrev), maybe_push(3, kPushPrev);
    return d;
  }

  Kernel program(int index) {
    Assembler a(t_, "random_" + std::to_string(index));
    int in_rows = range(1, 8), in_cols = range(1, 8), out_rows = range(1, 8),
        out_cols = range(1, 8);
    uint32_t in = a.buffer("in", {in_rows, 16 * in_cols}, DType::kInt8, BufferRole::kInput);
    uint32_t out = a.buffer("out", {out_rows, 16 * out_cols}, DType::kInt8, BufferRole::kOutput);
    a.buffer("scratch", {8192}, DType::kInt8, BufferRole::kScratch);
    uint64_t ddr = a.kernel().ddr_bytes();
    const uint64_t sram = 512, accr = 256;  // a window of each memory, so data flows between ops
    // Every input byte read once, every output byte written once: the roofline's minimum traffic.
    a.load(Mem::kSram, uint32_t(range(0, 64)), in_cols, in, 16 * in_cols, in_rows, in_cols,
           deps(Queue::kLoad));
    int n = range(0, 40);
    for (int i = 0; i < n; ++i) {
      switch (range(0, 5)) {
        case 0:
        case 1: {  // load or store
          bool load = range(0, 1);
          Mem mem = range(0, 3) ? Mem::kSram : Mem::kAcc;
          uint64_t unit = mem == Mem::kAcc ? 64 : 16;
          uint16_t rows = uint16_t(range(1, 8)), cols = uint16_t(range(1, 8));
          Pad pad;
          if (load)
            pad = Pad{uint8_t(range(0, 2)), uint8_t(range(0, 2)), uint8_t(range(0, 2)),
                      uint8_t(range(0, 2))};
          uint32_t width = pad.left + cols + pad.right;
          uint32_t stride = width + uint32_t(range(0, 4));
          uint32_t ddr_stride = uint32_t(cols * unit + range(0, 3) * 16);
          uint64_t ddr_span = uint64_t(rows - 1) * ddr_stride + cols * unit;
          uint32_t ddr_addr = uint32_t(range(0, int(ddr - ddr_span)));
          uint64_t chip_rows = (pad.top + rows + pad.bottom - 1) * uint64_t(stride) + width;
          uint32_t addr = uint32_t(range(0, int((mem == Mem::kAcc ? accr : sram) - chip_rows)));
          if (load)
            a.load(mem, addr, stride, ddr_addr, ddr_stride, rows, cols, deps(Queue::kLoad), pad);
          else
            a.store(mem, addr, stride, ddr_addr, ddr_stride, rows, cols, deps(Queue::kStore));
          break;
        }
        case 2: {
          uint16_t e0 = uint16_t(range(1, 8)), e1 = uint16_t(range(1, 8));
          a.gemm(range(0, 1), e0, e1, affine(e0, e1, accr), affine(e0, e1, sram),
                 affine(e0, e1, sram, 16), deps(Queue::kCompute));
          break;
        }
        case 3:
        case 4: {
          uint16_t e0 = uint16_t(range(1, 8)), e1 = uint16_t(range(1, 8));
          auto operand = [&] {
            Mem m = range(0, 1) ? Mem::kSram : Mem::kAcc;
            return Operand{m, affine(e0, e1, m == Mem::kAcc ? accr : sram)};
          };
          Operand dst = operand(), src = operand();
          VecOp op = VecOp(range(0, kNumVecOps - 1));
          // mac accumulates into the accumulator only.
          if (op == VecOp::kMac && dst.mem != Mem::kAcc)
            dst = Operand{Mem::kAcc, affine(e0, e1, accr)};
          unsigned d = deps(Queue::kCompute);
          if (op == VecOp::kRelu)
            a.relu(e0, e1, dst, src, d);
          else if (op == VecOp::kClip) {
            int lo = range(-200, 200);
            a.clip(e0, e1, dst, src, lo, lo + range(0, 300), d);
          } else if (op == VecOp::kRequantize)
            a.requantize(e0, e1, dst, src, range(-(1 << 20), 1 << 20), uint8_t(range(0, 40)),
                         int8_t(range(-128, 127)), d);
          else if (range(0, 1))
            a.vector_imm(op, e0, e1, dst, src,
                         op == VecOp::kShr ? range(0, 31) : range(-1000, 1000), d);
          else
            a.vector(op, e0, e1, dst, src, operand(), d);
          break;
        }
        default: {
          Queue q = Queue(range(0, 2));
          a.sync(q, deps(q));
        }
      }
    }
    a.store(Mem::kSram, uint32_t(range(0, 64)), out_cols, out, 16 * out_cols, out_rows, out_cols,
            deps(Queue::kStore));
    return a.finish(deps(Queue::kCompute));
  }

 private:
  const Target& t_;
  std::mt19937 rng_;
  bool dense_;
  int64_t pushed_[4] = {0, 0, 0, 0}, popped_[4] = {0, 0, 0, 0};
};

TEST(Property, random_valid_programs_respect_the_roofline_and_agree_across_modes) {
  const Target t = default_target();
  const int kPrograms = 2000;
  uint64_t total_insns = 0;
  for (int p = 0; p < kPrograms; ++p) {
    Generator gen(t, 1000 + p);  // seed per program: a failure names a reproducible program
    Kernel k = gen.program(p);
    SCOPED_TRACE("program seed " + std::to_string(1000 + p));
    SimStats timing = simulate_timing(k, t);
    RooflineBound bound = kernel_roofline_bound(k, t);
    ASSERT_GE(double(timing.cycles), bound.cycles);
    ASSERT_GE(timing.ddr_bytes_read + timing.ddr_bytes_written, bound.ddr_bytes);

    std::mt19937 rng(p);
    std::vector<uint8_t> ddr(k.ddr_bytes());
    for (uint8_t& b : ddr) b = uint8_t(rng());
    SimOptions unchecked;  // random tokens leave races; this test is about the statistics
    unchecked.check_hazards = false;
    SimStats functional = simulate_functional(k, t, ddr, unchecked);
    ASSERT_EQ(functional.insn_count, timing.insn_count);
    ASSERT_EQ(functional.ddr_bytes_read, timing.ddr_bytes_read);
    ASSERT_EQ(functional.ddr_bytes_written, timing.ddr_bytes_written);
    ASSERT_EQ(functional.cycles, timing.cycles);

    SimStats again = simulate_timing(k, t);
    ASSERT_EQ(again.cycles, timing.cycles);
    for (int u = 0; u < kNumQueues; ++u) {
      ASSERT_EQ(again.units[u].busy_cycles, timing.units[u].busy_cycles);
      ASSERT_EQ(again.units[u].stalled_cycles, timing.units[u].stalled_cycles);
    }

    std::vector<uint8_t> file = serialize_kernel(k);
    Kernel back = parse_kernel(file.data(), file.size(), "<memory>");
    ASSERT_EQ(serialize_kernel(back), file);
    total_insns += k.program.size();
  }
  EXPECT_GT(total_insns, uint64_t(kPrograms) * 10) << "programs are not trivially short";
}

}  // namespace
}  // namespace tessera::npu

namespace tessera::npu {
namespace {

// Returns the DDR image after a checked functional run, or nothing when the check found a hazard.
std::optional<std::vector<uint8_t>> checked_run(const Kernel& k, const Target& t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> ddr(k.ddr_bytes());
  for (uint8_t& b : ddr) b = uint8_t(rng());
  try {
    simulate_functional(k, t, ddr);
  } catch (const SimulationError& e) {
    if (std::string(e.what()).find(": hazard: ") == std::string::npos) throw;
    return std::nullopt;
  }
  return ddr;
}

TEST(Property, programs_without_hazards_give_the_same_bytes_under_any_timing) {
  const Target fast = default_target();
  Target slow = fast;  // every cost moved, so instructions start in other orders and overlaps
  slow.name = "npu-slow";
  slow.dma_fixed_cycles = 7;
  slow.dma_row_cycles = 13;
  slow.ddr_bytes_per_cycle = 2;
  slow.gemm_fixed_cycles = 150;
  slow.vector_fixed_cycles = 1;
  slow.fetch_burst_insns = 3;
  slow.acc_raw_latency_cycles = 9;
  slow.pad_unit_cycles = 4;
  slow.compute_units = 3 - fast.compute_units;  // the other compute model: overlap or not
  int race_free = 0, racy = 0, differ_in_timing = 0;
  for (int p = 0; p < 2000; ++p) {
    SCOPED_TRACE("program seed " + std::to_string(1000 + p));
    bool dense = p % 2;  // half the programs synchronise wherever they can
    Kernel a = Generator(fast, 1000 + p, dense).program(p);
    Kernel b = Generator(slow, 1000 + p, dense).program(p);
    ASSERT_EQ(a.program.size(), b.program.size());
    std::optional<std::vector<uint8_t>> ra = checked_run(a, fast, p), rb = checked_run(b, slow, p);
    ASSERT_EQ(ra.has_value(), rb.has_value()) << "the verdict depends only on tokens and order";
    if (!ra) {
      ++racy;
      continue;
    }
    ++race_free;
    ASSERT_EQ(*ra, *rb);
    differ_in_timing += simulate_timing(a, fast).cycles != simulate_timing(b, slow).cycles;
  }
  EXPECT_GT(race_free, 200) << "racy " << racy;
  EXPECT_GT(racy, 200) << "race-free " << race_free;
  EXPECT_GT(differ_in_timing, race_free / 2) << "the two targets must schedule differently";
}

}  // namespace
}  // namespace tessera::npu
