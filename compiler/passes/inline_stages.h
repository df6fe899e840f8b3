// inline_stages: substitutes the bodies of stages marked compute_inline into an expression,
// so that the expression reads only stages that have buffers of their own (and placeholders).
#pragma once

#include "compiler/ir/ir.h"
#include "schedule/schedule.h"

namespace tessera {

Expr inline_stages(const Expr& e, const Schedule& sch);

}  // namespace tessera
