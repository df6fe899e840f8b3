#include "runtime/base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tessera {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Closes fd on every path out of a function.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// What is wrong with the open file fd for a whole-file read or write, or "" (and its status).
std::string not_a_regular_file(int fd, struct stat* st) {
  if (::fstat(fd, st) != 0) return errno_text();
  if (S_ISDIR(st->st_mode)) return "is a directory, not a file";
  if (!S_ISREG(st->st_mode)) return "is not a regular file";
  return "";
}

}  // namespace

// Both open with O_NONBLOCK: opening a named pipe otherwise blocks until its other end is opened,
// so a FIFO given as a kernel file hung the loader. On regular files the flag does nothing.

std::string read_whole_file(const std::string& path, std::string* bytes) {
  if (path.find('\0') != std::string::npos) return "the path contains a NUL character";
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) return errno_text();
  struct stat st;
  std::string why = not_a_regular_file(f.fd, &st);
  if (!why.empty()) return why;
  bytes->clear();
  bytes->reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_text();
    if (n == 0) return "";
    bytes->append(buf, static_cast<size_t>(n));
  }
}

std::string write_whole_file(const std::string& path, const std::string& bytes) {
  if (path.find('\0') != std::string::npos) return "the path contains a NUL character";
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644)};
  if (f.fd < 0) return errno == ENXIO ? "is a named pipe, not a regular file" : errno_text();
  struct stat st;
  std::string why = not_a_regular_file(f.fd, &st);
  if (!why.empty()) return why;  // checked before truncating: a device is left alone
  if (::ftruncate(f.fd, 0) != 0) return errno_text();
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(f.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_text();
    done += static_cast<size_t>(n);
  }
  int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) return errno_text();
  return "";
}

}  // namespace tessera
