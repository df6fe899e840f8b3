// A schedule says how an operator's loops run; it is data (TVM's "schedule is data").
//
// create_schedule makes one Stage per compute operation reachable from the outputs (placeholders
// have no stage), in topological order. Primitives validate their arguments, raising ScheduleError
// naming the stage, the primitive and the axis and saying what would be legal, and then only
// record: split and fuse add IterVarRelations and change the leaf axes; reorder permutes them;
// annotations, attach points, scopes and cache stages are fields. lower() (compiler/lower.h)
// replays the records. A tuner sets split factors and choices from a config through the same
// calls; nothing here is specific to any operator.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/te/operation.h"
#include "schedule/tensor_intrin.h"

namespace tessera {

// split: parent -> (outer, inner) with inner extent `factor`; fuse: (outer, inner) -> fused.
struct IterVarRelation {
  enum Kind { kSplit, kFuse } kind;
  IterVar parent;  // split: the axis split; fuse: unused
  IterVar outer;
  IterVar inner;
  IterVar fused;   // fuse only
  int64_t factor;  // split only: the inner extent
  // split by nparts: the outer extent asked for (a symbolic axis's factor is derived from it
  // once the extent is known); 0 for a split by factor.
  int64_t nparts = 0;
};

enum class AttachType : uint8_t { kRoot, kInline, kScope };
enum class Annotation : uint8_t { kNone, kUnroll, kVectorize, kParallel };

struct StageNode;
using StagePtr = std::shared_ptr<StageNode>;

struct StageNode {
  Operation op;                         // what this stage computes now (cache_write replaces it)
  Operation origin_op;                  // the operation the user's Tensor refers to
  std::vector<IterVar> all_iter_vars;   // root axes first, then every axis a relation made
  std::vector<IterVar> leaf_iter_vars;  // the loop nest, outermost first
  std::vector<IterVarRelation> relations;
  std::map<uint64_t, Annotation> annotations;  // keyed by the axis variable's id
  std::map<uint64_t, std::vector<std::pair<std::string, std::string>>> pragmas;
  AttachType attach_type = AttachType::kRoot;
  StagePtr attach_stage;  // kScope: computed inside this stage's loop `attach_ivar`
  IterVar attach_ivar;
  std::string scope = "global";
  // cache_read: reads of `first` in this stage's body read `second` instead.
  std::vector<std::pair<Operation, Operation>> read_redirects;
  bool is_output = false;
  bool double_buffer = false;
  // align_extent: root axis position -> factor; the region an attach point needs is rounded up
  // to a multiple of the factor along that axis.
  std::map<size_t, int64_t> extent_align;
  // tensorize: the loops under tensorize_ivar become `intrin`.
  IterVar tensorize_ivar;
  TensorIntrin intrin;

  const std::string& name() const { return op->name; }
  // The stage's body with read redirects applied (a Reduce node for reductions).
  Expr body() const;
  // Tensors the body reads after redirects, in order.
  std::vector<Operation> inputs() const;
  bool is_leaf(const IterVar& iv) const;
  Annotation annotation(const IterVar& iv) const;
};

class Schedule;

// A handle to a stage; primitives are methods, as in TVM (s[C].split(...)).
class Stage {
 public:
  Stage(Schedule* sch, StagePtr node) : sch_(sch), node_(std::move(node)) {}
  const StagePtr& node() const { return node_; }
  Schedule* schedule() const { return sch_; }
  const std::string& name() const { return node_->name(); }

  // Splits `axis` into (outer, inner) with inner extent `factor` (factor >= 1; a factor that does
  // not divide the extent, or exceeds it, stays correct: lowering guards the tail).
  std::pair<IterVar, IterVar> split(const IterVar& axis, int64_t factor);
  // Splits `axis` into (outer, inner) with outer extent `nparts`.
  std::pair<IterVar, IterVar> split_nparts(const IterVar& axis, int64_t nparts);
  // split x and y, then reorder to (xo, yo, xi, yi).
  std::vector<IterVar> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor);
  // Fuses two adjacent leaf axes (outer immediately before inner) of the same kind.
  IterVar fuse(const IterVar& outer, const IterVar& inner);
  // Puts the given leaf axes in this order, in the positions they occupy together.
  void reorder(const std::vector<IterVar>& order);
  void unroll(const IterVar& axis);
  void vectorize(const IterVar& axis);
  void parallel(const IterVar& axis);
  // Records pragma `key` on `axis` (an attribute of its loop); "unroll" and "vectorize" are the
  // primitives of those names, as in TVM.
  void pragma(const IterVar& axis, const std::string& key, const std::string& value = "");
  // Computes this stage inside `parent`'s loop `axis`, only over the region that loop needs.
  void compute_at(const Stage& parent, const IterVar& axis);
  // Substitutes this stage's expression into its consumers (not for reductions or outputs).
  void compute_inline();
  // Computes this stage in full at the top level (the default).
  void compute_root();
  // Memory scope of this stage's buffer: "global", "local" (CPU); "sram", "acc" (NPU).
  void set_scope(const std::string& scope);
  // Ping-pong buffers for this (cache) stage on the NPU, so that loading the next tile overlaps
  // computing on the current one.
  void double_buffer();
  // Rounds the extent of the region this stage computes at its attach point up to a multiple of
  // `factor` along root axis `axis` (not past the axis's extent), as Halide's Func::align_extent:
  // the stage computes a few points nobody reads, so that its buffer's rows have a fixed pitch
  // (an NPU input tile whose stride-2 columns line up with a fused pixel loop).
  void align_extent(const IterVar& axis, int64_t factor);
  // Replaces the loops under `axis` by the tensor intrinsic; lowering proves the match.
  void tensorize(const IterVar& axis, const TensorIntrin& intrin);

 private:
  void check_leaf(const IterVar& axis, const char* primitive) const;
  void move_attach_points(const IterVar& from, const IterVar& to);
  Schedule* sch_;
  StagePtr node_;
};

// Stages keep a pointer to their Schedule, so a Schedule is not copied or moved: create_schedule
// hands out a shared_ptr.
class Schedule {
 public:
  explicit Schedule(const std::vector<Operation>& outputs);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  const std::vector<Operation>& outputs() const { return outputs_; }
  // Stages in topological order (producers before consumers).
  const std::vector<StagePtr>& stages() const { return stages_; }
  // The stage that computes `op` (by its current or its original operation).
  Stage operator[](const Operation& op);
  Stage operator[](const Tensor& t) { return (*this)[t.op()]; }
  StagePtr find(const Operation& op) const;  // nullptr for placeholders and unknown ops

  // Adds a stage that copies `tensor` into `scope`; `readers` (stages that read it) read the copy.
  Tensor cache_read(const Tensor& tensor, const std::string& scope,
                    const std::vector<Operation>& readers);
  // TVM's cache_write (schedule/cache_write.cpp): a new stage in `scope` computes `tensor`'s
  // stage, laid out by the stage's data-parallel loops (after split, fuse or reorder its axes are
  // those loops; a split tail is guarded), and the stage becomes a copy out of it over its root
  // axes: `tensor.op()->axis` and the stage's axes stay the user's, the cache has new ones.
  // The stage's loop records are dropped (ScheduleError when an annotation, a pragma or another
  // stage's attach point would be lost with them, or when a reduction loop was split or fused).
  // Returns the cache.
  Tensor cache_write(const Tensor& tensor, const std::string& scope);
  // A multi-output compute: all its outputs at once (TVM's s.cache_write([T0, T1], scope));
  // returns one cache tensor per output, in the order given.
  std::vector<Tensor> cache_write(const std::vector<Tensor>& tensors, const std::string& scope);
  // TVM's rfactor (schedule/rfactor.cpp): `axis` is a reduction loop of `tensor`'s stage (a root
  // reduce axis, or any loop split or fused from reduce axes). Returns the tensors of a new stage
  // (one per output of a tuple reduction) holding partial reductions with `axis` made
  // data-parallel (its dimension inserted at `factor_axis`, negative counting from the end as
  // TVM) over the data axes `tensor.op()->axis`; the other loops connected to `axis` stay
  // reductions of the partials (split tails guarded), reduce axes not connected to it are kept
  // whole. `tensor`'s stage becomes the reduction of the partials over that dimension with fresh
  // axes (s[tensor].op.axis). Both stages start from their root loops.
  std::vector<Tensor> rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis = 0);

  // Stages that read `stage`'s output (after redirects), looking through inlined stages.
  std::vector<StagePtr> consumers_of(const StageNode& stage) const;
  // A readable description of every stage: relations, leaf order, annotations, attach points.
  std::string to_string() const;

 private:
  friend class Stage;
  friend class ScheduleSpecializer;  // schedule/specialize.cpp builds a specialized copy
  std::vector<Operation> outputs_;
  std::vector<StagePtr> stages_;
};

std::shared_ptr<Schedule> create_schedule(const std::vector<Operation>& outputs);

// For the primitives' files: a stage for `op` with its root loops; ScheduleError naming `what`
// for a scope lowering does not know.
StagePtr make_stage_node(const Operation& op);
void check_scope(const std::string& scope, const std::string& what);

const char* annotation_name(Annotation a);
// The memory scopes lowering knows.
bool is_known_scope(const std::string& scope);

}  // namespace tessera
