#include "autotune/job/history_best.h"

#include <filesystem>

#include "autotune/errors.h"
#include "autotune/pick_best.h"
#include "autotune/read_tuning_log.h"

namespace tessera::autotune {

HistoryBest::HistoryBest(const std::string& log_path) : path_(log_path) {
  std::error_code ec;
  if (!std::filesystem::exists(log_path, ec))
    throw RuntimeError(str("tuning log ", log_path, " to replay does not exist"));
  TuningLog log = read_tuning_log(log_path);
  warnings_ = std::move(log.warnings);
  target_ = log.target;
  for (LogRecord& r : log.records)
    if (r.result.ok()) ok_records_[r.task.dump()].push_back(std::move(r));
}

std::vector<std::string> HistoryBest::tasks() const {
  std::vector<std::string> out;
  for (const auto& [key, records] : ok_records_) out.push_back(key);
  return out;
}

std::optional<LogRecord> HistoryBest::best_record(const NpuTask& task, std::string* why) const {
  auto none = [why](std::string reason) -> std::optional<LogRecord> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const TargetId target = TargetId::of(task.target);
  if (target_ && *target_ != target)
    return none(str("the log is for ", target_->text(), ", the task for ", target.text()));
  auto it = ok_records_.find(task.tuning.key_text());
  if (it == ok_records_.end()) return none("the log has no valid record of it");
  std::vector<LogRecord> fitting;
  for (const LogRecord& r : it->second) {
    try {
      if (task.tuning.space.is_valid(task.tuning.space.from_json(r.config))) fitting.push_back(r);
    } catch (const ConfigError&) {
      // a config of another version of the space: not a candidate
    }
  }
  if (fitting.empty())
    return none(str("none of its ", it->second.size(), " valid record(s) is a valid config of ",
                    "its current config space (a log of an older space?)"));
  return pick_best(fitting).begin()->second;
}

ReplayChoice HistoryBest::choose(const NpuTask& task, bool strict, const std::string& label) const {
  ReplayChoice c;
  std::string why;
  c.record = best_record(task, &why);
  if (c.record) {
    c.config = task.tuning.space.from_json(c.record->config);
    return c;
  }
  const std::string name =
      label.empty() ? str("task ", task.tuning.key_text())
                    : str("task '", label, "' (", task.tuning.key_text(), ")");
  if (strict)
    throw TuningLogError(str("strict replay of tuning log ", path_, ": ", name,
                             " has no record to replay: ", why));
  c.config = default_config(task);
  c.why_default = str("tuning log ", path_, ": ", name, " has no record to replay (", why,
                      "); its default config is used");
  return c;
}

}  // namespace tessera::autotune
