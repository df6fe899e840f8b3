#include "log_test_util.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tessera::autotune::testing {

namespace {

// The test process's own directory under the system's temp directory, removed at exit.
struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("tessera_autotune_test_" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::string temp_path(const std::string& name) {
  static TempDir dir;
  static std::atomic<int> counter{0};
  return (dir.path / (std::to_string(counter++) + "_" + name)).string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::vector<std::string> lines_without_timestamps(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) {
      j.erase("timestamp");
      out.push_back(j.dump());
    } else {
      out.push_back(line);
    }
  }
  return out;
}

}  // namespace tessera::autotune::testing
