#include "runtime/npu/isa.h"

#include <sstream>

namespace tessera::npu {
namespace {

const char* mem_name(Mem m) { return m == Mem::kAcc ? "acc" : "sram"; }

std::string affine(const char* mem, const Affine& a) {
  std::ostringstream os;
  os << mem << "[" << a.base << "+" << a.stride0 << "i+" << a.stride1 << "j]";
  return os.str();
}

std::string deps_text(const Deps& d) {
  std::string s;
  auto add = [&s](bool on, const char* name) {
    if (!on) return;
    s += s.empty() ? " deps=" : ",";
    s += name;
  };
  add(d.pop_prev, "pop_prev");
  add(d.pop_next, "pop_next");
  add(d.push_prev, "push_prev");
  add(d.push_next, "push_next");
  return s;
}

}  // namespace

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::kLoad:
      return "load";
    case Opcode::kStore:
      return "store";
    case Opcode::kGemm:
      return "gemm";
    case Opcode::kVector:
      return "vector";
    case Opcode::kSync:
      return "sync";
    case Opcode::kFinish:
      return "finish";
  }
  return "unknown";
}

const char* vec_op_name(VecOp op) {
  switch (op) {
    case VecOp::kAdd:
      return "add";
    case VecOp::kSub:
      return "sub";
    case VecOp::kMul:
      return "mul";
    case VecOp::kMin:
      return "min";
    case VecOp::kMax:
      return "max";
    case VecOp::kRelu:
      return "relu";
    case VecOp::kShr:
      return "shr";
    case VecOp::kClip:
      return "clip";
    case VecOp::kRequantize:
      return "requantize";
    case VecOp::kMac:
      return "mac";
  }
  return "unknown";
}

const char* queue_name(Queue q) {
  switch (q) {
    case Queue::kLoad:
      return "load";
    case Queue::kCompute:
      return "compute";
    case Queue::kStore:
      return "store";
  }
  return "unknown";
}

std::string disassemble(const Insn& insn) {
  std::ostringstream os;
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      const Dma& d = insn.dma;
      bool load = insn.opcode == Opcode::kLoad;
      os << (load ? "load " : "store ") << mem_name(d.mem) << "[" << d.sram_addr
         << "] stride=" << d.sram_stride << (load ? " <- " : " -> ") << "ddr[" << d.ddr_addr
         << "] ddr_stride=" << d.ddr_stride << " size=" << d.rows << "x" << d.cols;
      if (d.pad_top || d.pad_bottom || d.pad_left || d.pad_right)
        os << " pad=" << int(d.pad_top) << "," << int(d.pad_bottom) << "," << int(d.pad_left) << ","
           << int(d.pad_right);
      break;
    }
    case Opcode::kGemm: {
      const Gemm& g = insn.gemm;
      os << "gemm" << (g.reset ? " reset" : "") << " ext=" << g.ext0 << "x" << g.ext1 << " "
         << affine("acc", g.acc) << " " << affine("inp", g.inp) << " " << affine("wgt", g.wgt);
      break;
    }
    case Opcode::kVector: {
      const Vector& v = insn.vec;
      os << "vector." << vec_op_name(v.op) << " ext=" << v.ext0 << "x" << v.ext1 << " "
         << affine(mem_name(v.dst_mem), v.dst) << " <- " << affine(mem_name(v.src_mem), v.src);
      if (v.op == VecOp::kRequantize) {
        os << " mult=" << v.imm << " shift=" << int(v.shift) << " zp=" << int(v.zero_point);
      } else if (v.op == VecOp::kClip) {
        os << " lo=" << v.imm << " hi=" << v.imm_hi;
      } else if (v.op != VecOp::kRelu) {
        if (v.use_imm)
          os << " imm=" << v.imm;
        else
          os << " " << affine(mem_name(v.src2_mem), v.src2);
      }
      break;
    }
    case Opcode::kSync:
      os << "sync " << queue_name(insn.sync_queue);
      break;
    case Opcode::kFinish:
      os << "finish";
      break;
    default:
      os << "unknown opcode " << int(static_cast<uint8_t>(insn.opcode));
      break;
  }
  os << deps_text(insn.deps);
  return os.str();
}

}  // namespace tessera::npu
