// Loop IR -> C: one self-contained C11 translation unit per lowered function, compiled by the
// system C compiler (runtime/cpu/cpu_module.h) with OpenMP.
//
// What the unit contains, in order:
//   * a header comment, the includes (<math.h> <stdbool.h> <stdint.h> <stdlib.h>), under GCC a
//     `#pragma GCC optimize("no-tree-loop-distribute-patterns")` that keeps GCC 12's -O3
//     miscompile of zero-then-accumulate nests out of every kernel (why: codegen_c.cpp), and the
//     static inline helpers the body uses (c_helpers.h);
//   * `const char tessera_module_entry[] = "<name>";` and
//     `const char tessera_metadata_<name>[] = "<json>";` (format in runtime/cpu/module_metadata.h),
//     so that an exported library describes itself;
//   * `int32_t <name>(void** args)`: args[i] is the data pointer of argument buffer i (dense,
//     row-major), declared as a typed `restrict` pointer, so arguments must not overlap. Returns 0,
//     or -1 when a heap temporary could not be allocated.
//
// How the IR's semantics are kept:
//   * integer Div/Mod are floor division/modulo (helpers tsr_floordiv_<t>/tsr_floormod_<t>);
//     float Div is `/`, float Mod is a - floor(a / b) * b. Integer division by zero, and
//     INT32_MIN / -1 for int32/int64, are undefined in C as on the hardware.
//   * integer arithmetic wraps: int8/int16/uint8 results are cast back to their type (C computes
//     them in int); int32/int64 data arithmetic (anything reading a buffer, calling or casting)
//     is done in unsigned and converted back (modulo 2^n, GCC's implementation-defined rule).
//     Index arithmetic (only variables and constants) stays signed and is assumed not to overflow,
//     as compiler/arith assumes: that is what lets the C compiler vectorize the addressing.
//   * Cast is a C conversion: integers narrow modulo 2^n (GCC's implementation-defined rule),
//     nothing saturates, and a float -> int conversion of an out-of-range value is undefined in C.
//   * Min/Max are `a < b ? a : b` helpers (a NaN operand yields b); Select is `c ? t : f`, which
//     is equivalent because IR expressions are pure.
//   * math calls map to <math.h> (expf for float32, exp for float64); sigmoid and integer abs
//     (wrapping at the minimum) are helpers.
//
// Statements: loops use the loop variable's type (int32_t); `parallel` becomes
// `#pragma omp parallel for schedule(static)` unless already inside a parallel (or simd) loop,
// where it runs serially with a comment; `vectorized` becomes `#pragma omp simd` (not nested);
// `unrolled` becomes `#pragma GCC unroll N` with N the constant extent capped at 64. An Allocate of
// at most 16 KiB is a 64-byte-aligned array on the stack (private to each iteration of an enclosing
// parallel loop); larger ones use aligned_alloc and are freed at the end of the Allocate's body.
// AttrStmts become comments ("produce", "pragma_*", anything else).
//
// Output is byte-deterministic: names come from a NameTable in order of first appearance.
#pragma once

#include <string>
#include <vector>

#include "compiler/lowered_func.h"
#include "runtime/cpu/module_metadata.h"

namespace tessera {

// Allocations up to this many bytes live on the stack.
constexpr int64_t kMaxStackAllocBytes = 16 * 1024;

// The C source of f. LowerError when f cannot be expressed for the CPU (a function name that is not
// a usable C identifier, a buffer in a memory scope other than "global" or "local");
// InternalError for IR that lowering should never produce (see c_expr.h).
std::string codegen_c(const LoweredFunc& f);

// The argument specs of f (user-facing names, dtypes and shapes of its argument buffers, in
// order): what the generated metadata records and what CpuModule::compile expects.
std::vector<ArgSpec> c_arg_specs(const LoweredFunc& f);

}  // namespace tessera
