// A real tuning job (its own process) killed with SIGKILL at seeded moments and started again
// with the same arguments, until it finishes: its log equals an uninterrupted run's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "autotune/read_tuning_log.h"
#include "autotune/rng.h"
#include "log_test_util.h"

extern char** environ;

namespace tessera::autotune {
namespace {

using Clock = std::chrono::steady_clock;

pid_t start_job(const std::string& log) {
  // xgb, seed 3, 96 trials in batches of 8 on 2 workers, 3 ms per measurement.
  std::vector<std::string> args = {TESSERA_TUNE_JOB, log, "xgb", "3", "96", "8", "2", "3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return pid;
}

// Waits up to `limit` for the job; true if it exited (successfully) by itself.
bool wait_for(pid_t pid, std::chrono::duration<double> limit) {
  const auto end = Clock::now() + limit;
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
      return true;
    }
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Complete lines in the log so far (a record being written has no newline yet).
size_t complete_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  size_t n = 0;
  for (char c; in.get(c);) n += c == '\n';
  return n;
}

// Waits until the job has written `lines` records (or exited: false), polling every millisecond.
bool wait_for_lines(pid_t pid, const std::string& log, size_t lines) {
  for (;;) {
    if (complete_lines(log) >= lines) return true;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(TuneKill, a_job_killed_at_seeded_moments_resumes_to_the_uninterrupted_log) {
  const std::string full = testing::temp_path("full.jsonl");
  const auto t0 = Clock::now();
  ASSERT_TRUE(wait_for(start_job(full), std::chrono::seconds(120)));
  const std::chrono::duration<double> whole = Clock::now() - t0;

  // The kill points are seeded by progress, not by wall time, so a loaded machine cannot let the
  // job finish before it is killed: after 8 to 24 more records than the last run had written,
  // plus 0 to 3 ms (a batch's records are written together, so the kill falls mid-batch: during
  // a measurement, a model fit or a write).
  const std::string killed = testing::temp_path("killed.jsonl");
  Rng rng(11);
  int kills = 0;
  for (;;) {
    size_t target = complete_lines(killed) + 8 + size_t(rng.unit() * 16);
    pid_t pid = start_job(killed);
    if (target > 88) {  // enough: let it finish
      ASSERT_TRUE(wait_for(pid, std::chrono::seconds(120)));
      break;
    }
    if (!wait_for_lines(pid, killed, target)) break;
    std::this_thread::sleep_for(std::chrono::microseconds(int64_t(rng.unit() * 3000)));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    waitpid(pid, nullptr, 0);
    ++kills;
  }
  EXPECT_GE(kills, 3);
  EXPECT_EQ(testing::lines_without_timestamps(killed), testing::lines_without_timestamps(full));
  TuningLog log = read_tuning_log(killed);
  EXPECT_TRUE(log.warnings.empty());
  std::set<int64_t> trials;
  for (const auto& r : log.records) EXPECT_TRUE(trials.insert(r.trial).second) << r.trial;
  EXPECT_EQ(trials.size(), 96u);
  std::cout << "uninterrupted job " << whole.count() << " s; killed " << kills << " times"
            << std::endl;
}

}  // namespace
}  // namespace tessera::autotune
