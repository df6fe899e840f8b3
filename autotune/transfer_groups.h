// Transfer: the cost-model training groups of earlier logs, one query group per task (in the
// order of the tasks' canonical key text), for XgbTunerOptions::transfer.
//
// Each record's config is read with its own task's space, rebuilt by `task_of` from the task key
// (the template table; std::nullopt for a task it does not know, which is left out), and
// featurized by that task: features that carry across shapes (knob_features) let a model trained
// on other workloads rank this one. The task being tuned (`exclude`, its key) is left out: its
// own records are the search's history, not transfer. A record whose config is not a point of
// its task's space (a log of an older space) is skipped with a warning naming the file and line.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/log_record.h"
#include "autotune/training_group.h"

namespace tessera::autotune {

struct TransferGroups {
  std::vector<TrainingGroup> groups;
  std::vector<std::string> tasks;  // the key text of each group's task
  std::vector<std::string> warnings;
};

using TaskOf = std::function<std::optional<TuningTask>(const nlohmann::json& key)>;

TransferGroups transfer_groups(const std::vector<LogRecord>& records, const TaskOf& task_of,
                               const std::string& exclude, const std::string& source);

}  // namespace tessera::autotune
