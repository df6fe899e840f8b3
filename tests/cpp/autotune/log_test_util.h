// Helpers of the tuning-log tests: temporary files, whole-file reads, logs without timestamps.
#pragma once

#include <string>
#include <vector>

namespace tessera::autotune::testing {

// A fresh path in a directory of this process under the system's temp directory (removed at
// exit); the file does not exist.
std::string temp_path(const std::string& name);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
// Each line of the log parsed and dumped again without its "timestamp" (unparsable lines kept
// as they are).
std::vector<std::string> lines_without_timestamps(const std::string& path);

}  // namespace tessera::autotune::testing
