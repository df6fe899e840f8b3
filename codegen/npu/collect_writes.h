// The buffers a "produce" block writes (select_insns.h: double buffering switches their copies).
#pragma once

#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {

// Buffers that a statement writes, not looking into nested "produce" blocks (theirs).
void collect_writes(const Stmt& s, std::vector<const BufferNode*>* out);

}  // namespace tessera
