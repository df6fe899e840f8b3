// Symbolic shapes: binding size variables to numbers, and the schedule specialized to them.
//
// A tensor whose shape uses size variables (te.var / te.size_var, VarNode::size_var) is lowered
// per size: specialize() copies the operation graph with every size variable replaced by its
// number (shapes, axis and reduce extents, compute bodies) and replays the schedule on the copy —
// splits (a split by nparts re-derives its factor from the real extent), fuses, loop order,
// annotations, pragmas, attach points, scopes, cache stages. Bound inference, simplification and
// the tail guards of splits that do not divide then run on the numbers, as for a constant shape.
// The C target's module does this at call time, once per set of sizes (python/tessera/symbolic.py);
// NPU kernels need constant shapes (TargetError naming the variable).
//
//   SizeBinding b = bind_sizes(args, {{37, 12}, {12, 5}, {37, 5}}, {}, vars);  // n = 37 from A
//   Specialized sp = specialize(sch, args, b);
//   LoweredFunc f = lower(*sp.schedule, sp.args, "main", Target::c());
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/te/te.h"
#include "schedule/schedule.h"

namespace tessera {

using SizeBinding = std::map<Var, int64_t, VarLess>;

// Every size variable the schedule's tensors use (shapes, reduce extents, bodies) and the
// arguments' shapes, in order of first appearance (arguments first).
std::vector<Var> schedule_size_vars(const Schedule& sch, const std::vector<Tensor>& args);

// Binds the size variables from the shapes of the arrays passed for `args` (one shape per
// argument, in order); `preset` holds sizes passed as scalar arguments. A dimension that is a
// size variable binds it; every other dimension must equal its expression's value. ArgumentError
// naming the variable and the argument for: two arguments binding one variable to different
// sizes, a dimension that does not match, a size below 1, a rank that differs, and a variable of
// `needed` that no argument's shape determines.
SizeBinding bind_sizes(const std::vector<Tensor>& args,
                       const std::vector<std::vector<int64_t>>& shapes, const SizeBinding& preset,
                       const std::vector<Var>& needed);

struct Specialized {
  std::shared_ptr<Schedule> schedule;
  std::vector<Tensor> args;  // `args` of the call, as tensors of the specialized graph
};
// The schedule with every size variable of `binding` replaced by its number. LowerError naming
// the variable when the schedule uses a size variable `binding` does not hold.
Specialized specialize(const Schedule& sch, const std::vector<Tensor>& args,
                       const SizeBinding& binding);

// The first size variable the schedule or the arguments use, or an undefined Var: lower() and
// the NPU backend refuse a symbolic schedule naming it.
Var first_size_var(const Schedule& sch, const std::vector<Tensor>& args);

}  // namespace tessera
