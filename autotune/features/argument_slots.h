// The fixed feature slots of a kernel's argument buffers, shared by the loop-IR and the
// instruction-stream features so that both name a buffer the same way.
//
// Arguments are taken in their order (the kernel's buffer table has the same order): the first
// three inputs are in0, in1, in2, the first output out0, and every further buffer is summed into
// `rest`. A buffer is an output when some DMA stores to it (the rule codegen_npu uses), an input
// otherwise. So conv2d's X, W, Y are in0, in1, out0; add's A, B, Y in0, in1, out0; max pooling's
// X, Y in0, out0, whatever the tensors are called.
#pragma once

#include <string>
#include <vector>

namespace tessera::autotune {

constexpr int kArgumentSlots = 5;  // in0, in1, in2, out0, rest
constexpr int kRestSlot = kArgumentSlots - 1;

// "in0", "in1", "in2", "out0", "rest".
const char* argument_slot_name(int slot);

// The slot of each argument, given which arguments are outputs (in argument order).
std::vector<int> argument_slots(const std::vector<bool>& is_output);

}  // namespace tessera::autotune
