#include "compiler/ir/ir.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>
#include <utility>

#include "runtime/base/error.h"
#include "runtime/base/float16.h"

namespace tessera {

namespace {
std::atomic<uint64_t> next_var_id{1};

// Node memory. Lowering builds and drops hundreds of thousands of small nodes (a quarter of its
// instructions went to malloc and free): nodes come from per-thread free lists, one per size
// class (multiples of the malloc alignment), carved from 128 KiB blocks that are never returned
// (a node freed on another thread joins that thread's list; a thread that ends leaves its free
// nodes to the next that needs some). Addresses never reach an output
// (conventions), so where a node lives changes nothing but speed.
constexpr size_t kPoolGrain = alignof(std::max_align_t);
constexpr size_t kPoolClasses = 24;  // nodes with their control block up to 24 grains
constexpr size_t kPoolBlock = size_t{1} << 17;
struct FreeNode {
  FreeNode* next;
};
thread_local FreeNode* pool_free_lists[kPoolClasses];
thread_local char* pool_cursor = nullptr;
thread_local char* pool_end = nullptr;

// What threads that ended left: their free nodes and the unused part of their last block, taken
// by the next thread that runs dry (a tuner's workers come and go with their executor). Never
// destroyed: nodes outlive static destruction.
struct PoolStash {
  std::mutex mu;
  FreeNode* lists[kPoolClasses] = {};
  std::vector<std::pair<char*, char*>> blocks;
};
PoolStash& pool_stash() {
  static PoolStash* stash = new PoolStash;
  return *stash;
}
// Hands this thread's free nodes and block to the stash when the thread ends.
struct PoolThreadExit {
  bool registered = false;
  ~PoolThreadExit() {
    PoolStash& s = pool_stash();
    std::lock_guard<std::mutex> lock(s.mu);
    for (size_t c = 0; c < kPoolClasses; ++c) {
      FreeNode* head = pool_free_lists[c];
      if (!head) continue;
      FreeNode* tail = head;
      while (tail->next) tail = tail->next;
      tail->next = s.lists[c];
      s.lists[c] = head;
      pool_free_lists[c] = nullptr;
    }
    if (pool_end - pool_cursor >= static_cast<std::ptrdiff_t>(kPoolGrain)) {
      s.blocks.emplace_back(pool_cursor, pool_end);
    }
    pool_cursor = pool_end = nullptr;
  }
};
thread_local PoolThreadExit pool_thread_exit;

// The slow path: a free list from the stash, else the rest of this thread's block, else a block
// from the stash or a new one.
void* pool_refill(size_t c) {
  pool_thread_exit.registered = true;  // constructs it, so that it runs at thread exit
  size_t size = c * kPoolGrain;
  {
    PoolStash& s = pool_stash();
    std::lock_guard<std::mutex> lock(s.mu);
    if (FreeNode* n = s.lists[c - 1]) {
      s.lists[c - 1] = nullptr;
      pool_free_lists[c - 1] = n->next;
      return n;
    }
    if (static_cast<size_t>(pool_end - pool_cursor) < size && !s.blocks.empty() &&
        static_cast<size_t>(s.blocks.back().second - s.blocks.back().first) >= size) {
      // The rest of the old block (less than one node) is left unused.
      std::tie(pool_cursor, pool_end) = s.blocks.back();
      s.blocks.pop_back();
    }
  }
  if (static_cast<size_t>(pool_end - pool_cursor) < size) {
    pool_cursor = static_cast<char*>(::operator new(kPoolBlock));
    pool_end = pool_cursor + kPoolBlock;
  }
  void* p = pool_cursor;
  pool_cursor += size;
  return p;
}

void* pool_allocate(size_t bytes) {
  size_t c = (bytes + kPoolGrain - 1) / kPoolGrain;
  if (c == 0 || c > kPoolClasses) return ::operator new(bytes);
  FreeNode*& head = pool_free_lists[c - 1];
  if (head) {
    FreeNode* n = head;
    head = n->next;
    return n;
  }
  size_t size = c * kPoolGrain;
  if (static_cast<size_t>(pool_end - pool_cursor) >= size) {
    void* p = pool_cursor;
    pool_cursor += size;
    return p;
  }
  return pool_refill(c);
}

void pool_deallocate(void* p, size_t bytes) {
  size_t c = (bytes + kPoolGrain - 1) / kPoolGrain;
  if (c == 0 || c > kPoolClasses) return ::operator delete(p);
  FreeNode* n = static_cast<FreeNode*>(p);
  n->next = pool_free_lists[c - 1];
  pool_free_lists[c - 1] = n;
}

template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding, as allocate_shared does
  T* allocate(size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { pool_deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const {
    return false;
  }
};

// std::make_shared for IR nodes, in pooled memory.
template <typename T, typename... A>
std::shared_ptr<T> make_node(A&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<A>(args)...);
}

bool is_compare(ExprKind k) { return k >= ExprKind::kEQ && k <= ExprKind::kGE; }
bool is_logical(ExprKind k) { return k == ExprKind::kAnd || k == ExprKind::kOr; }
}  // namespace

Expr::Expr(int value) : Expr(make_int(value)) {}

Var::Var(const std::string& name, DType t)
    : Expr(make_node<VarNode>(name, t, next_var_id.fetch_add(1))) {}
Var Var::size(const std::string& name, DType t) {
  return Var(Expr(make_node<VarNode>(name, t, next_var_id.fetch_add(1), true)));
}
Var::Var(const Expr& e) : Expr(e) { TESSERA_ICHECK(e.as<VarNode>() != nullptr, "not a Var"); }

IterVar make_iter_var(const std::string& name, int64_t min, int64_t extent, IterKind kind) {
  TESSERA_ICHECK(extent >= 0, "iter var ", name, " has negative extent ", extent);
  return make_node<IterVarNode>(IterVarNode{Var(name), min, extent, kind});
}

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Buffer make_buffer(const std::string& name, DType dtype, std::vector<int64_t> shape,
                   const std::string& scope) {
  for (int64_t s : shape) TESSERA_ICHECK(s >= 0, "buffer ", name, " has a negative dimension");
  return make_node<BufferNode>(BufferNode{name, dtype, std::move(shape), scope});
}

Expr make_int(int64_t value, DType t) {
  TESSERA_ICHECK(is_int(t) || t == DType::kBool, "make_int with type ", dtype_name(t));
  return Expr(make_node<IntImmNode>(t, value));
}
Expr make_float(double value, DType t) {
  TESSERA_ICHECK(is_float(t), "make_float with type ", dtype_name(t));
  // A float16 constant is its value rounded to float16 (what it holds in memory and in every
  // computation), so folding and code generation never see an unrepresentable float16.
  if (t == DType::kFloat16) value = round_to_float16(value);
  return Expr(make_node<FloatImmNode>(t, value));
}
Expr make_bool(bool value) { return make_int(value ? 1 : 0, DType::kBool); }
Expr make_const(DType t, double value) {
  if (is_float(t)) return make_float(value, t);
  return make_int(static_cast<int64_t>(value), t);
}

Expr make_cast(DType t, Expr v) {
  TESSERA_ICHECK(v.defined(), "cast of undefined");
  if (v.dtype() == t) return v;
  return Expr(make_node<CastNode>(t, std::move(v)));
}

Expr make_binary(ExprKind k, Expr a, Expr b) {
  TESSERA_ICHECK(a.defined() && b.defined(), "binary op with undefined operand");
  TESSERA_ICHECK(a.dtype() == b.dtype(), "binary op on ", dtype_name(a.dtype()), " and ",
                 dtype_name(b.dtype()));
  DType t = a.dtype();
  if (is_compare(k)) {
    t = DType::kBool;
  } else if (is_logical(k)) {
    TESSERA_ICHECK(a.dtype() == DType::kBool, "logical op on ", dtype_name(a.dtype()));
  }
  return Expr(make_node<BinaryNode>(k, t, std::move(a), std::move(b)));
}

Expr make_not(Expr a) {
  TESSERA_ICHECK(a.dtype() == DType::kBool, "not on ", dtype_name(a.dtype()));
  return Expr(make_node<NotNode>(std::move(a)));
}

Expr make_select(Expr cond, Expr t, Expr f) {
  TESSERA_ICHECK(cond.dtype() == DType::kBool, "select condition is ", dtype_name(cond.dtype()));
  TESSERA_ICHECK(t.dtype() == f.dtype(), "select branches differ");
  return Expr(make_node<SelectNode>(std::move(cond), std::move(t), std::move(f)));
}

Expr make_call(DType t, const std::string& name, std::vector<Expr> args) {
  return Expr(make_node<CallNode>(t, name, std::move(args)));
}

Expr make_buffer_load(Buffer b, std::vector<Expr> indices) {
  for (const Expr& i : indices) TESSERA_ICHECK(i.dtype() == kIndexType, "index type");
  return Expr(make_node<BufferLoadNode>(std::move(b), std::move(indices)));
}

ReduceNode::ReduceNode(ReduceKind c, Expr s, std::vector<IterVar> ax, Expr cond, Expr ini,
                       CommReducer red, int vi)
    : ExprNode(ExprKind::kReduce,
               as_tuple(s) ? as_tuple(s)->args.at(static_cast<size_t>(vi)).dtype() : s.dtype()),
      combiner(c),
      source(std::move(s)),
      axis(std::move(ax)),
      condition(std::move(cond)),
      init(std::move(ini)),
      reducer(std::move(red)),
      value_index(vi) {}

Expr make_reduce(ReduceKind c, Expr source, std::vector<IterVar> axis, Expr condition, Expr init,
                 CommReducer reducer, int value_index) {
  TESSERA_ICHECK(!init.defined() || init.dtype() == source.dtype(), "reduce init type");
  TESSERA_ICHECK((c == ReduceKind::kCustom) == (reducer != nullptr), "custom reducer");
  TESSERA_ICHECK(value_index == 0 || as_tuple(source), "reduce value_index of a single value");
  return Expr(make_node<ReduceNode>(c, std::move(source), std::move(axis), std::move(condition),
                                    std::move(init), std::move(reducer), value_index));
}

Expr make_tuple(std::vector<Expr> fields) {
  TESSERA_ICHECK(!fields.empty(), "empty tuple");
  DType t = fields[0].dtype();
  return make_call(t, kTupleCall, std::move(fields));
}

const CallNode* as_tuple(const Expr& e) {
  const auto* c = e.defined() ? e.as<CallNode>() : nullptr;
  return c && c->name == kTupleCall ? c : nullptr;
}

Stmt make_for(Var v, Expr min, Expr extent, ForKind k, Stmt body) {
  return Stmt(
      make_node<ForNode>(std::move(v), std::move(min), std::move(extent), k, std::move(body)));
}
Stmt make_store(Buffer b, std::vector<Expr> indices, Expr value) {
  TESSERA_ICHECK(value.dtype() == b->dtype, "store of ", dtype_name(value.dtype()), " into ",
                 b->name, " of ", dtype_name(b->dtype));
  return Stmt(make_node<BufferStoreNode>(std::move(b), std::move(indices), std::move(value)));
}
Stmt make_allocate(Buffer b, Stmt body) {
  return Stmt(make_node<AllocateNode>(std::move(b), std::move(body)));
}
Stmt make_seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (const auto* seq = s.as<SeqNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return Stmt();
  if (flat.size() == 1) return flat[0];
  return Stmt(make_node<SeqNode>(std::move(flat)));
}
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  return Stmt(
      make_node<IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case)));
}
Stmt make_let(Var v, Expr value, Stmt body) {
  return Stmt(make_node<LetStmtNode>(std::move(v), std::move(value), std::move(body)));
}
Stmt make_attr(const std::string& key, const std::string& value, Stmt body) {
  return Stmt(make_node<AttrStmtNode>(key, value, std::move(body)));
}
Stmt make_tensorize(TensorIntrin intrin, const std::string& stage, const std::string& axis,
                    Stmt body) {
  TESSERA_ICHECK(intrin && body.defined(), "tensorize region of stage ", stage,
                 " without an intrinsic or a body");
  return Stmt(make_node<TensorizeNode>(std::move(intrin), stage, axis, std::move(body)));
}
Stmt make_extern_call(const std::string& func, std::optional<DType> ret,
                      std::vector<ExternCallArg> args, const std::string& stage) {
  for (const ExternCallArg& a : args) {
    TESSERA_ICHECK((a.buffer != nullptr) != a.value.defined(), "extern call ", func, " of stage ",
                   stage, ": an argument must be a buffer or a value");
  }
  return Stmt(make_node<ExternCallNode>(func, ret, std::move(args), stage));
}

namespace {

// An on-chip operand: scope "sram" (int8) or "acc" (int32); `want` restricts it to one of them.
void check_onchip(const Buffer& b, const char* role, const char* want = nullptr) {
  TESSERA_ICHECK(b, "NPU statement without its ", role, " buffer");
  bool sram = b->scope == "sram", acc = b->scope == "acc";
  TESSERA_ICHECK(sram || acc, "NPU ", role, " '", b->name, "' is in scope '", b->scope,
                 "', not on chip");
  TESSERA_ICHECK(b->dtype == (sram ? DType::kInt8 : DType::kInt32), "NPU ", role, " '", b->name,
                 "' in scope '", b->scope, "' has dtype ", dtype_name(b->dtype));
  TESSERA_ICHECK(!want || b->scope == want, "NPU ", role, " '", b->name, "' is in scope '",
                 b->scope, "', the statement needs '", want, "'");
}
void check_index(const Expr& e, const char* what) {
  TESSERA_ICHECK(e.defined() && e.dtype() == kIndexType, "NPU statement: ", what,
                 " must be an int32 expression");
}

}  // namespace

Stmt make_npu_dma(bool load, Buffer chip, Expr chip_row, int64_t chip_row_stride, Buffer ddr,
                  Expr ddr_offset, int64_t ddr_row_stride, Expr rows, Expr cols, Expr pad_top,
                  Expr pad_bottom, Expr pad_left, Expr pad_right) {
  check_onchip(chip, "DMA on-chip buffer");
  TESSERA_ICHECK(ddr && ddr->scope == "global", "DMA of '", chip->name,
                 "': the DDR side must be a global buffer");
  TESSERA_ICHECK(ddr->dtype == chip->dtype, "DMA between ", dtype_name(ddr->dtype), " '", ddr->name,
                 "' and ", dtype_name(chip->dtype), " '", chip->name, "'");
  TESSERA_ICHECK(chip_row_stride >= 0 && ddr_row_stride >= 0, "DMA of '", chip->name,
                 "' with a negative row stride");
  for (const Expr* e :
       {&chip_row, &ddr_offset, &rows, &cols, &pad_top, &pad_bottom, &pad_left, &pad_right}) {
    check_index(*e, "a DMA field");
  }
  TESSERA_ICHECK(load || (is_const_int(pad_top, 0) && is_const_int(pad_bottom, 0) &&
                          is_const_int(pad_left, 0) && is_const_int(pad_right, 0)),
                 "a DMA store of '", chip->name, "' with padding");
  auto n = make_node<NpuDmaNode>();
  n->load = load;
  n->chip = std::move(chip);
  n->chip_row = std::move(chip_row);
  n->chip_row_stride = chip_row_stride;
  n->ddr = std::move(ddr);
  n->ddr_offset = std::move(ddr_offset);
  n->ddr_row_stride = ddr_row_stride;
  n->rows = std::move(rows);
  n->cols = std::move(cols);
  n->pad_top = std::move(pad_top);
  n->pad_bottom = std::move(pad_bottom);
  n->pad_left = std::move(pad_left);
  n->pad_right = std::move(pad_right);
  return Stmt(n);
}

Stmt make_npu_gemm(bool reset, Buffer acc, Expr acc_row, Buffer inp, Expr inp_row, Buffer wgt,
                   Expr wgt_row) {
  check_onchip(acc, "GEMM accumulator", "acc");
  check_onchip(inp, "GEMM input", "sram");
  check_onchip(wgt, "GEMM weight", "sram");
  check_index(acc_row, "the GEMM accumulator row");
  check_index(inp_row, "the GEMM input row");
  check_index(wgt_row, "the GEMM weight row");
  auto n = make_node<NpuGemmNode>();
  n->reset = reset;
  n->acc = std::move(acc);
  n->acc_row = std::move(acc_row);
  n->inp = std::move(inp);
  n->inp_row = std::move(inp_row);
  n->wgt = std::move(wgt);
  n->wgt_row = std::move(wgt_row);
  return Stmt(n);
}

bool vec_op_takes_immediates_only(npu::VecOp op) {
  return op == npu::VecOp::kRelu || op == npu::VecOp::kClip || op == npu::VecOp::kRequantize;
}

Stmt make_npu_vector(npu::VecOp op, Buffer dst, Expr dst_row, Buffer src, Expr src_row, Buffer src2,
                     Expr src2_row, const NpuVectorImm& imm) {
  const char* name = npu::vec_op_name(op);
  TESSERA_ICHECK(static_cast<int>(op) < npu::kNumVecOps, "unknown vector op ", int(op));
  check_onchip(dst, "vector destination", op == npu::VecOp::kMac ? "acc" : nullptr);
  check_onchip(src, "vector source");
  check_index(dst_row, "the vector destination row");
  check_index(src_row, "the vector source row");
  if (src2) {
    check_onchip(src2, "vector operand");
    check_index(src2_row, "the vector operand row");
    TESSERA_ICHECK(!vec_op_takes_immediates_only(op), "vector ", name,
                   " takes immediates, not operand '", src2->name, "'");
  }
  auto fits_i32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  TESSERA_ICHECK(fits_i32(imm.imm) && fits_i32(imm.imm_hi), "vector ", name, " immediate ", imm.imm,
                 " does not fit in int32");
  TESSERA_ICHECK(op != npu::VecOp::kClip || imm.imm <= imm.imm_hi, "vector clip bounds ", imm.imm,
                 " > ", imm.imm_hi);
  TESSERA_ICHECK(op != npu::VecOp::kRelu || imm.imm == 0, "vector relu with an immediate");
  TESSERA_ICHECK(
      op != npu::VecOp::kRequantize ||
          (imm.shift >= 0 && imm.shift <= 62 && imm.zero_point >= -128 && imm.zero_point <= 127),
      "requantize shift ", imm.shift, " or zero point ", imm.zero_point, " out of range");
  auto n = make_node<NpuVectorNode>();
  n->op = op;
  n->dst = std::move(dst);
  n->dst_row = std::move(dst_row);
  n->src = std::move(src);
  n->src_row = std::move(src_row);
  n->src2 = std::move(src2);
  n->src2_row = n->src2 ? std::move(src2_row) : Expr();
  n->imm = imm.imm;
  n->imm_hi = imm.imm_hi;
  n->shift = imm.shift;
  n->zero_point = imm.zero_point;
  return Stmt(n);
}

Expr operator+(Expr a, Expr b) { return make_binary(ExprKind::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(ExprKind::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(ExprKind::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return make_binary(ExprKind::kDiv, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return make_binary(ExprKind::kMod, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return make_binary(ExprKind::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_binary(ExprKind::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_binary(ExprKind::kGT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_binary(ExprKind::kGE, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return make_binary(ExprKind::kAnd, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return make_binary(ExprKind::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(ExprKind::kMax, std::move(a), std::move(b)); }

const int64_t* as_const_int(const Expr& e) {
  const auto* n = e.as<IntImmNode>();
  return n ? &n->value : nullptr;
}
bool is_const_int(const Expr& e, int64_t value) {
  const int64_t* v = as_const_int(e);
  return v && *v == value;
}

const char* infix_symbol(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd:
      return "+";
    case ExprKind::kSub:
      return "-";
    case ExprKind::kMul:
      return "*";
    case ExprKind::kDiv:
      return "/";
    case ExprKind::kMod:
      return "%";
    case ExprKind::kEQ:
      return "==";
    case ExprKind::kNE:
      return "!=";
    case ExprKind::kLT:
      return "<";
    case ExprKind::kLE:
      return "<=";
    case ExprKind::kGT:
      return ">";
    case ExprKind::kGE:
      return ">=";
    case ExprKind::kAnd:
      return "&&";
    case ExprKind::kOr:
      return "||";
    default:
      return nullptr;
  }
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
  }
  return "?";
}
const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "sum";
    case ReduceKind::kMax:
      return "max";
    case ReduceKind::kMin:
      return "min";
    case ReduceKind::kCustom:
      return "comm_reducer";
  }
  return "?";
}

}  // namespace tessera
