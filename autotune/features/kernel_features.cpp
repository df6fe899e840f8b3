#include "autotune/features/kernel_features.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "autotune/features/argument_slots.h"
#include "runtime/base/error.h"
#include "runtime/npu/prepare_program.h"
#include "runtime/npu/roofline.h"

namespace tessera::autotune {

namespace {

using npu::Opcode;

constexpr float kMissing = -1;
constexpr Opcode kCountedOpcodes[] = {Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kVector,
                                      Opcode::kSync};

float lg(double n) { return static_cast<float>(std::log2(1.0 + n)); }
float ratio_or_missing(double num, double den) {
  return den > 0 ? static_cast<float>(num / den) : kMissing;
}
float lg_ratio_or_missing(double num, double den) { return den > 0 ? lg(num / den) : kMissing; }

struct BufferTraffic {
  bool present = false;
  double bytes = 0, moved = 0, dmas = 0, rows = 0;
  double strided_rows = 0, stride_sum = 0;  // DMAs of more than one row: rows, rows x stride/len
};

const char* const kBufferFeatures[] = {"bytes", "dmas",          "moved",     "traffic",
                                       "reuse", "bytes_per_dma", "row_bytes", "stride"};

std::vector<std::string> make_names() {
  std::vector<std::string> n;
  for (Opcode op : kCountedOpcodes) n.push_back(std::string("insn.") + npu::opcode_name(op));
  n.push_back("insn.total");
  for (const char* f : {"steps", "steps_per_insn", "reset_fraction"})
    n.push_back(std::string("gemm.") + f);
  for (const char* f : {"rows", "rows_per_insn"}) n.push_back(std::string("vector.") + f);
  for (int op = 0; op < npu::kNumVecOps; ++op)
    n.push_back(std::string("vector.op.") + npu::vec_op_name(static_cast<npu::VecOp>(op)));
  for (const char* f : {"load.bytes", "store.bytes", "load.bytes_per_insn", "store.bytes_per_insn",
                        "rows", "row_bytes", "pad_fraction"})
    n.push_back(std::string("dma.") + f);
  for (const char* f : {"pushed", "popped"}) n.push_back(std::string("tokens.") + f);
  for (const char* f : {"compute_cycles", "ddr_port_cycles", "dma_latency_cycles", "bound",
                        "compute_over_bound", "ddr_over_bound", "critical_over_bound"})
    n.push_back(std::string("est.") + f);
  for (int s = 0; s < kArgumentSlots; ++s)
    for (const char* f : kBufferFeatures)
      n.push_back(std::string("buf.") + argument_slot_name(s) + "." + f);
  for (const char* f : {"sram", "acc"}) n.push_back(std::string("onchip.") + f);
  return n;
}

}  // namespace

const std::vector<std::string>& kernel_feature_names() {
  static const std::vector<std::string> names = make_names();
  return names;
}

std::vector<float> kernel_features(const npu::Kernel& kernel, const npu::Target& target) {
  const npu::PreparedProgram prepared = npu::prepare_program(kernel, target);
  // The true work's bound when the kernel carries it (the compiler's kernels do), else the
  // bound of the kernel's own work.
  const npu::RooflineBound bound = kernel.work ? npu::roofline_bound(kernel, target)
                                               : npu::kernel_roofline_bound(kernel, target);
  const double sram_row_bytes = static_cast<double>(target.mac_in);
  const double acc_row_bytes = static_cast<double>(target.acc_bytes) / target.acc_rows();

  // Buffers by DDR offset, for finding the buffer a DMA moves.
  std::vector<size_t> by_offset(kernel.buffers.size());
  for (size_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
  std::sort(by_offset.begin(), by_offset.end(), [&](size_t a, size_t b) {
    return kernel.buffers[a].ddr_offset < kernel.buffers[b].ddr_offset;
  });
  auto buffer_at = [&](uint64_t addr) -> int {
    auto it = std::upper_bound(by_offset.begin(), by_offset.end(), addr, [&](uint64_t a, size_t b) {
      return a < kernel.buffers[b].ddr_offset;
    });
    if (it == by_offset.begin()) return -1;
    const npu::BufferDecl& b = kernel.buffers[*(it - 1)];
    return addr < b.ddr_offset + b.bytes() ? static_cast<int>(*(it - 1)) : -1;
  };
  std::vector<bool> is_output;
  for (const npu::BufferDecl& b : kernel.buffers)
    is_output.push_back(b.role == npu::BufferRole::kOutput);
  const std::vector<int> slots = argument_slots(is_output);
  std::array<BufferTraffic, kArgumentSlots> traffic{};
  for (size_t i = 0; i < kernel.buffers.size(); ++i) {
    traffic[slots[i]].present = true;
    traffic[slots[i]].bytes += static_cast<double>(kernel.buffers[i].bytes());
  }

  double gemm_insns = 0, gemm_steps = 0, resets = 0, vector_insns = 0, vector_rows = 0;
  std::array<double, npu::kNumVecOps> vec_ops{};
  double loads = 0, stores = 0, load_bytes = 0, store_bytes = 0, dma_rows = 0;
  double load_units = 0, pad_units = 0, pushed = 0, popped = 0;
  double compute_cycles = 0, port_cycles = 0;
  for (size_t i = 0; i < kernel.program.size(); ++i) {
    const npu::Insn& insn = kernel.program[i];
    const npu::PreparedOp& op = prepared.ops[i];
    pushed += insn.deps.push_prev + insn.deps.push_next;
    popped += insn.deps.pop_prev + insn.deps.pop_next;
    if (op.is_dma)
      port_cycles += static_cast<double>(op.cycles);  // a load's padding writes hold no port
    else if (op.queue == static_cast<uint8_t>(npu::Queue::kCompute))
      compute_cycles += static_cast<double>(op.cycles);
    switch (insn.opcode) {
      case Opcode::kGemm:
        ++gemm_insns;
        gemm_steps += static_cast<double>(insn.gemm.ext0) * insn.gemm.ext1;
        resets += insn.gemm.reset;
        break;
      case Opcode::kVector:
        ++vector_insns;
        vector_rows += static_cast<double>(insn.vec.ext0) * insn.vec.ext1;
        if (static_cast<int>(insn.vec.op) < npu::kNumVecOps)
          ++vec_ops[static_cast<int>(insn.vec.op)];
        break;
      case Opcode::kLoad:
      case Opcode::kStore: {
        const npu::Dma& d = insn.dma;
        const double bytes =
            static_cast<double>(op.ddr_units) * (op.acc_units ? acc_row_bytes : sram_row_bytes);
        const bool load = insn.opcode == Opcode::kLoad;
        (load ? loads : stores) += 1;
        (load ? load_bytes : store_bytes) += bytes;
        dma_rows += d.rows;
        if (load) {
          const double units = static_cast<double>(d.pad_top + d.rows + d.pad_bottom) *
                               (d.pad_left + d.cols + d.pad_right);
          load_units += units;
          pad_units += units - static_cast<double>(d.rows) * d.cols;
        }
        const int b = buffer_at(d.ddr_addr);
        if (b < 0) break;
        BufferTraffic& t = traffic[slots[b]];
        t.moved += bytes;
        t.dmas += 1;
        t.rows += d.rows;
        if (d.rows > 1 && bytes > 0) {
          const double row_bytes = bytes / d.rows;
          t.strided_rows += d.rows;
          t.stride_sum += d.rows * (d.ddr_stride / row_bytes);
        }
        break;
      }
      default:
        break;
    }
  }

  std::vector<float> v;
  v.reserve(kernel_feature_names().size());
  for (Opcode op : kCountedOpcodes)
    v.push_back(lg(static_cast<double>(prepared.insn_count[static_cast<uint8_t>(op)])));
  v.push_back(lg(static_cast<double>(kernel.program.size())));
  v.push_back(lg(gemm_steps));
  v.push_back(lg_ratio_or_missing(gemm_steps, gemm_insns));
  v.push_back(ratio_or_missing(resets, gemm_insns));
  v.push_back(lg(vector_rows));
  v.push_back(lg_ratio_or_missing(vector_rows, vector_insns));
  for (double n : vec_ops) v.push_back(lg(n));
  v.push_back(lg(load_bytes));
  v.push_back(lg(store_bytes));
  v.push_back(lg_ratio_or_missing(load_bytes, loads));
  v.push_back(lg_ratio_or_missing(store_bytes, stores));
  v.push_back(lg(dma_rows));
  v.push_back(lg_ratio_or_missing(load_bytes + store_bytes, dma_rows));
  v.push_back(ratio_or_missing(pad_units, load_units));
  v.push_back(lg(pushed));
  v.push_back(lg(popped));
  const double latency = (loads + stores) * static_cast<double>(target.dma_fixed_cycles);
  v.push_back(lg(compute_cycles));
  v.push_back(lg(port_cycles));
  v.push_back(lg(latency));
  v.push_back(lg(bound.cycles));
  v.push_back(ratio_or_missing(compute_cycles, bound.cycles));
  v.push_back(ratio_or_missing(port_cycles, bound.cycles));
  v.push_back(ratio_or_missing(std::max(compute_cycles, port_cycles), bound.cycles));
  const double work = static_cast<double>(prepared.macs + prepared.vector_ops);
  for (const BufferTraffic& t : traffic) {
    if (!t.present) {
      v.insert(v.end(), std::size(kBufferFeatures), kMissing);
      continue;
    }
    v.push_back(lg(t.bytes));
    v.push_back(lg(t.dmas));
    v.push_back(lg(t.moved));
    v.push_back(ratio_or_missing(t.moved, t.bytes));
    v.push_back(lg_ratio_or_missing(work, t.moved));
    v.push_back(lg_ratio_or_missing(t.moved, t.dmas));
    v.push_back(lg_ratio_or_missing(t.moved, t.rows));
    v.push_back(ratio_or_missing(t.stride_sum, t.strided_rows));
  }
  v.push_back(ratio_or_missing(static_cast<double>(prepared.sram_rows_used),
                               static_cast<double>(target.sram_rows())));
  v.push_back(ratio_or_missing(static_cast<double>(prepared.acc_rows_used),
                               static_cast<double>(target.acc_rows())));
  TESSERA_ICHECK(v.size() == kernel_feature_names().size(), "kernel_features: ", v.size(),
                 " values for ", kernel_feature_names().size(), " names");
  return v;
}

}  // namespace tessera::autotune
