#include "codegen/npu/allocate_onchip.h"

#include <set>
#include <vector>

#include "compiler/passes/npu_rules.h"
#include "runtime/base/error.h"

namespace tessera {

npu::Mem onchip_mem(const Buffer& b, const std::string& stage, const npu::Target& target) {
  if (std::string why = onchip_problem(b, target, false); !why.empty()) {
    throw LowerError(str("stage '", stage, "': ", why));
  }
  return b->scope == "sram" ? npu::Mem::kSram : npu::Mem::kAcc;
}

namespace {

std::string size_text(int64_t bytes) {
  if (bytes % 1024 == 0) return str(bytes / 1024, " KiB");
  if (bytes > 1024) return str(bytes / 1024, ".", (bytes % 1024) * 10 / 1024, " KiB");
  return str(bytes, " bytes");
}

class Allocator {
 public:
  explicit Allocator(const npu::Target& t) : target_(t) {}

  void visit(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::kFor:
        visit(s.as<ForNode>()->body);
        break;
      case StmtKind::kSeq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) visit(x);
        break;
      case StmtKind::kIfThenElse:
        visit(s.as<IfThenElseNode>()->then_case);
        visit(s.as<IfThenElseNode>()->else_case);
        break;
      case StmtKind::kLetStmt:
        visit(s.as<LetStmtNode>()->body);
        break;
      case StmtKind::kAttrStmt: {
        const auto* op = s.as<AttrStmtNode>();
        bool produce = op->key == "produce", db = op->key == "double_buffer";
        if (produce) stages_.push_back(op->value);
        if (db) double_names_.push_back(op->value);
        visit(op->body);
        if (produce) stages_.pop_back();
        if (db) double_names_.pop_back();
        break;
      }
      case StmtKind::kAllocate:
        visit_allocate(s.as<AllocateNode>());
        break;
      default:
        break;
    }
  }

  void check_capacity() const {
    check(npu::Mem::kSram, target_.sram_bytes, "sram_bytes", "SRAM");
    check(npu::Mem::kAcc, target_.acc_bytes, "acc_bytes", "accumulator");
  }

  OnchipPlan plan;

 private:
  int64_t row_bytes(npu::Mem m) const {
    return m == npu::Mem::kSram ? target_.mac_in : 4 * target_.mac_out;
  }

  void visit_allocate(const AllocateNode* op) {
    std::string stage = stages_.empty() ? op->buffer->name : stages_.back();
    OnchipBuffer b;
    b.name = op->buffer->name;
    if (std::string why = onchip_problem(op->buffer, target_); !why.empty()) {
      throw LowerError(str("stage '", stage, "': ", why));
    }
    b.mem = onchip_mem(op->buffer, stage, target_);
    b.rows = onchip_rows(op->buffer, target_);
    for (const std::string& n : double_names_) b.double_buffered |= n == b.name;
    int m = static_cast<int>(b.mem);
    b.base = top_[m];
    plan.buffers[op] = b;
    int64_t size = b.rows * (b.double_buffered ? 2 : 1);
    top_[m] += size;
    live_[m].push_back(b);
    if (top_[m] > peak_[m]) {
      peak_[m] = top_[m];
      peak_live_[m] = live_[m];
    }
    visit(op->body);
    live_[m].pop_back();
    top_[m] -= size;
    plan.sram_peak_rows = peak_[0];
    plan.acc_peak_rows = peak_[1];
  }

  void check(npu::Mem mem, int64_t capacity, const char* field, const char* what) const {
    int m = static_cast<int>(mem);
    int64_t need = peak_[m] * row_bytes(mem);
    if (need <= capacity) return;
    std::string list;
    for (const OnchipBuffer& b : peak_live_[m]) {
      int64_t bytes = b.rows * row_bytes(mem);
      list += str(
          list.empty() ? "" : ", ", b.name, " ",
          b.double_buffered ? "2 x " + size_text(bytes) + " (double-buffered)" : size_text(bytes));
    }
    throw LowerError(str(what, " overflow: ", size_text(need), " needed, ", size_text(capacity),
                         " available (", field, " of ", target_.name, "): ", list,
                         "; use smaller tiles (split factors) or fewer buffers"));
  }

  const npu::Target& target_;
  std::vector<std::string> stages_, double_names_;
  int64_t top_[2] = {0, 0}, peak_[2] = {0, 0};
  std::vector<OnchipBuffer> live_[2], peak_live_[2];
};

}  // namespace

OnchipPlan allocate_onchip(const Stmt& body, const npu::Target& target) {
  Allocator a(target);
  a.visit(body);
  a.check_capacity();
  return a.plan;
}

}  // namespace tessera
