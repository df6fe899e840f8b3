// On-chip memory allocation for the NPU backend: gives every Allocate of an "sram" (int8) or
// "acc" (int32) buffer a base row in its memory.
//
// Allocation follows the IR's scoping, as a stack per memory: an Allocate takes the rows above
// every enclosing Allocate of the same memory, and its rows are free again after its body, so
// buffers whose scopes do not overlap (siblings in a Seq, the two branches of an if) share space.
// Because scopes nest, the rows live at any point are exactly the enclosing Allocates, and the
// stack reaches the smallest possible peak. A buffer wrapped in AttrStmt("double_buffer", name)
// gets two copies (2x rows); codegen alternates between them per execution of its producer.
//
// A peak above the target's sram_bytes or acc_bytes is a LowerError that lists every buffer live
// at the peak with its size, and the capacity.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/ir/ir.h"
#include "runtime/npu/isa.h"
#include "runtime/npu/target.h"

namespace tessera {

struct OnchipBuffer {
  std::string name;
  npu::Mem mem = npu::Mem::kSram;
  int64_t base = 0;  // first row, in rows of `mem`
  int64_t rows = 0;  // rows of one copy (num_elements / the target's block)
  bool double_buffered = false;
};

struct OnchipPlan {
  // Keyed by the Allocate node (looked up while walking the IR, never iterated into output).
  std::map<const AllocateNode*, OnchipBuffer> buffers;
  int64_t sram_peak_rows = 0;
  int64_t acc_peak_rows = 0;
};

// The memory of an on-chip scope: "sram" or "acc"; LowerError naming the buffer and `stage`
// for any other scope or a dtype that does not match it (sram holds int8, acc int32): the rule
// of compiler/passes/npu_rules.h.
npu::Mem onchip_mem(const Buffer& b, const std::string& stage, const npu::Target& target);

OnchipPlan allocate_onchip(const Stmt& body, const npu::Target& target);

}  // namespace tessera
