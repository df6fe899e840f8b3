// Dependency tokens for an NPU program (docs/npu_isa.md section 5), inserted only where needed.
//
// Input: instructions in program order without dependency flags, each with the on-chip rows and
// DDR bytes it reads and writes. For each instruction I and each other queue Q, the latest earlier
// instruction J on Q whose accesses conflict with I's (read-after-write, write-after-read,
// write-after-write on overlapping ranges) must complete before I starts. Nothing is added when
// I's queue already knows J is done, directly or transitively: each queue carries what it knows
// (per queue, the latest instruction known complete), merged from the knowledge of every
// instruction whose token it pops. Otherwise a token J -> I is added:
//   * neighbours (load<->compute, compute<->store): J pushes, I pops;
//   * load<->store: a compute `sync` is inserted just before I; it pops J's token and pushes one
//     to I (the compute queue's order then also covers any compute instruction I waits for).
// Tokens are FIFO: pairs are added in program order of their popper, and a pusher that another
// popper already consumed is already known, so the n-th pop of a direction always meets the n-th
// push. Tokens in flight stay within token_queue_depth: before the k-th push of a direction the
// pusher must know that the (k - depth)-th pop has happened; if it does not, the token comes
// instead from a `sync` on the pusher's queue, placed just before I, that first waits for that
// pop's instruction. Every dependency points backwards in program order, so the fetcher (which
// dispatches in program order) cannot deadlock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "runtime/base/error.h"
#include "runtime/npu/isa.h"
#include "runtime/npu/target.h"

namespace tessera {

// A range an instruction touches: rows of SRAM or of the accumulator, or bytes of DDR.
enum class Space : uint8_t { kSram = 0, kAcc = 1, kDdr = 2 };
struct Access {
  Space space = Space::kSram;
  int64_t lo = 0, hi = 0;  // [lo, hi)
  bool write = false;
};

// At most three ranges per instruction (a GEMM's accumulator, input and weights; a vector's
// destination and two sources; a DMA's two sides), kept inline: one is built per instruction.
class AccessList {
 public:
  AccessList() = default;
  AccessList(std::initializer_list<Access> l) {
    for (const Access& a : l) push_back(a);
  }
  void push_back(const Access& a) {
    TESSERA_ICHECK(n_ < 3, "an NPU instruction touches at most three ranges");
    items_[n_++] = a;
  }
  size_t size() const { return n_; }
  const Access* begin() const { return items_; }
  const Access* end() const { return items_ + n_; }
  const Access& operator[](size_t i) const { return items_[i]; }

 private:
  Access items_[3];
  uint8_t n_ = 0;
};

// An instruction (dependency flags clear) and everything it touches.
struct SelectedInsn {
  npu::Insn insn;
  AccessList accesses;
};

// The program with dependency flags and the syncs they need; `finish` is not appended.
std::vector<npu::Insn> insert_tokens(const std::vector<SelectedInsn>& insns,
                                     const npu::Target& target);

}  // namespace tessera
