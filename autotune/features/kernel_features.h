// Cost-model features of an NPU kernel's instruction stream (docs/tuner_features.md lists every
// one), read from the kernel as codegen emitted it and the target it runs on.
//
// One pass over the program after the simulator's own preparation (prepare_program: the static
// checks and each instruction's DDR bytes and busy cycles by the timing rules), so the features
// use the simulator's rules instead of a second copy of them. A fixed length, the same for every
// kernel and target, with stable names:
//   - instruction counts per opcode, and per vector operation;
//   - GEMM steps and vector rows (in total and per instruction: how well fixed costs amortise),
//     the share of accumulator resets;
//   - DMA traffic: bytes loaded and stored, per DMA, DDR rows, bytes per row, the padding share;
//     dependency tokens pushed and popped;
//   - busy-cycle estimates per queue (no overlap modelled) and their ratios to the kernel's
//     roofline bound (of its true work when it carries it), which carry across shapes;
//   - per argument buffer (argument_slots.h): size, bytes moved, traffic over size, reuse (MAC and
//     vector operations per byte moved), DMAs, bytes per DMA, contiguous bytes per DDR row,
//     and the row stride over the row length;
//   - the on-chip footprint: the high-water marks of SRAM and accumulator over their capacities.
// Missing values are -1; counts and sizes are log2(1 + n). A kernel the simulator would reject
// throws its SimulationError (the measurement records it).
#pragma once

#include <string>
#include <vector>

#include "runtime/npu/kernel.h"
#include "runtime/npu/target.h"

namespace tessera::autotune {

std::vector<float> kernel_features(const npu::Kernel& kernel, const npu::Target& target);

// One name per feature, in order ("insn.gemm", "buf.in0.moved", ...).
const std::vector<std::string>& kernel_feature_names();

}  // namespace tessera::autotune
