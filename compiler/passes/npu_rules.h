// The rules NPU statements and buffers obey, in one place: inject_npu_ops reports a user schedule
// that breaks them (LowerError), verify an earlier pass that did (InternalError), and codegen/npu
// hand-built IR that does (LowerError).
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "runtime/npu/target.h"

namespace tessera {

// Why `b` cannot be an on-chip buffer of `target` ("" when it can): its scope is not "sram" or
// "acc", its dtype is not the scope's (int8, int32), or (with `check_rows`) its innermost
// dimension is not a whole number of rows of target.block() elements.
std::string onchip_problem(const Buffer& b, const npu::Target& target, bool check_rows = true);

// Why an element-wise store cannot run on the NPU (what to do instead), naming its buffer.
std::string elementwise_store_problem(const BufferStoreNode* store);

// Rows of target.block() elements an on-chip buffer holds.
int64_t onchip_rows(const Buffer& b, const npu::Target& target);

// A range an NPU statement touches: rows [first, end) of an on-chip buffer, or (ddr) elements
// [first, end) of a DDR buffer. Expressions in the statement's own fields.
struct NpuTouch {
  Buffer buffer;
  Expr first, end;
  const char* role;
  bool ddr = false;
};

// What an NpuGemm (acc row, inp row, wgt tile of mac_out rows), NpuVector (one row of each
// operand) or NpuDma (its on-chip block with padding; its DDR rows) touches.
std::vector<NpuTouch> npu_touches(const Stmt& leaf, const npu::Target& target);

}  // namespace tessera
