// Runs an external program (the C compiler) without a shell and waits for it.
#pragma once

#include <string>
#include <vector>

namespace tessera {

struct ProcessResult {
  bool started = false;  // false: the program could not be started (see `output`)
  int exit_status = -1;  // the exit code, or 128 + signal number when killed by a signal
  std::string output;    // everything the program wrote to stdout and stderr
};

// Runs argv[0] (searched in PATH) with argv, stdout and stderr both sent to `log_path`, which is
// read back into the result. Thread-safe.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& log_path);

}  // namespace tessera
