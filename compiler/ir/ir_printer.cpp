#include "compiler/ir/ir_printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compiler/ir/ir_visitor.h"

namespace tessera {

const std::string& NameTable::name_of(const Var& v) {
  auto it = by_var_.find(v.id());
  if (it != by_var_.end()) return it->second;
  return by_var_.emplace(v.id(), unique(v.name())).first->second;
}

std::string NameTable::unique(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  if (sanitize_) {
    for (char& c : base) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    }
    if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
  }
  if (!used_.count(base)) {
    used_[base] = 1;
    return base;
  }
  std::string name;
  do {
    name = base + "_" + std::to_string(used_[base]++);
  } while (used_.count(name));
  used_[name] = 1;
  return name;
}

std::string format_float(double v, DType t) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, t == DType::kFloat32 ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return t == DType::kFloat32 ? s + "f" : s;
}

namespace {

class Printer : public IRVisitor {
 public:
  explicit Printer(std::ostream& os, int depth = 0) : os_(os), depth_(depth) {}
  using IRVisitor::visit;

 protected:
  void indent() { os_ << std::string(2 * depth_, ' '); }
  void print_indices(const std::vector<Expr>& idx) {
    os_ << "[";
    for (size_t i = 0; i < idx.size(); ++i) {
      if (i) os_ << ", ";
      visit(idx[i]);
    }
    os_ << "]";
  }
  void visit_IntImm(const IntImmNode* op, const Expr&) override {
    if (op->dtype == kIndexType) {
      os_ << op->value;
    } else if (op->dtype == DType::kBool) {
      os_ << (op->value ? "true" : "false");
    } else {
      os_ << dtype_name(op->dtype) << "(";
      if (op->dtype == DType::kUInt64) {
        os_ << static_cast<uint64_t>(op->value);  // the bit pattern's unsigned value
      } else {
        os_ << op->value;
      }
      os_ << ")";
    }
  }
  void visit_FloatImm(const FloatImmNode* op, const Expr&) override {
    if (op->dtype == DType::kFloat16) {
      os_ << "float16(" << format_float(op->value, DType::kFloat64) << ")";
    } else {
      os_ << format_float(op->value, op->dtype);
    }
  }
  void visit_Var(const VarNode*, const Expr& e) override { os_ << names_.name_of(Var(e)); }
  void visit_Cast(const CastNode* op, const Expr&) override {
    os_ << dtype_name(op->dtype) << "(";
    visit(op->value);
    os_ << ")";
  }
  void binary(const BinaryNode* op) {
    if (const char* sym = infix_symbol(op->kind)) {
      os_ << "(";
      visit(op->a);
      os_ << " " << sym << " ";
      visit(op->b);
      os_ << ")";
    } else {
      os_ << (op->kind == ExprKind::kMin ? "min(" : "max(");
      visit(op->a);
      os_ << ", ";
      visit(op->b);
      os_ << ")";
    }
  }
  void visit_Add(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Sub(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Mul(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Div(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Mod(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Min(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Max(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_EQ(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_NE(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_LT(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_LE(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_GT(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_GE(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_And(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Or(const BinaryNode* op, const Expr&) override { binary(op); }
  void visit_Not(const NotNode* op, const Expr&) override {
    os_ << "!";
    visit(op->a);
  }
  void visit_Select(const SelectNode* op, const Expr&) override {
    os_ << "select(";
    visit(op->cond);
    os_ << ", ";
    visit(op->true_value);
    os_ << ", ";
    visit(op->false_value);
    os_ << ")";
  }
  void visit_Call(const CallNode* op, const Expr&) override {
    os_ << op->name << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (i) os_ << ", ";
      visit(op->args[i]);
    }
    os_ << ")";
  }
  void visit_ProducerLoad(const ProducerLoadNode* op, const Expr&) override;
  void visit_BufferLoad(const BufferLoadNode* op, const Expr&) override {
    os_ << op->buffer->name;
    print_indices(op->indices);
  }
  void visit_Reduce(const ReduceNode* op, const Expr&) override {
    os_ << (op->reducer ? op->reducer->name.c_str() : reduce_kind_name(op->combiner)) << "(";
    visit(op->source);
    os_ << ", axis=[";
    for (size_t i = 0; i < op->axis.size(); ++i) {
      if (i) os_ << ", ";
      os_ << names_.name_of(op->axis[i]->var) << ":" << op->axis[i]->min << ".."
          << op->axis[i]->min + op->axis[i]->extent;
    }
    os_ << "]";
    if (op->condition.defined()) {
      os_ << ", where=";
      visit(op->condition);
    }
    if (op->init.defined()) {
      os_ << ", init=";
      visit(op->init);
    }
    os_ << ")";
    if (as_tuple(op->source)) os_ << "[" << op->value_index << "]";
  }

  void visit_For(const ForNode* op, const Stmt&) override {
    indent();
    os_ << "for (" << names_.name_of(op->var) << ", ";
    visit(op->min);
    os_ << ", ";
    visit(op->extent);
    os_ << ")";
    if (op->for_kind != ForKind::kSerial) os_ << " " << for_kind_name(op->for_kind);
    os_ << " {\n";
    block(op->body);
  }
  void visit_BufferStore(const BufferStoreNode* op, const Stmt&) override {
    indent();
    os_ << op->buffer->name;
    print_indices(op->indices);
    os_ << " = ";
    visit(op->value);
    os_ << "\n";
  }
  void visit_Allocate(const AllocateNode* op, const Stmt&) override {
    indent();
    os_ << "allocate " << op->buffer->name << "[" << dtype_name(op->buffer->dtype);
    for (int64_t s : op->buffer->shape) os_ << " * " << s;
    os_ << "] in " << op->buffer->scope << " {\n";
    block(op->body);
  }
  void visit_Seq(const SeqNode* op, const Stmt&) override {
    for (const Stmt& s : op->stmts) visit(s);
  }
  void visit_IfThenElse(const IfThenElseNode* op, const Stmt&) override {
    indent();
    // A binary condition prints its own parentheses.
    bool bare = op->cond.as<BinaryNode>() != nullptr;
    os_ << (bare ? "if " : "if (");
    visit(op->cond);
    os_ << (bare ? " {\n" : ") {\n");
    block(op->then_case, op->else_case.defined() ? "} else {\n" : "}\n");
    if (op->else_case.defined()) block(op->else_case);
  }
  void visit_LetStmt(const LetStmtNode* op, const Stmt&) override {
    indent();
    os_ << "let " << names_.name_of(op->var) << " = ";
    visit(op->value);
    os_ << "\n";
    visit(op->body);
  }
  void visit_AttrStmt(const AttrStmtNode* op, const Stmt&) override {
    indent();
    os_ << "// " << op->key << " " << op->value << "\n";
    visit(op->body);
  }
  void visit_Tensorize(const TensorizeNode* op, const Stmt&) override;
  void row(const Buffer& b, const Expr& r) {
    os_ << b->name << ".row[";
    visit(r);
    os_ << "]";
  }
  void visit_NpuDma(const NpuDmaNode* op, const Stmt&) override {
    indent();
    os_ << "npu.dma_" << (op->load ? "load " : "store ");
    row(op->chip, op->chip_row);
    os_ << " stride " << op->chip_row_stride << (op->load ? " <- " : " -> ") << op->ddr->name
        << "[";
    visit(op->ddr_offset);
    os_ << "] stride " << op->ddr_row_stride << ", ";
    visit(op->rows);
    os_ << " x ";
    visit(op->cols);
    os_ << " units";
    if (!is_const_int(op->pad_top, 0) || !is_const_int(op->pad_bottom, 0) ||
        !is_const_int(op->pad_left, 0) || !is_const_int(op->pad_right, 0)) {
      os_ << ", pad ";
      visit(op->pad_top);
      os_ << " ";
      visit(op->pad_bottom);
      os_ << " ";
      visit(op->pad_left);
      os_ << " ";
      visit(op->pad_right);
    }
    os_ << "\n";
  }
  void visit_NpuGemm(const NpuGemmNode* op, const Stmt&) override {
    indent();
    os_ << "npu.gemm" << (op->reset ? ".reset " : " ");
    row(op->acc, op->acc_row);
    os_ << (op->reset ? " = " : " += ");
    row(op->inp, op->inp_row);
    os_ << " x ";
    row(op->wgt, op->wgt_row);
    os_ << "\n";
  }
  void visit_NpuVector(const NpuVectorNode* op, const Stmt&) override {
    indent();
    os_ << "npu.vector." << npu::vec_op_name(op->op) << " ";
    row(op->dst, op->dst_row);
    os_ << (op->op == npu::VecOp::kMac ? " += " : " = ");
    row(op->src, op->src_row);
    if (op->src2) {
      os_ << (op->op == npu::VecOp::kMac ? " x " : ", ");
      row(op->src2, op->src2_row);
    } else if (op->op == npu::VecOp::kRequantize) {
      os_ << ", mul " << op->imm << " shift " << op->shift << " zp " << op->zero_point;
    } else if (op->op == npu::VecOp::kClip) {
      os_ << ", " << op->imm << ".." << op->imm_hi;
    } else if (op->op != npu::VecOp::kRelu) {
      os_ << ", " << op->imm;
    }
    os_ << "\n";
  }
  void visit_ExternCall(const ExternCallNode* op, const Stmt&) {
    indent();
    os_ << "call_extern " << (op->ret ? dtype_name(*op->ret) : "void") << " " << op->func << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      os_ << (i ? ", " : "");
      if (op->args[i].buffer) {
        os_ << op->args[i].buffer->name;
      } else {
        visit(op->args[i].value);
      }
    }
    os_ << ")  // stage " << op->stage << "\n";
  }
  void block(const Stmt& body, const char* close = "}\n") {
    ++depth_;
    visit(body);
    --depth_;
    indent();
    os_ << close;
  }

  std::ostream& os_;
  int depth_;
  NameTable names_;
};

}  // namespace

}  // namespace tessera

// ProducerLoad needs the operation's name, which lives in the tensor-expression layer, and
// Tensorize the intrinsic's, which lives with the schedule.
#include "compiler/te/operation.h"
#include "schedule/tensor_intrin.h"

namespace tessera {
namespace {
void Printer::visit_ProducerLoad(const ProducerLoadNode* op, const Expr&) {
  os_ << op->op->name;
  print_indices(op->indices);
}
void Printer::visit_Tensorize(const TensorizeNode* op, const Stmt&) {
  indent();
  os_ << "tensorize " << op->intrin->name << " at " << op->axis << " {  // stage " << op->stage
      << "\n";
  block(op->body);
}
}  // namespace

std::string to_string(const Expr& e) {
  std::ostringstream os;
  Printer p(os);
  p.visit(e);
  return os.str();
}
std::string to_string(const Stmt& s, int indent) {
  std::ostringstream os;
  Printer p(os, indent);
  p.visit(s);
  return os.str();
}
std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }
std::ostream& operator<<(std::ostream& os, const Stmt& s) { return os << to_string(s); }

}  // namespace tessera
