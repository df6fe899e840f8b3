#include "autotune/tuning_log_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

std::string os_error() { return std::strerror(errno); }

// The length of a file of `size` bytes up to and including its last newline; -1 if it cannot be
// read.
off_t complete_length(int fd, off_t size) {
  off_t end = size;
  char buf[4096];
  while (end > 0) {
    off_t start = end > static_cast<off_t>(sizeof buf) ? end - static_cast<off_t>(sizeof buf) : 0;
    ssize_t n = pread(fd, buf, static_cast<size_t>(end - start), start);
    if (n != end - start) return -1;
    for (off_t i = n; i-- > 0;)
      if (buf[i] == '\n') return start + i + 1;
    end = start;
  }
  return 0;
}

}  // namespace

TuningLogWriter::TuningLogWriter(std::string path) : path_(std::move(path)) {
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw RuntimeError(str("tuning log ", path_, ": cannot open for writing: ", os_error()));
  auto fail = [&](const std::string& what) {
    std::string why = os_error();
    ::close(fd);
    return RuntimeError(str("tuning log ", path_, ": ", what, ": ", why));
  };
  // One job writes a log at a time; the lock goes with the process, even on kill -9.
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) throw fail("being written by another job");
  struct stat st;
  if (fstat(fd, &st) != 0) throw fail("fstat");
  off_t keep = complete_length(fd, st.st_size);
  if (keep < 0) throw fail("read");
  if (keep != st.st_size && (ftruncate(fd, keep) != 0 || fsync(fd) != 0))
    throw fail("cannot cut off its truncated last line");
  if (lseek(fd, 0, SEEK_END) < 0) throw fail("seek");
  fd_ = fd;
  cut_bytes_ = static_cast<int64_t>(st.st_size - keep);
}

TuningLogWriter::~TuningLogWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void TuningLogWriter::append(const std::vector<LogRecord>& records) {
  if (records.empty()) return;
  std::string text;
  for (const auto& r : records) text += record_to_json(r).dump() + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RuntimeError(str("tuning log ", path_, ": write: ", os_error()));
    done += static_cast<size_t>(n);
  }
  if (fsync(fd_) != 0) throw RuntimeError(str("tuning log ", path_, ": fsync: ", os_error()));
}

}  // namespace tessera::autotune
