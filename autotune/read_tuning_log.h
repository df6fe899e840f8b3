// Reads a tuning log (docs/tuning_log.md).
//
// A line that is not a complete record (not JSON, not an object, a field missing or malformed,
// or the last line without its newline: a write cut short by a kill) is skipped with a warning
// naming the file and the line. A record of another format version, or of another target than
// `expected` (or, with none expected, than the log's first record), refuses the whole log: a
// TuningLogError naming the file, the line and both versions or both targets. A missing file is
// an empty log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autotune/log_record.h"

namespace tessera::autotune {

struct TuningLog {
  std::string path;
  std::vector<LogRecord> records;  // in file order
  std::vector<std::string> warnings;
  std::optional<TargetId> target;  // the records' target (none if there is no record)
};

TuningLog read_tuning_log(const std::string& path,
                          const std::optional<TargetId>& expected = std::nullopt);

}  // namespace tessera::autotune
