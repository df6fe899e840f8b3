// Whole-file reads and writes for every loader and saver (kernel files, target descriptions, CPU
// libraries), so that each file-system failure (missing file, a directory, no permission, a full
// disk) is reported the same way: the functions return why they failed, and the caller raises its
// own typed error naming the path (KernelFileError, TargetError, RuntimeError). Nothing throws a
// std::ios_base::failure or any other bare standard exception.
#pragma once

#include <string>

namespace tessera {

// Reads the regular file at `path` into `bytes`. Returns "" on success, else the reason
// ("is a directory, not a file", "is not a regular file", "No such file or directory", ...),
// without the path. A named pipe or device is refused at once, never waited on.
std::string read_whole_file(const std::string& path, std::string* bytes);

// Creates or truncates the regular file `path` and writes `bytes` to it. Returns "" on success,
// else the reason; a directory, named pipe or device is refused (and left untouched).
std::string write_whole_file(const std::string& path, const std::string& bytes);

}  // namespace tessera
