// The static inline helpers that generated C uses where C's operators differ from the IR's
// semantics (floor division and modulo, min/max, integer abs, sigmoid) or where the IR has an
// operation C lacks (requantize: the NPU's int32 -> int8 rescaling, docs/npu_isa.md). Generated
// code defines only the helpers it uses, in a fixed order, so the source stays short and
// deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"

namespace tessera {

enum class CHelper : uint8_t { kFloorDiv, kFloorMod, kMin, kMax, kAbs, kSigmoid, kRequantize };

// "tsr_floordiv_i32", "tsr_min_f32", ...: the helper's name for operands of type t.
std::string c_helper_name(CHelper h, DType t);
// The C definition of that helper (one static inline function, newline-terminated). Requantize
// exists for t = int32 only: tsr_requantize_i32(int32_t a, int64_t multiplier, int64_t shift,
// int64_t zero_point) -> int8_t.
std::string c_helper_definition(CHelper h, DType t);

// Identifiers generated code must not use for variables or buffers: C keywords, the names and
// macros of the C library headers it includes, and every helper name.
const std::vector<std::string>& c_reserved_names();

}  // namespace tessera
