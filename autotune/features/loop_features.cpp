#include "autotune/features/loop_features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "autotune/features/argument_slots.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

// The statements the features count, and the order in which the main statement is chosen.
enum Leaf { kGemm, kVector, kDmaLoad, kDmaStore, kBufferStore, kLeaves };
using Counts = std::array<double, kLeaves>;

constexpr int kForKinds = 4;  // serial, parallel, vectorized, unrolled (ForKind's order)
constexpr float kMissing = -1;

float lg(double n) { return static_cast<float>(std::log2(1.0 + n)); }

int64_t extent_of(const ForNode* f) {
  const int64_t* e = as_const_int(f->extent);
  return e && *e > 0 ? *e : 1;  // lowered loops have constant extents; a symbolic one counts once
}

struct LeafStmt {
  Leaf leaf;
  std::vector<const ForNode*> loops;  // enclosing loops, outermost first
  double executions = 1;              // product of their extents (conditions not evaluated)
  std::string ddr;                    // a DMA's global buffer
};

// One walk: the leaves with their loops, loop and if counts, on-chip allocations.
struct Walk {
  std::vector<const ForNode*> stack;
  std::vector<LeafStmt> leaves;
  std::array<int, kForKinds> loops_by_kind{};
  int max_depth = 0;
  int ifs = 0;
  std::set<std::string> double_buffered;
  double sram = 0, acc = 0, sram_doubled = 0;

  void leaf(Leaf kind, const std::string& ddr = "") {
    LeafStmt l{kind, stack, 1, ddr};
    for (const ForNode* f : stack) l.executions *= static_cast<double>(extent_of(f));
    leaves.push_back(std::move(l));
  }

  void walk(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case StmtKind::kFor: {
        const ForNode* f = s.as<ForNode>();
        ++loops_by_kind[static_cast<int>(f->for_kind) % kForKinds];
        stack.push_back(f);
        max_depth = std::max(max_depth, static_cast<int>(stack.size()));
        walk(f->body);
        stack.pop_back();
        break;
      }
      case StmtKind::kSeq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) walk(x);
        break;
      case StmtKind::kIfThenElse:
        ++ifs;
        walk(s.as<IfThenElseNode>()->then_case);
        walk(s.as<IfThenElseNode>()->else_case);
        break;
      case StmtKind::kLetStmt:
        walk(s.as<LetStmtNode>()->body);
        break;
      case StmtKind::kAttrStmt: {
        const AttrStmtNode* a = s.as<AttrStmtNode>();
        if (a->key == "double_buffer") double_buffered.insert(a->value);
        walk(a->body);
        break;
      }
      case StmtKind::kAllocate: {
        const AllocateNode* a = s.as<AllocateNode>();
        const double bytes =
            static_cast<double>(a->buffer->num_elements()) * bytes_of(a->buffer->dtype);
        const bool doubled = double_buffered.count(a->buffer->name) > 0;
        if (a->buffer->scope == "sram") {
          sram += bytes * (doubled ? 2 : 1);
          if (doubled) sram_doubled += 2 * bytes;
        } else if (a->buffer->scope == "acc") {
          acc += bytes * (doubled ? 2 : 1);
        }
        walk(a->body);
        break;
      }
      case StmtKind::kNpuDma: {
        const NpuDmaNode* d = s.as<NpuDmaNode>();
        leaf(d->load ? kDmaLoad : kDmaStore, d->ddr->name);
        break;
      }
      case StmtKind::kNpuGemm:
        leaf(kGemm);
        break;
      case StmtKind::kNpuVector:
        leaf(kVector);
        break;
      case StmtKind::kBufferStore:
        leaf(kBufferStore);
        break;
      case StmtKind::kExternCall:  // a C-target stage: no NPU work to count
      case StmtKind::kTensorize:   // lower() replaces it before features are taken
        break;
    }
  }
};

// Dynamic counts below s: a loop multiplies by its extent, an if counts its larger branch (per
// kind of statement). The loop `skip` and everything below it are left out.
Counts dynamic_counts(const Stmt& s, const ForNode* skip) {
  Counts c{};
  if (!s.defined()) return c;
  auto add = [&c](const Counts& o, double times) {
    for (int i = 0; i < kLeaves; ++i) c[i] += o[i] * times;
  };
  switch (s.kind()) {
    case StmtKind::kFor: {
      const ForNode* f = s.as<ForNode>();
      if (f != skip) add(dynamic_counts(f->body, skip), static_cast<double>(extent_of(f)));
      break;
    }
    case StmtKind::kSeq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) add(dynamic_counts(x, skip), 1);
      break;
    case StmtKind::kIfThenElse: {
      Counts t = dynamic_counts(s.as<IfThenElseNode>()->then_case, skip);
      Counts e = dynamic_counts(s.as<IfThenElseNode>()->else_case, skip);
      for (int i = 0; i < kLeaves; ++i) c[i] = std::max(t[i], e[i]);
      break;
    }
    case StmtKind::kLetStmt:
      return dynamic_counts(s.as<LetStmtNode>()->body, skip);
    case StmtKind::kAttrStmt:
      return dynamic_counts(s.as<AttrStmtNode>()->body, skip);
    case StmtKind::kAllocate:
      return dynamic_counts(s.as<AllocateNode>()->body, skip);
    case StmtKind::kNpuDma:
      c[s.as<NpuDmaNode>()->load ? kDmaLoad : kDmaStore] = 1;
      break;
    case StmtKind::kNpuGemm:
      c[kGemm] = 1;
      break;
    case StmtKind::kNpuVector:
      c[kVector] = 1;
      break;
    case StmtKind::kBufferStore:
      c[kBufferStore] = 1;
      break;
    case StmtKind::kExternCall:
    case StmtKind::kTensorize:
      break;
  }
  return c;
}

// The main statement: of the first kind (in Leaf order) present, the one executed most often;
// ties go to the first in program order. nullptr when the body has no statement.
const LeafStmt* main_statement(const std::vector<LeafStmt>& leaves) {
  for (Leaf kind : {kGemm, kVector, kDmaLoad, kBufferStore}) {
    const LeafStmt* best = nullptr;
    for (const LeafStmt& l : leaves) {
      const bool same = l.leaf == kind || (kind == kDmaLoad && l.leaf == kDmaStore);
      if (same && (!best || l.executions > best->executions)) best = &l;
    }
    if (best) return best;
  }
  return nullptr;
}

const char* const kLeafNames[kLeaves] = {"gemm", "vector", "dma_load", "dma_store", "store"};
const char* const kForKindNames[kForKinds] = {"serial", "parallel", "vectorized", "unrolled"};

std::vector<std::string> make_names() {
  std::vector<std::string> n;
  for (int i = 0; i < kMainNestSlots; ++i)
    for (const char* what : {"extent", "kind", "dmas"})
      n.push_back("loop." + std::to_string(i) + "." + what);
  for (const char* what : {"kind", "depth", "executions"}) n.push_back(std::string("main.") + what);
  n.push_back("ir.loops");
  for (const char* k : kForKindNames) n.push_back(std::string("ir.loops.") + k);
  n.push_back("ir.max_depth");
  n.push_back("ir.ifs");
  for (const char* l : kLeafNames) n.push_back(std::string("ir.static.") + l);
  for (const char* l : kLeafNames) n.push_back(std::string("ir.dynamic.") + l);
  for (int s = 0; s < kArgumentSlots; ++s)
    for (const char* what : {"dma_depth", "dma_stmts"})
      n.push_back(std::string("arg.") + argument_slot_name(s) + "." + what);
  for (const char* what : {"sram.declared", "acc.declared", "sram.double_buffered"})
    n.push_back(std::string("ir.") + what);
  return n;
}

}  // namespace

const std::vector<std::string>& loop_feature_names() {
  static const std::vector<std::string> names = make_names();
  return names;
}

std::vector<float> loop_features(const LoweredFunc& f, const npu::Target& target) {
  Walk w;
  w.walk(f.body);
  std::vector<float> v;
  v.reserve(loop_feature_names().size());

  // The main nest.
  const LeafStmt* main = main_statement(w.leaves);
  const std::vector<const ForNode*> nest = main ? main->loops : std::vector<const ForNode*>{};
  for (int i = 0; i < kMainNestSlots; ++i) {
    if (i >= static_cast<int>(nest.size())) {
      v.insert(v.end(), {kMissing, kMissing, kMissing});
      continue;
    }
    const ForNode* loop = nest[i];
    const ForNode* next = i + 1 < static_cast<int>(nest.size()) ? nest[i + 1] : nullptr;
    Counts per_iteration = dynamic_counts(loop->body, next);
    v.push_back(static_cast<float>(std::log2(static_cast<double>(extent_of(loop)))));
    v.push_back(static_cast<float>(static_cast<int>(loop->for_kind)));
    v.push_back(lg(per_iteration[kDmaLoad] + per_iteration[kDmaStore]));
  }
  v.push_back(main ? static_cast<float>(main->leaf == kDmaStore ? kDmaLoad : main->leaf)
                   : kMissing);
  v.push_back(static_cast<float>(nest.size()));
  v.push_back(main ? lg(main->executions) : kMissing);

  // Counts.
  int loops = 0;
  for (int k : w.loops_by_kind) loops += k;
  v.push_back(lg(loops));
  for (int k : w.loops_by_kind) v.push_back(lg(k));
  v.push_back(static_cast<float>(w.max_depth));
  v.push_back(lg(w.ifs));
  Counts statics{};
  for (const LeafStmt& l : w.leaves) statics[l.leaf] += 1;
  for (double c : statics) v.push_back(lg(c));
  for (double c : dynamic_counts(f.body, nullptr)) v.push_back(lg(c));

  // Per argument buffer.
  std::map<std::string, size_t> arg_index;
  std::vector<bool> is_output(f.args.size(), false);
  for (size_t i = 0; i < f.args.size(); ++i) arg_index.emplace(f.args[i]->name, i);
  for (const LeafStmt& l : w.leaves)
    if (l.leaf == kDmaStore && arg_index.count(l.ddr)) is_output[arg_index[l.ddr]] = true;
  const std::vector<int> slots = argument_slots(is_output);
  const std::set<const ForNode*> in_nest(nest.begin(), nest.end());
  std::array<float, kArgumentSlots> depth, stmts{};
  depth.fill(kMissing);
  for (const LeafStmt& l : w.leaves) {
    if (l.leaf != kDmaLoad && l.leaf != kDmaStore) continue;
    auto it = arg_index.find(l.ddr);
    if (it == arg_index.end()) continue;
    const int slot = slots[it->second];
    float d = 0;
    for (const ForNode* loop : l.loops) d += in_nest.count(loop) ? 1 : 0;
    depth[slot] = std::max(depth[slot], d);
    stmts[slot] += 1;
  }
  for (int s = 0; s < kArgumentSlots; ++s) {
    v.push_back(depth[s]);
    v.push_back(lg(stmts[s]));
  }

  // Declared on-chip footprint.
  v.push_back(static_cast<float>(w.sram / static_cast<double>(target.sram_bytes)));
  v.push_back(static_cast<float>(w.acc / static_cast<double>(target.acc_bytes)));
  v.push_back(static_cast<float>(w.sram_doubled / static_cast<double>(target.sram_bytes)));
  TESSERA_ICHECK(v.size() == loop_feature_names().size(), "loop_features: ", v.size(),
                 " values for ", loop_feature_names().size(), " names");
  return v;
}

}  // namespace tessera::autotune
