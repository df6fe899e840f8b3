// Loop templates for the NPU instruction selector (select_insns.h): a loop whose iterations emit
// the same instructions up to fields that move by a fixed step per iteration is emitted by
// adding those steps, instead of evaluating its body at every iteration.
//
// Nothing is guessed. The loop's first iteration runs normally (first uses of buffers, the
// guards of a first iteration). The next iterations are probes: they run normally too, while
// every value the selector evaluates in them (loop bounds, conditions, lets, DMA fields, row
// bases: int_program.h's eval_affine) is proved affine in the loop's variable over the whole
// remaining range, jointly with the enclosing loops being probed, and every decision (a
// condition, a loop bound, a let, a min/max, a wrap) the same at every point of it; a path the
// proof does not cover (the simplifier, an instruction the fast paths leave to the general one)
// drops the loop. Then every instruction field, a linear function of those values and of the
// buffers' copies in use, is affine in the variable, except for the double-buffer phase, whose
// state repeats after one iteration or two (a period of 1 or 2). The probes give each field's
// step; the middle iterations are extrapolated; the last one (two for a period of 2) runs
// normally, so every range check that fails anywhere fails there too (affine values reach their
// extremes at the ends), and must equal the extrapolation. Anything else (an error raised
// there, a different instruction) discards the extrapolation and runs the rest normally, which
// gives the same instructions or raises the same error as the plain path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/npu/insert_tokens.h"
#include "compiler/arith/int_program.h"

namespace tessera {

// What the selector's state is, to put back when an extrapolation is abandoned.
struct LoopCheckpoint {
  size_t stages = 0, probe_depth = 0, calls = 0;
  std::vector<IntEnv::Saved> env;
};

// A field's step between two instances of an instruction, by its place in the instruction.
struct FieldStepData {
  uint32_t insn;    // index in the iteration
  uint16_t offset;  // bytes from the instruction's start
  uint8_t size;
  uint64_t step;  // modulo 2^(8 size)
};

// The loops being probed (outer first) and whether each is still proved.
class LoopProbe {
 public:
  bool active() const { return live_ > 0; }
  bool room() const { return static_cast<int>(levels_.size()) < kMaxAffineVars; }
  size_t depth() const { return levels_.size(); }
  void push(int slot, int64_t lo, int64_t hi);
  bool pop();  // drops the innermost level; true when it was still proved
  void truncate(size_t depth) {
    while (levels_.size() > depth) pop();
  }
  // A program evaluated in a probe: its roots must be affine on the box of the live levels
  // (uniform: constant on it). A level that makes this fail is no longer proved.
  void check(const IntProgram& p, const IntEnv& env, bool uniform);
  // The same for any test ok(vars, n) of a value over a box.
  template <class Ok>
  void check_with(Ok ok) {
    if (!live_) return;
    int n = live_vars();
    for (int start = 0; start < n; ++start) {
      if (ok(vars_ + start, n - start)) return drop_outer(start);
    }
    drop_outer(n);
  }
  void fail() { drop_outer(live_vars()); }  // a path the proof does not cover

  // emit_loop's buffers, one set per nested call (reused: no allocation per loop).
  struct Scratch {
    std::vector<int64_t> state[3];
    std::vector<SelectedInsn> last;
    std::vector<struct FieldStepData> steps;
    LoopCheckpoint checkpoint;
  };
  Scratch& enter() {
    if (calls_ == scratch_.size()) scratch_.emplace_back(new Scratch);
    return *scratch_[calls_++];
  }
  void leave() { --calls_; }
  size_t calls() const { return calls_; }
  void set_calls(size_t c) { calls_ = c; }

 private:
  struct Level {
    AffineVar var;
    bool live;
  };
  int live_vars();           // the live levels' variables into vars_, outer first
  void drop_outer(int k);    // the k outermost live levels are no longer proved
  std::vector<Level> levels_;
  int live_ = 0;
  AffineVar vars_[kMaxAffineVars];
  std::vector<AffineValue> roots_;
  std::vector<std::unique_ptr<Scratch>> scratch_;
  size_t calls_ = 0;
};

// The loop's body as the selector runs it.
class LoopBody {
 public:
  virtual ~LoopBody() = default;
  virtual void iterate(int64_t v) = 0;  // binds the variable to v and emits the body
  // Beyond the variables: what decides the instructions (the buffers' copies in use, ...).
  virtual void state(std::vector<int64_t>* s) const = 0;
  virtual void set_state(const std::vector<int64_t>& s) = 0;
  virtual void checkpoint(LoopCheckpoint* c) const = 0;
  virtual void rollback(const LoopCheckpoint& c) = 0;
};

// Emits the iterations min .. min + extent - 1 of a loop whose variable has slot `slot`,
// extrapolating what the probes prove (see above); `plain` runs every iteration normally.
void emit_loop(LoopBody& body, int slot, int64_t min, int64_t extent, LoopProbe& probe,
               std::vector<SelectedInsn>& out, bool plain);

// Whether TESSERA_NPU_PLAIN_LOOPS is set (to a value other than "0"): loops are then never
// extrapolated (for tests comparing the two paths).
bool plain_loops_requested();

}  // namespace tessera
