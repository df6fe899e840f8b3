// Python bindings for tuning jobs and replay (autotune/job): workloads files, tune_job() over
// their tasks, the true-work bound of a task, and HistoryBest (replay's choice of a config per
// task from a log). Registered as the `tuning_job` submodule; tessera.autotune wraps it
// (apply_history_best, tune_workloads) and the CLI (`tessera tune`, `tessera replay`) uses it.
//
// Threads: tune_job releases the GIL; the progress, warning and internal-error callbacks take it.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autotune/errors.h"
#include "autotune/job/history_best.h"
#include "autotune/job/task_bound.h"
#include "autotune/job/tune_job.h"
#include "autotune/job/workloads.h"
#include "python/src/py_handles.h"
#include "python/src/py_tuning.h"

namespace tessera::python {

using namespace autotune;

namespace {

using TaskPtr = std::shared_ptr<NpuTask>;

py::object record_or_none(const std::optional<LogRecord>& r) {
  return r ? json_to_py(record_to_json(*r)) : py::none();
}

void bind_workloads(py::module_& j, py::module_& m) {
  static py::object error = py::reinterpret_borrow<py::object>((PyObject*)&PyType_Type)(
      "WorkloadsError", py::make_tuple(m.attr("UserError"), py::handle(PyExc_ValueError)),
      py::dict(py::arg("__module__") = "tessera.autotune"));
  j.attr("WorkloadsError") = error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const WorkloadsError& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  j.attr("WORKLOADS_VERSION") = kWorkloadsVersion;

  py::class_<Workloads>(j, "Workloads", "The tasks of a workloads file (docs/workloads.md).")
      .def_readonly("path", &Workloads::path)
      .def_readonly("name", &Workloads::name)
      .def_property_readonly("ids",
                             [](const Workloads& w) {
                               std::vector<std::string> ids;
                               for (const Workload& t : w.tasks) ids.push_back(t.id);
                               return ids;
                             })
      .def_property_readonly("tasks",
                             [](const Workloads& w) {
                               py::list out;
                               for (const Workload& t : w.tasks)
                                 out.append(py::make_tuple(t.id, std::make_shared<NpuTask>(t.task)));
                               return out;
                             },
                             "[(id, NpuTask)], in file order.")
      .def("__len__", [](const Workloads& w) { return w.tasks.size(); });

  j.def(
      "load_workloads",
      [](const std::string& path, const std::optional<npu::Target>& target) {
        return load_workloads(path, npu_target_or_default(target));
      },
      py::arg("path"), py::arg("target") = py::none(),
      "Loads and checks a workloads file; `target`: for tasks (and files) that name none "
      "(None: npu-v1). WorkloadsError naming the file and the entry.");
  j.def(
      "task_bound_cycles", [](const NpuTask& t) { return task_bound_cycles(t); }, py::arg("task"),
      "The roofline bound of the task's true work on its target, cycles.");
}

void bind_job(py::module_& j) {
  py::class_<TuneJobProgress>(j, "TuneJobProgress")
      .def_readonly("task", &TuneJobProgress::task)
      .def_readonly("tasks", &TuneJobProgress::tasks)
      .def_readonly("id", &TuneJobProgress::id)
      .def_readonly("bound_cycles", &TuneJobProgress::bound_cycles)
      .def_readonly("tune", &TuneJobProgress::tune)
      .def_readonly("finished", &TuneJobProgress::finished);
  py::class_<TuneJobTask>(j, "TuneJobTask")
      .def_readonly("id", &TuneJobTask::id)
      .def_readonly("key", &TuneJobTask::key)
      .def_readonly("bound_cycles", &TuneJobTask::bound_cycles)
      .def_readonly("default_result", &TuneJobTask::default_result)
      .def_readonly("report", &TuneJobTask::report)
      .def_readonly("transfer_groups", &TuneJobTask::transfer_groups);
  j.def(
      "tune_job",
      [](const Workloads& w, const std::string& tuner, int64_t trials, int64_t batch_size,
         int64_t early_stopping, uint64_t seed, const std::string& log,
         const std::string& transfer_log, int workers, double timeout, const py::object& progress,
         const py::object& warn, const py::object& on_internal_error,
         std::shared_ptr<Executor> executor) {
        TuneJobOptions o;
        o.executor = std::move(executor);
        o.tuner = parse_tuner_kind(tuner);
        o.trials = trials;
        o.batch_size = batch_size;
        o.early_stopping = early_stopping;
        o.seed = seed;
        o.log_path = log;
        o.transfer_log = transfer_log;
        o.workers = workers;
        o.timeout_seconds = timeout;
        if (!progress.is_none())
          o.progress = callback<void, const TuneJobProgress&>(progress, "the progress callback");
        if (!warn.is_none()) o.warn = callback<void, const std::string&>(warn, "warn");
        if (!on_internal_error.is_none())
          o.on_internal_error = callback<void, const std::string&, const Trial&>(
              on_internal_error, "on_internal_error");
        py::gil_scoped_release release;
        return tune_job(w, o);
      },
      py::arg("workloads"), py::arg("tuner") = "xgb", py::arg("trials") = TuneJobOptions().trials,
      py::arg("batch_size") = TuneJobOptions().batch_size, py::arg("early_stopping") = 0,
      py::arg("seed") = 0, py::arg("log") = "", py::arg("transfer_log") = "",
      py::arg("workers") = 1, py::arg("timeout") = 0.0, py::arg("progress") = py::none(),
      py::arg("warn") = py::none(), py::arg("on_internal_error") = py::none(),
      py::arg("executor") = nullptr,
      "Tunes every task of the workloads (autotune/job/tune_job.h); a list of TuneJobTask.");
}

void bind_history(py::module_& j) {
  py::class_<HistoryBest, std::shared_ptr<HistoryBest>>(
      j, "HistoryBest", "Replay's choice of a config per task from a tuning log.")
      .def(py::init([](const std::string& path) {
             py::gil_scoped_release release;
             return std::make_shared<HistoryBest>(path);
           }),
           py::arg("log"))
      .def_property_readonly("path", &HistoryBest::path)
      .def_property_readonly("warnings", &HistoryBest::warnings)
      .def_property_readonly("target",
                             [](const HistoryBest& h) -> py::object {
                               if (!h.target()) return py::none();
                               py::dict d;
                               d["name"] = h.target()->name;
                               d["hash"] = h.target()->hash;
                               return d;
                             })
      .def_property_readonly("tasks", &HistoryBest::tasks)
      .def(
          "best_record",
          [](const HistoryBest& h, const NpuTask& t) {
            std::string why;
            std::optional<LogRecord> r = h.best_record(t, &why);
            return py::make_tuple(record_or_none(r), why);
          },
          py::arg("task"), "(record dict or None, why there is none).")
      .def(
          "choose",
          [](const HistoryBest& h, const NpuTask& t, bool strict, const std::string& label) {
            ReplayChoice c = h.choose(t, strict, label);
            return py::make_tuple(c.config, record_or_none(c.record), c.why_default);
          },
          py::arg("task"), py::arg("strict") = false, py::arg("label") = "",
          "(config, record dict or None, why the default is used ('' when replayed)); strict: "
          "TuningLogError naming the task when it has no record.");
}

}  // namespace

void bind_tuning_job(py::module_& m) {
  py::module_ j = m.def_submodule("tuning_job", "tuning jobs over workloads files, and replay");
  bind_workloads(j, m);
  bind_job(j);
  bind_history(j);
}

}  // namespace tessera::python
