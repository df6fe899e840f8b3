// Appends records to a tuning log: each batch is written with one write() and then fsync()ed,
// so a job killed at any moment leaves every earlier batch intact and at most one cut-short
// last line. Opening cuts off such a line (a last line without its newline) before anything is
// appended, so the next record starts on a line of its own. The writer holds an exclusive lock
// (flock) on the file while it is open: a second job writing the same log is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/log_record.h"

namespace tessera::autotune {

class TuningLogWriter {
 public:
  // Creates the file if needed. RuntimeError naming the file if it cannot be opened.
  explicit TuningLogWriter(std::string path);
  ~TuningLogWriter();
  TuningLogWriter(const TuningLogWriter&) = delete;
  TuningLogWriter& operator=(const TuningLogWriter&) = delete;

  // One line per record, in the given order. RuntimeError naming the file on failure.
  void append(const std::vector<LogRecord>& records);
  const std::string& path() const { return path_; }
  // How many bytes of a cut-short last line opening removed (0 if none).
  int64_t cut_bytes() const { return cut_bytes_; }

 private:
  std::string path_;
  int fd_ = -1;
  int64_t cut_bytes_ = 0;
};

}  // namespace tessera::autotune
