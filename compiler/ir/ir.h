// The loop IR: expressions and statements as plain immutable structs (Halide's way).
//
// Every node kind is listed once in ir.def. A node carries a kind tag instead of RTTI; handles
// (Expr, Stmt) are shared pointers to const nodes, so IR is shared freely and never mutated.
// Nodes are built with the make_* functions below, which check invariants (operand types agree;
// the tensor-expression layer in compiler/te does user-facing type promotion before it gets here).
//
// Semantics worth knowing:
//   * Div and Mod on integers are floor division and floor modulo (the sign of the result of Mod
//     follows the divisor), as in Python and TVM's floordiv/floormod. On floats Div is true
//     division and Mod is a - floor(a / b) * b.
//   * Select evaluates both branches; the condition is bool.
//   * Identity: a Var is its node. Two Vars with the same name are different variables.
//   * Index expressions (loop variables, buffer indices) are int32.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"
#include "runtime/npu/isa.h"

namespace tessera {

enum class ExprKind : uint8_t {
#define TESSERA_EXPR_KIND(kind, node) k##kind,
#include "compiler/ir/ir.def"
};
enum class StmtKind : uint8_t {
#define TESSERA_STMT_KIND(kind, node) k##kind,
#include "compiler/ir/ir.def"
};

constexpr DType kIndexType = DType::kInt32;

struct ExprNode {
  ExprKind kind;
  DType dtype;
  ExprNode(ExprKind k, DType t) : kind(k), dtype(t) {}
  virtual ~ExprNode() = default;
};
struct StmtNode {
  StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

// A handle to an immutable expression node (may be null: `defined()` tells).
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}
  Expr(int value);  // NOLINT: int32 constant, so that index arithmetic reads naturally
  bool defined() const { return node_ != nullptr; }
  ExprKind kind() const { return node_->kind; }
  DType dtype() const { return node_->dtype; }
  const ExprNode* get() const { return node_.get(); }
  // The node as T when its kind is T's, else nullptr.
  template <typename T>
  const T* as() const {
    return node_ && T::matches(node_->kind) ? static_cast<const T*>(node_.get()) : nullptr;
  }
  bool same_as(const Expr& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}
  bool defined() const { return node_ != nullptr; }
  StmtKind kind() const { return node_->kind; }
  const StmtNode* get() const { return node_.get(); }
  template <typename T>
  const T* as() const {
    return node_ && T::matches(node_->kind) ? static_cast<const T*>(node_.get()) : nullptr;
  }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// ---- variables, iteration variables, buffers --------------------------------------------------

struct VarNode : ExprNode {
  std::string name;
  uint64_t id;  // creation order; for ordered maps keyed by variable, never printed
  // A size variable (te.var / te.size_var): a symbolic tensor extent, bound to a number when a
  // kernel is called (schedule/specialize.h); usable in shapes and in compute bodies.
  bool size_var = false;
  VarNode(std::string n, DType t, uint64_t i, bool size = false)
      : ExprNode(ExprKind::kVar, t), name(std::move(n)), id(i), size_var(size) {}
  static bool matches(ExprKind k) { return k == ExprKind::kVar; }
};

// A variable: an Expr whose node is a VarNode.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(const std::string& name, DType t = kIndexType);
  explicit Var(const Expr& e);  // e must be a Var node
  // A size variable (VarNode::size_var) of integer type t.
  static Var size(const std::string& name, DType t = kIndexType);
  const VarNode* node() const { return as<VarNode>(); }
  const std::string& name() const { return node()->name; }
  uint64_t id() const { return node()->id; }
};
// Orders variables by creation: for std::map keys (deterministic for a deterministic builder).
// Transparent: a map keyed by Var can be searched with a VarNode* (no handle copied).
struct VarLess {
  using is_transparent = void;
  bool operator()(const Var& a, const Var& b) const { return a.id() < b.id(); }
  bool operator()(const Var& a, const VarNode* b) const { return a.id() < b->id; }
  bool operator()(const VarNode* a, const Var& b) const { return a->id < b.id(); }
};

enum class IterKind : uint8_t { kDataPar, kReduce };

// An iteration variable: a variable with a constant domain [min, min + extent).
// An axis of a symbolic extent (a shape dimension or reduce_axis extent that uses size variables)
// keeps it in `sym_extent`; `extent` is then a stand-in (1) that only schedule primitives see:
// lowering works on a specialization where every extent is a number (schedule/specialize.h).
struct IterVarNode {
  Var var;
  int64_t min;
  int64_t extent;
  IterKind kind;
  Expr sym_extent = Expr();  // undefined when `extent` is the extent
};
using IterVar = std::shared_ptr<const IterVarNode>;
IterVar make_iter_var(const std::string& name, int64_t min, int64_t extent, IterKind kind);

// A named, typed, dense row-major array with a constant shape in a memory scope
// ("global", "local"; the NPU adds "sram" and "acc").
struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  std::string scope;
  int64_t num_elements() const;
};
using Buffer = std::shared_ptr<const BufferNode>;
Buffer make_buffer(const std::string& name, DType dtype, std::vector<int64_t> shape,
                   const std::string& scope = "global");

struct OperationNode;  // a tensor-expression operation (compiler/te/operation.h)
using Operation = std::shared_ptr<const OperationNode>;
struct TensorIntrinNode;  // a tensor intrinsic declaration (schedule/tensor_intrin.h)
using TensorIntrin = std::shared_ptr<const TensorIntrinNode>;

// ---- expression nodes ---------------------------------------------------------------------------

struct IntImmNode : ExprNode {
  int64_t value;
  IntImmNode(DType t, int64_t v) : ExprNode(ExprKind::kIntImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::kIntImm; }
};
struct FloatImmNode : ExprNode {
  double value;
  FloatImmNode(DType t, double v) : ExprNode(ExprKind::kFloatImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::kFloatImm; }
};
struct CastNode : ExprNode {
  Expr value;
  CastNode(DType t, Expr v) : ExprNode(ExprKind::kCast, t), value(std::move(v)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kCast; }
};
// Add .. Or: two operands; comparisons and logical operators have dtype bool.
struct BinaryNode : ExprNode {
  Expr a, b;
  BinaryNode(ExprKind k, DType t, Expr x, Expr y)
      : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
  static bool matches(ExprKind k) { return k >= ExprKind::kAdd && k <= ExprKind::kOr; }
};
struct NotNode : ExprNode {
  Expr a;
  explicit NotNode(Expr x) : ExprNode(ExprKind::kNot, DType::kBool), a(std::move(x)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kNot; }
};
struct SelectNode : ExprNode {
  Expr cond, true_value, false_value;
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(ExprKind::kSelect, t.dtype()),
        cond(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kSelect; }
};
// A pure math function: exp, log, sqrt, tanh, abs, floor, ceil, pow (float); abs (int).
struct CallNode : ExprNode {
  std::string name;
  std::vector<Expr> args;
  CallNode(DType t, std::string n, std::vector<Expr> a)
      : ExprNode(ExprKind::kCall, t), name(std::move(n)), args(std::move(a)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kCall; }
};
// Reads an element of a tensor-expression operation's output (before lowering).
struct ProducerLoadNode : ExprNode {
  Operation op;
  std::vector<Expr> indices;
  ProducerLoadNode(DType t, Operation o, std::vector<Expr> i)
      : ExprNode(ExprKind::kProducerLoad, t), op(std::move(o)), indices(std::move(i)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kProducerLoad; }
};
// Reads an element of a buffer (after lowering). After flatten_storage: one index.
struct BufferLoadNode : ExprNode {
  Buffer buffer;
  std::vector<Expr> indices;
  BufferLoadNode(Buffer b, std::vector<Expr> i)
      : ExprNode(ExprKind::kBufferLoad, b->dtype), buffer(std::move(b)), indices(std::move(i)) {}
  static bool matches(ExprKind k) { return k == ExprKind::kBufferLoad; }
};
enum class ReduceKind : uint8_t { kSum, kMax, kMin, kCustom };
// A user's commutative reducer (TVM's te.comm_reducer), for kCustom: `combine[j]` is an expression
// over `lhs` (the accumulated values) and `rhs` (new values) giving value j of the combination,
// `identity[j]` its neutral value. One value (arity 1) for a reducer of single values; more for
// a reducer over tuples (argmax: an index and a value reduced together, TVM's tuple reducers).
struct CommReducerNode {
  std::string name;
  std::vector<Var> lhs, rhs;
  std::vector<Expr> combine;
  std::vector<Expr> identity;
  size_t arity() const { return combine.size(); }
};
using CommReducer = std::shared_ptr<const CommReducerNode>;
// A commutative reduction of `source` over `axis` (only at the top of a compute body).
// Points where `condition` is false do not contribute. `init` (TVM's init=), when defined, is
// the value the reduction starts from instead of the combiner's identity; it may use the
// compute's data axes and read tensors, but not the reduce axes.
struct ReduceNode : ExprNode {
  ReduceKind combiner;
  Expr source;          // a tuple (make_tuple) for a tuple reducer: one source per value
  std::vector<IterVar> axis;
  Expr condition;       // bool, or undefined for "always"
  Expr init;            // source's type, or undefined for the identity
  CommReducer reducer;  // kCustom only
  // A tuple reduction is one reduction with several results (TVM's Reduce.value_index): this
  // node stands for result `value_index` and has its type.
  int value_index = 0;
  ReduceNode(ReduceKind c, Expr s, std::vector<IterVar> ax, Expr cond, Expr ini = Expr(),
             CommReducer red = nullptr, int vi = 0);
  static bool matches(ExprKind k) { return k == ExprKind::kReduce; }
};

// ---- statement nodes ----------------------------------------------------------------------------

enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled };

struct ForNode : StmtNode {
  Var var;
  Expr min, extent;
  ForKind for_kind;
  Stmt body;
  ForNode(Var v, Expr m, Expr e, ForKind k, Stmt b)
      : StmtNode(StmtKind::kFor),
        var(std::move(v)),
        min(std::move(m)),
        extent(std::move(e)),
        for_kind(k),
        body(std::move(b)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kFor; }
};
struct BufferStoreNode : StmtNode {
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  BufferStoreNode(Buffer b, std::vector<Expr> i, Expr v)
      : StmtNode(StmtKind::kBufferStore),
        buffer(std::move(b)),
        indices(std::move(i)),
        value(std::move(v)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kBufferStore; }
};
// Declares `buffer` (not an argument of the kernel) for the duration of `body`.
struct AllocateNode : StmtNode {
  Buffer buffer;
  Stmt body;
  AllocateNode(Buffer b, Stmt s)
      : StmtNode(StmtKind::kAllocate), buffer(std::move(b)), body(std::move(s)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kAllocate; }
};
struct SeqNode : StmtNode {
  std::vector<Stmt> stmts;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(StmtKind::kSeq), stmts(std::move(s)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kSeq; }
};
struct IfThenElseNode : StmtNode {
  Expr cond;
  Stmt then_case, else_case;  // else_case may be undefined
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(StmtKind::kIfThenElse),
        cond(std::move(c)),
        then_case(std::move(t)),
        else_case(std::move(e)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kIfThenElse; }
};
struct LetStmtNode : StmtNode {
  Var var;
  Expr value;
  Stmt body;
  LetStmtNode(Var v, Expr x, Stmt b)
      : StmtNode(StmtKind::kLetStmt), var(std::move(v)), value(std::move(x)), body(std::move(b)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kLetStmt; }
};
// An annotation around `body`: key "produce" (value = stage name), "pragma_<key>" (value = the
// pragma's value), "reduce_init" (value = stage name: the init nest of a tensorized reduction,
// which the tensorize pass drops when the intrinsic's reset form replaces it), "double_buffer"
// (value = buffer name), and target-specific keys added by later passes.
struct AttrStmtNode : StmtNode {
  std::string key;
  std::string value;
  Stmt body;
  AttrStmtNode(std::string k, std::string v, Stmt b)
      : StmtNode(StmtKind::kAttrStmt), key(std::move(k)), value(std::move(v)), body(std::move(b)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kAttrStmt; }
};

// The loops under a stage's tensorize axis, as schedule_ops builds them (a perfect nest around the
// update `buf[idx] = buf[idx] + source`), marked for the tensorize pass, which proves that they
// compute `intrin`'s declared computation and replaces them by the instruction it becomes.
// `stage` and `axis` name the user's objects in messages. No Tensorize node survives lowering.
struct TensorizeNode : StmtNode {
  TensorIntrin intrin;
  std::string stage, axis;
  Stmt body;
  TensorizeNode(TensorIntrin i, std::string st, std::string ax, Stmt b)
      : StmtNode(StmtKind::kTensorize),
        intrin(std::move(i)),
        stage(std::move(st)),
        axis(std::move(ax)),
        body(std::move(b)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kTensorize; }
};

// A call of a user's C function, an extern stage's whole work (compiler/te/extern_op.h): each
// argument is a buffer (the function gets its data pointer) or a scalar expression. `ret` is the
// function's return type; an integer return is a status (nonzero: the kernel fails). `stage`
// names the user's stage in messages. Only the C backend takes it.
struct ExternCallArg {
  Buffer buffer;  // null for a scalar
  Expr value;
  bool output = false;  // the buffer is the stage's output (the function writes it)
};
struct ExternCallNode : StmtNode {
  std::string func;
  std::optional<DType> ret;  // none: void
  std::vector<ExternCallArg> args;
  std::string stage;
  ExternCallNode(std::string f, std::optional<DType> r, std::vector<ExternCallArg> a,
                 std::string st)
      : StmtNode(StmtKind::kExternCall),
        func(std::move(f)),
        ret(r),
        args(std::move(a)),
        stage(std::move(st)) {}
  static bool matches(StmtKind k) { return k == StmtKind::kExternCall; }
};

// ---- NPU statements -----------------------------------------------------------------------------
// Produced by NPU lowering, consumed by codegen/npu. On-chip buffers ("sram": int8, "acc": int32)
// are addressed in rows of B elements, B the target's block (npu::Target::block(): the MAC array's
// side, one SRAM row, one accumulator row); a buffer's row r is its elements [r * B, (r + 1) * B).
// The statements do not hold B: the target given to lower() and codegen does. Row expressions may
// use loop variables: codegen/npu folds affine loops around a GEMM or vector statement into the
// instruction's two loop levels and unrolls every other loop.

// DMA between a global buffer (DDR) and an on-chip buffer: `rows` rows of `cols` units each
// (a unit is one on-chip row of B elements). DDR row r starts at element
// ddr_offset + r * ddr_row_stride and holds cols * B contiguous elements; on chip, row r
// starts at chip_row + r * chip_row_stride (rows of the chip buffer). A load may add zero units
// around the region (pad_*), written on chip without DDR traffic: the on-chip block then covers
// (pad_top + rows + pad_bottom) x (pad_left + cols + pad_right) units starting at chip_row.
// rows, cols and the pads are expressions because they may depend on the tile (an edge tile of
// a padded convolution has padding, an inner one has none); like the addresses they are
// constants once the loops around the statement are unrolled.
struct NpuDmaNode : StmtNode {
  bool load;
  Buffer chip;
  Expr chip_row;
  int64_t chip_row_stride;
  Buffer ddr;
  Expr ddr_offset;
  int64_t ddr_row_stride;
  Expr rows, cols;
  Expr pad_top = Expr(0), pad_bottom = Expr(0), pad_left = Expr(0), pad_right = Expr(0);
  NpuDmaNode() : StmtNode(StmtKind::kNpuDma) {}
  static bool matches(StmtKind k) { return k == StmtKind::kNpuDma; }
};

// One MAC-array step: for o in [0, B): acc[acc_row][o] (reset ? = : +=)
//   sum over i in [0, B) of inp[inp_row][i] * wgt[wgt_row + o][i]   (int8 x int8 -> int32).
struct NpuGemmNode : StmtNode {
  bool reset;
  Buffer acc;
  Expr acc_row;
  Buffer inp;
  Expr inp_row;
  Buffer wgt;
  Expr wgt_row;
  NpuGemmNode() : StmtNode(StmtKind::kNpuGemm) {}
  static bool matches(StmtKind k) { return k == StmtKind::kNpuGemm; }
};

// One vector-unit row operation: dst[dst_row][l] = op(src[src_row][l], operand[l]) for each lane,
// operand = src2[src2_row][l] when src2 is set, else the immediate. The op is the ISA's
// (npu::VecOp) from lowering to instruction selection. Ops and saturation as in docs/npu_isa.md:
// add, sub, mul, min, max, relu, shr, clip (imm..imm_hi), requantize (imm = multiplier, shift,
// zero_point), mac (dst += src * operand, into the accumulator, wrapping like the MAC array).
struct NpuVectorNode : StmtNode {
  npu::VecOp op = npu::VecOp::kAdd;
  Buffer dst;
  Expr dst_row;
  Buffer src;
  Expr src_row;
  Buffer src2;  // null: immediate operand
  Expr src2_row;
  int64_t imm = 0, imm_hi = 0;
  int64_t shift = 0, zero_point = 0;
  NpuVectorNode() : StmtNode(StmtKind::kNpuVector) {}
  static bool matches(StmtKind k) { return k == StmtKind::kNpuVector; }
};

// ---- constructors (check invariants; throw InternalError on misuse) ---------------------------

Expr make_int(int64_t value, DType t = kIndexType);
Expr make_float(double value, DType t = DType::kFloat32);
Expr make_bool(bool value);
// The constant `value` in type t (int or float).
Expr make_const(DType t, double value);
Expr make_cast(DType t, Expr v);  // no-op when v already has type t
Expr make_binary(ExprKind k, Expr a, Expr b);
Expr make_not(Expr a);
Expr make_select(Expr cond, Expr t, Expr f);
Expr make_call(DType t, const std::string& name, std::vector<Expr> args);
Expr make_producer_load(Operation op, std::vector<Expr> indices);
Expr make_buffer_load(Buffer b, std::vector<Expr> indices);
Expr make_reduce(ReduceKind c, Expr source, std::vector<IterVar> axis, Expr condition,
                 Expr init = Expr(), CommReducer reducer = nullptr, int value_index = 0);
// A tuple of values: the sources of a tuple reduction, the bodies of a multi-output compute.
// Only tensor expressions hold tuples; lowering takes them apart (a tuple never reaches codegen).
// It is a Call named kTupleCall with the type of its first field.
inline constexpr const char* kTupleCall = "tuple";
Expr make_tuple(std::vector<Expr> fields);
// The tuple's node, or nullptr when `e` is not a tuple.
const CallNode* as_tuple(const Expr& e);

Stmt make_for(Var v, Expr min, Expr extent, ForKind k, Stmt body);
Stmt make_store(Buffer b, std::vector<Expr> indices, Expr value);
Stmt make_allocate(Buffer b, Stmt body);
// Flattens nested sequences and drops undefined entries; a single statement is returned as is.
Stmt make_seq(std::vector<Stmt> stmts);
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt make_let(Var v, Expr value, Stmt body);
Stmt make_attr(const std::string& key, const std::string& value, Stmt body);
Stmt make_tensorize(TensorIntrin intrin, const std::string& stage, const std::string& axis,
                    Stmt body);
// Each argument has exactly one of buffer and value.
Stmt make_extern_call(const std::string& func, std::optional<DType> ret,
                      std::vector<ExternCallArg> args, const std::string& stage);

// NPU statements. The checks are invariants every producer (lowering, hand-built tests) must
// keep: on-chip operands in scope "sram" (int8) or "acc" (int32) as the statement needs, the DDR
// side of a DMA in scope "global" with the chip buffer's dtype, row expressions int32, strides and
// immediates in the instruction's ranges. Violations are InternalErrors.
Stmt make_npu_dma(bool load, Buffer chip, Expr chip_row, int64_t chip_row_stride, Buffer ddr,
                  Expr ddr_offset, int64_t ddr_row_stride, Expr rows, Expr cols,
                  Expr pad_top = Expr(0), Expr pad_bottom = Expr(0), Expr pad_left = Expr(0),
                  Expr pad_right = Expr(0));
Stmt make_npu_gemm(bool reset, Buffer acc, Expr acc_row, Buffer inp, Expr inp_row, Buffer wgt,
                   Expr wgt_row);
// The immediates of a vector op (unused fields 0): the scalar operand (clip: low bound,
// requantize: multiplier), clip's high bound, requantize's shift and zero point.
struct NpuVectorImm {
  int64_t imm = 0, imm_hi = 0, shift = 0, zero_point = 0;
};
// src2 null: the immediate form.
Stmt make_npu_vector(npu::VecOp op, Buffer dst, Expr dst_row, Buffer src, Expr src_row,
                     Buffer src2 = nullptr, Expr src2_row = Expr(),
                     const NpuVectorImm& imm = NpuVectorImm());
// relu, clip and requantize take immediates only; mac accumulates into "acc".
bool vec_op_takes_immediates_only(npu::VecOp op);

// Operators for building index arithmetic in C++ (operands must have equal types).
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // floor division
Expr operator%(Expr a, Expr b);  // floor modulo
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);

// The value of an integer constant, or nullptr.
const int64_t* as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t value);

// The infix symbol of a binary operator ("+", "%", "==", "&&"); nullptr for min, max and
// non-binary kinds. The printer, the C backend and error messages share it.
const char* infix_symbol(ExprKind k);
const char* for_kind_name(ForKind k);
const char* reduce_kind_name(ReduceKind k);

}  // namespace tessera
