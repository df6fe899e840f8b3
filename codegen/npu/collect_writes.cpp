#include "codegen/npu/collect_writes.h"

namespace tessera {

void collect_writes(const Stmt& s, std::vector<const BufferNode*>* out) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::kFor:
      collect_writes(s.as<ForNode>()->body, out);
      break;
    case StmtKind::kSeq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) collect_writes(x, out);
      break;
    case StmtKind::kIfThenElse:
      collect_writes(s.as<IfThenElseNode>()->then_case, out);
      collect_writes(s.as<IfThenElseNode>()->else_case, out);
      break;
    case StmtKind::kLetStmt:
      collect_writes(s.as<LetStmtNode>()->body, out);
      break;
    case StmtKind::kAllocate:
      collect_writes(s.as<AllocateNode>()->body, out);
      break;
    case StmtKind::kAttrStmt:
      if (s.as<AttrStmtNode>()->key != "produce") collect_writes(s.as<AttrStmtNode>()->body, out);
      break;
    case StmtKind::kNpuDma:
      if (s.as<NpuDmaNode>()->load) out->push_back(s.as<NpuDmaNode>()->chip.get());
      break;
    case StmtKind::kNpuGemm:
      out->push_back(s.as<NpuGemmNode>()->acc.get());
      break;
    case StmtKind::kNpuVector:
      out->push_back(s.as<NpuVectorNode>()->dst.get());
      break;
    default:
      break;
  }
}

}  // namespace tessera
