// A workloads file: the tasks of a tuning job or a replay, as JSON (docs/workloads.md).
//
//   {"version": 1, "name": "resnet18", "target": "../../runtime/npu/targets/npu-v1.json",
//    "tasks": [{"id": "conv1", "template": "conv2d_im2col",
//               "args": {"C": 3, "H": 224, ..., "multiplier": 16384, "shift": 22}}, ...]}
//
// A task is a template of the NPU operator library (autotune/templates) with its arguments (the
// operator's shape and requantize parameters, as the template reads them) and optionally a
// target: the path of a target description, relative to the workloads file. A task without one
// takes the file's "target", or else the target the caller gives (npu-v1 by default). "note"
// fields (file or task) are free text. Every entry is checked when the file is loaded: any
// mistake is a WorkloadsError naming the file and the entry (its position and id) and saying
// what is legal, so a job never starts on a file it would fail on halfway.
#pragma once

#include <string>
#include <vector>

#include "autotune/templates/npu_task.h"
#include "runtime/base/error.h"

namespace tessera::autotune {

class WorkloadsError : public UserError {
 public:
  using UserError::UserError;
};

// The one format version this tessera reads (the same rule as the tuning log's).
constexpr int64_t kWorkloadsVersion = 1;

struct Workload {
  std::string id;  // unique in its file
  NpuTask task;
};

struct Workloads {
  std::string path;
  std::string name;  // "" when the file gives none
  std::vector<Workload> tasks;  // in file order
};

// `default_target`: the target of tasks that name none when the file names none either.
Workloads load_workloads(const std::string& path, const npu::Target& default_target);
// The same from JSON text; `path` names it in messages and anchors relative target paths.
Workloads parse_workloads(const std::string& text, const std::string& path,
                          const npu::Target& default_target);

}  // namespace tessera::autotune
