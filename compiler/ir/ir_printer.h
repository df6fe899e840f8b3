// Stable, complete text form of the IR: what tests, logs and debugging read.
//
//   allocate C.local[float32 * 32 * 32] in local {
//     for (i.outer, 0, 32) parallel {
//       C[i, j] = (A[i, k] * B[k, j])
//     }
//   }
//
// Every binary operation is parenthesised; `/` and `%` on integers are floor division and modulo.
// Two different variables with the same name print with a numeric suffix on the later one
// ("i", "i_1"), in order of first appearance, so the text never depends on addresses.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "compiler/ir/ir.h"

namespace tessera {

// Gives each variable a unique name, stable for the order in which variables are first seen.
// `sanitize` turns names into C identifiers ('.' -> '_').
class NameTable {
 public:
  explicit NameTable(bool sanitize = false) : sanitize_(sanitize) {}
  const std::string& name_of(const Var& v);
  // Reserves a name (e.g. a buffer or a function argument) so variables avoid it.
  std::string unique(const std::string& hint);

 private:
  bool sanitize_;
  std::map<uint64_t, std::string> by_var_;
  std::map<std::string, int> used_;
};

std::string to_string(const Expr& e);
// `indent` levels of two spaces before every line.
std::string to_string(const Stmt& s, int indent = 0);
std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

// A float constant printed exactly enough to read back the same value.
std::string format_float(double v, DType t);

}  // namespace tessera
