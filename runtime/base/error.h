// tessera's error types. Every failure a user can cause is a UserError subclass whose message
// names the user's object (tensor, stage, axis, argument, field, file, instruction) and says what
// would be legal. InternalError means a bug in tessera; nothing catches and hides it.
// The Python bindings map each class to a Python exception of the same name.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "runtime/base/utf8.h"

namespace tessera {

// The message is kept printable (printable_text): a NUL or invalid UTF-8 from a user's path or
// name is shown as \xNN instead of cutting the message short or making it undecodable.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(printable_text(msg)) {}
};

// Caused by the user's input; the message says which object and what would be legal.
class UserError : public Error {
 public:
  using Error::Error;
};
// A malformed tensor expression (bad dtype mix, wrong index count, ...). Python: also ValueError.
class ExprError : public UserError {
 public:
  using UserError::UserError;
};
// An illegal schedule primitive. Python: also ValueError.
class ScheduleError : public UserError {
 public:
  using UserError::UserError;
};
// A schedule that is legal on its own but cannot be lowered for the target (e.g. SRAM overflow).
class LowerError : public UserError {
 public:
  using UserError::UserError;
};
// A bad target description, or a kernel built for another target.
class TargetError : public UserError {
 public:
  using UserError::UserError;
};
// A truncated, corrupted or wrong-version kernel file.
class KernelFileError : public UserError {
 public:
  using UserError::UserError;
};
// A bad argument passed to a built module (wrong shape, dtype, count). Python: also ValueError.
class ArgumentError : public UserError {
 public:
  using UserError::UserError;
};
// A program that fails while running on the simulator (out-of-range access, deadlock, ...).
class SimulationError : public UserError {
 public:
  using UserError::UserError;
};
// Something in the environment failed: the system C compiler, dlopen, a file system call.
class RuntimeError : public Error {
 public:
  using Error::Error;
};
// A bug in tessera. Never caught and hidden.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
inline void append_all(std::ostringstream&) {}
template <typename T, typename... Rest>
void append_all(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append_all(os, rest...);
}
}  // namespace detail

// Builds a message from pieces: str("stage ", name, ": factor ", f, " must be positive").
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append_all(os, args...);
  return os.str();
}

}  // namespace tessera

// Checks an internal invariant; failure is a tessera bug.
#define TESSERA_ICHECK(cond, ...)                                                                  \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw ::tessera::InternalError(::tessera::str("internal error at ", __FILE__, ":", __LINE__, \
                                                    ": check '", #cond, "' failed. ",              \
                                                    ##__VA_ARGS__));                               \
  } while (0)
