// Integer semantics written out independently of the compiler, for the randomised arithmetic
// tests' own evaluators (so a test does not trust the code under test).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"

namespace tessera {
namespace int_reference {

// Floor division and modulo (the IR's Div and Mod).
inline int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t fmod(int64_t a, int64_t b) { return a - fdiv(a, b) * b; }

// Two's complement wrapping to t's width (int64 is left alone: the tests keep it small).
inline int64_t wrap(int64_t v, DType t) {
  switch (t) {
    case DType::kBool:
      return v != 0;
    case DType::kInt8:
      return static_cast<int8_t>(static_cast<uint8_t>(v & 0xff));
    case DType::kUInt8:
      return v & 0xff;
    case DType::kInt16:
      return static_cast<int16_t>(static_cast<uint16_t>(v & 0xffff));
    case DType::kInt32:
      return static_cast<int32_t>(static_cast<uint32_t>(v & 0xffffffffLL));
    default:
      return v;
  }
}

// Calls f(env) for every point of the box: variable i over [box[i].first, box[i].second].
template <typename F>
void for_each_point(const std::vector<Var>& vars,
                    const std::vector<std::pair<int64_t, int64_t>>& box, F f) {
  std::map<uint64_t, int64_t> env;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == vars.size()) return f(env);
    for (int64_t v = box[i].first; v <= box[i].second; ++v) {
      env[vars[i].id()] = v;
      rec(i + 1);
    }
  };
  rec(0);
}

}  // namespace int_reference
}  // namespace tessera
