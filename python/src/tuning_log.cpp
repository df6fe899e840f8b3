// Python bindings for tuning logs (docs/tuning_log.md): reading with warnings by line, replay's
// pick_best, appending records in the log's canonical bytes, the compiler version and target id
// a log records. Part of the `tuning` submodule (tuning.cpp registers it).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "autotune/compiler_version.h"
#include "autotune/errors.h"
#include "autotune/pick_best.h"
#include "autotune/read_tuning_log.h"
#include "autotune/tuning_log_writer.h"
#include "python/src/py_tuning.h"

namespace tessera::python {

using namespace autotune;

namespace {

py::list records_to_py(const std::vector<LogRecord>& records) {
  nlohmann::json all = nlohmann::json::array();
  for (const LogRecord& r : records) all.push_back(record_to_json(r));
  return json_to_py(all);
}

std::vector<LogRecord> records_from_py(const py::iterable& records) {
  std::vector<LogRecord> out;
  for (const py::handle& r : records) out.push_back(record_from_json(py_to_json(r)));
  return out;
}

}  // namespace

void bind_tuning_log(py::module_& t) {
  t.attr("TUNING_LOG_VERSION") = kTuningLogVersion;
  t.def("compiler_version", &compiler_version);
  t.def(
      "target_id",
      [](const npu::Target& target) {
        TargetId id = TargetId::of(target);
        py::dict d;
        d["name"] = id.name;
        d["hash"] = id.hash;
        return d;
      },
      py::arg("target"), "The target as a log records it: {'name', 'hash'}.");
  t.def(
      "read_tuning_log",
      [](const std::string& path, const std::optional<npu::Target>& target) {
        std::optional<TargetId> expected;
        if (target) expected = TargetId::of(*target);
        TuningLog log;
        {
          py::gil_scoped_release release;
          log = read_tuning_log(path, expected);
        }
        py::dict d;
        d["path"] = log.path;
        d["records"] = records_to_py(log.records);
        py::list lines;
        for (const LogRecord& r : log.records) lines.append(r.line);
        d["lines"] = lines;
        d["warnings"] = log.warnings;
        d["target"] = log.target
                          ? json_to_py({{"name", log.target->name}, {"hash", log.target->hash}})
                          : py::none();
        return d;
      },
      py::arg("path"), py::arg("target") = py::none(),
      "{'path', 'records' (dicts), 'lines' (each record's line), 'warnings', 'target'}.");
  t.def(
      "pick_best",
      [](const py::iterable& records) {
        py::dict out;
        for (const auto& [key, r] : pick_best(records_from_py(records)))
          out[py::str(key)] = json_to_py(record_to_json(r));
        return out;
      },
      py::arg("records"), "Each task's best valid record, keyed by the task's canonical text.");
  t.def(
      "append_tuning_log",
      [](const std::string& path, const py::iterable& records) {
        std::vector<LogRecord> rs = records_from_py(records);
        for (const LogRecord& r : rs)
          if (r.version != kTuningLogVersion)
            throw TuningLogError(str("tuning log ", path, ": a record of format version ",
                                     r.version, "; this tessera writes format version ",
                                     kTuningLogVersion, " only"));
        py::gil_scoped_release release;
        TuningLogWriter writer(path);
        writer.append(rs);
      },
      py::arg("path"), py::arg("records"),
      "Appends records (dicts) with one write and an fsync, under the log's lock.");
}

}  // namespace tessera::python
