#include "autotune/transfer_groups.h"

#include <map>

#include "autotune/errors.h"

namespace tessera::autotune {

TransferGroups transfer_groups(const std::vector<LogRecord>& records, const TaskOf& task_of,
                               const std::string& exclude, const std::string& source) {
  // Records by task, in log order within a task.
  std::map<std::string, std::vector<const LogRecord*>> by_task;
  for (const LogRecord& r : records) {
    std::string key = r.task.dump();
    if (key != exclude) by_task[key].push_back(&r);
  }
  TransferGroups out;
  for (const auto& [key, recs] : by_task) {
    std::optional<TuningTask> task = task_of(recs.front()->task);
    if (!task) continue;
    std::vector<Trial> trials;
    for (const LogRecord* r : recs) {
      Trial t;
      t.index = r->trial;
      try {
        t.config = task->space.from_json(r->config);
      } catch (const ConfigError& e) {
        out.warnings.push_back(str(source, ":", r->line, ": not a config of its task's space (",
                                   e.what(), "); left out of transfer"));
        continue;
      }
      t.result = r->result;
      trials.push_back(std::move(t));
    }
    TrainingGroup g = make_training_group(*task, trials);
    if (g.features.empty()) continue;
    out.groups.push_back(std::move(g));
    out.tasks.push_back(key);
  }
  return out;
}

}  // namespace tessera::autotune
