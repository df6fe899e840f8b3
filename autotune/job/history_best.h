// Replay (TVM's apply_history_best): the config to build each task with, from a tuning log.
//
// For a task, its best valid record: of the log's records of that task (its key) with status ok,
// those whose config is a valid point of the task's current space, the one pick_best chooses
// (fewest cycles, then the canonical config text). The choice depends only on the log's records,
// not on their order, the machine or the thread count; with the same compiler version the same
// config gives the same kernel bytes. A task has no record when the log has none for its key, or
// none that fits its current space (a log of an older space), or when the log is for another
// target than the task's. Then strict replay is a TuningLogError naming the task (and its label,
// such as a workload id) and saying why; otherwise the template's default config is used and the
// choice says why (the caller warns).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autotune/log_record.h"
#include "autotune/templates/npu_task.h"

namespace tessera::autotune {

struct ReplayChoice {
  Config config;
  std::optional<LogRecord> record;  // the record replayed; none: the default config
  std::string why_default;          // when there is no record: why
};

class HistoryBest {
 public:
  // Reads the log (read_tuning_log.h: broken lines are skipped with warnings(); another format
  // version or mixed targets are a TuningLogError). A missing file is a RuntimeError: replaying
  // a log that is not there is a mistake, not an empty log.
  explicit HistoryBest(const std::string& log_path);

  const std::string& path() const { return path_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The log's target (none for a log without records).
  const std::optional<TargetId>& target() const { return target_; }
  // The key text of every task with at least one ok record, in key order.
  std::vector<std::string> tasks() const;

  // The task's best valid record, or none with *why set.
  std::optional<LogRecord> best_record(const NpuTask& task, std::string* why = nullptr) const;
  ReplayChoice choose(const NpuTask& task, bool strict, const std::string& label = "") const;

 private:
  std::string path_;
  std::vector<std::string> warnings_;
  std::optional<TargetId> target_;
  std::map<std::string, std::vector<LogRecord>> ok_records_;  // by task key text, file order
};

}  // namespace tessera::autotune
