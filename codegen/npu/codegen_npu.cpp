#include "codegen/npu/codegen_npu.h"

#include <set>

#include "codegen/npu/allocate_onchip.h"
#include "codegen/npu/insert_tokens.h"
#include "codegen/npu/select_insns.h"
#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"

namespace tessera {
namespace {

// The argument buffers some DMA store writes.
void collect_stored(const Stmt& s, std::set<std::string>* out) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::kFor:
      collect_stored(s.as<ForNode>()->body, out);
      break;
    case StmtKind::kSeq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) collect_stored(x, out);
      break;
    case StmtKind::kIfThenElse:
      collect_stored(s.as<IfThenElseNode>()->then_case, out);
      collect_stored(s.as<IfThenElseNode>()->else_case, out);
      break;
    case StmtKind::kLetStmt:
      collect_stored(s.as<LetStmtNode>()->body, out);
      break;
    case StmtKind::kAllocate:
      collect_stored(s.as<AllocateNode>()->body, out);
      break;
    case StmtKind::kAttrStmt:
      collect_stored(s.as<AttrStmtNode>()->body, out);
      break;
    case StmtKind::kNpuDma:
      if (!s.as<NpuDmaNode>()->load) out->insert(s.as<NpuDmaNode>()->ddr->name);
      break;
    default:
      break;
  }
}

}  // namespace

npu::Kernel codegen_npu(const LoweredFunc& f, const npu::Target& target) {
  npu::Assembler a(target, f.name);
  std::set<std::string> stored;
  collect_stored(f.body, &stored);
  DdrLayout ddr;
  for (const Buffer& b : f.args) {
    DType dt = b->dtype;
    if (dt != DType::kInt8 && dt != DType::kInt32) {
      throw LowerError(str("function '", f.name, "': argument '", b->name, "' has dtype ",
                           dtype_name(b->dtype), "; NPU kernels take int8 or int32 arguments"));
    }
    std::vector<int64_t> shape = b->shape.empty() ? std::vector<int64_t>{1} : b->shape;
    npu::BufferRole role =
        stored.count(b->name) ? npu::BufferRole::kOutput : npu::BufferRole::kInput;
    uint32_t offset = a.buffer(b->name, shape, dt, role);
    ddr[b.get()] = DdrBuffer{offset, bytes_of(dt)};
  }
  OnchipPlan plan = allocate_onchip(f.body, target);
  std::vector<SelectedInsn> insns = select_insns(f.body, plan, ddr, target);
  a.emit_all(insert_tokens(insns, target));
  if (f.work) a.declare_work(*f.work);
  return a.finish();
}

}  // namespace tessera
