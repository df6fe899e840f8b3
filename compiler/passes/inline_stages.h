// inline_stages: the body of every stage that has a buffer of its own, with the bodies of the
// stages marked compute_inline substituted into it (transitively), so that it reads only such
// stages and placeholders. infer_bounds and schedule_ops work on these bodies.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/ir.h"
#include "schedule/schedule.h"

namespace tessera {

struct InlinedBodies {
  std::map<const StageNode*, Expr> body;  // lookup only; iterate Schedule::stages()
  const Expr& at(const StageNode* st) const { return body.at(st); }
};

InlinedBodies inline_stages(const Schedule& sch);

// One line per stage that has a body, in schedule order: "stage B: <body>" (TESSERA_DEBUG=2).
std::string to_string(const InlinedBodies& bodies, const Schedule& sch);

}  // namespace tessera
