// Python bindings for the auto-tuner's cost model and its features: knob features, the features
// of a lowered function and its NPU kernel (autotune/features), the XGBoost ranking model,
// training groups, transfer groups from earlier logs, and the pairwise rank accuracy the
// benchmarks report. Part of the `tuning` submodule (tuning.cpp registers it).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "autotune/cost_model.h"
#include "autotune/features/kernel_features.h"
#include "autotune/features/loop_features.h"
#include "autotune/features/program_features.h"
#include "autotune/knob_features.h"
#include "autotune/rank_accuracy.h"
#include "autotune/training_group.h"
#include "autotune/transfer_groups.h"
#include "python/src/py_tuning.h"

namespace tessera::python {

using namespace autotune;

namespace {

npu::Target target_or_default(const std::optional<npu::Target>& t) {
  return t ? *t : npu::default_target();
}

}  // namespace

void bind_tuning_model(py::module_& t) {
  t.def("knob_features", &knob_features, py::arg("space"), py::arg("config"));
  t.def("knob_feature_names", &knob_feature_names, py::arg("space"));
  t.def(
      "loop_features",
      [](const LoweredFunc& f, const std::optional<npu::Target>& target) {
        return loop_features(f, target_or_default(target));
      },
      py::arg("func"), py::arg("target") = py::none(), "Features of a lowered function's loop IR.");
  t.def(
      "kernel_features",
      [](const npu::Kernel& k, const std::optional<npu::Target>& target) {
        return kernel_features(k, target_or_default(target));
      },
      py::arg("kernel"), py::arg("target") = py::none(),
      "Features of an NPU kernel's instruction stream.");
  t.def(
      "program_features",
      [](const LoweredFunc& f, const npu::Kernel& k, const std::optional<npu::Target>& target) {
        return program_features(f, k, target_or_default(target));
      },
      py::arg("func"), py::arg("kernel"), py::arg("target") = py::none(),
      "loop_features(func) followed by kernel_features(kernel).");
  t.def("loop_feature_names", &loop_feature_names);
  t.def("kernel_feature_names", &kernel_feature_names);
  t.def("program_feature_names", &program_feature_names);
  t.def("missing_program_features", &missing_program_features);

  py::class_<TrainingGroup>(t, "TrainingGroup",
                            "One query group: feature rows, labels and, optionally, the rows' "
                            "prior scores (prior_scores).")
      .def(py::init([](std::vector<std::vector<float>> features, std::vector<float> labels,
                       std::vector<float> priors) {
             return TrainingGroup{std::move(features), std::move(labels), std::move(priors)};
           }),
           py::arg("features"), py::arg("labels"), py::arg("priors") = std::vector<float>{})
      .def_readonly("features", &TrainingGroup::features)
      .def_readonly("labels", &TrainingGroup::labels)
      .def_readonly("priors", &TrainingGroup::priors);
  t.def("prior_scores", &prior_scores, py::arg("task"), py::arg("configs"),
        "-ln(task's a-priori estimate) of each config (higher is better); [] when the task has "
        "no estimate.",
        py::call_guard<py::gil_scoped_release>());
  t.def("make_training_group", &make_training_group, py::arg("task"), py::arg("trials"),
        py::call_guard<py::gil_scoped_release>());
  t.def("ranking_labels", &ranking_labels, py::arg("trials"));
  t.def("pairwise_rank_accuracy", &pairwise_rank_accuracy, py::arg("scores"), py::arg("labels"));

  py::class_<CostModel>(t, "CostModel", "XGBoost rank:pairwise, one query group per task.")
      .def(py::init<CostModelOptions>(), py::arg("options") = CostModelOptions())
      .def("fit", &CostModel::fit, py::arg("groups"), py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("trained", &CostModel::trained)
      .def_property_readonly("feature_count", &CostModel::feature_count)
      .def_property_readonly("uses_prior", &CostModel::uses_prior)
      .def(
          "predict",
          [](const CostModel& m, const std::vector<std::vector<float>>& rows,
             const std::vector<float>& priors) {
            py::gil_scoped_release release;
            return m.predict(rows, priors);
          },
          py::arg("rows"), py::arg("priors") = std::vector<float>{},
          "Scores (higher is better; only their order means something). `priors`: the rows' "
          "prior scores, needed when the model uses_prior.");

  t.def(
      "transfer_groups",
      [](const py::iterable& records, const py::object& task_of, const std::string& exclude,
         const std::string& source) {
        std::vector<LogRecord> rs;
        for (const py::handle& r : records) rs.push_back(record_from_json(py_to_json(r)));
        // task_of(key dict) -> TuningTask or None, called here with the GIL held.
        TaskOf of = [&task_of](const nlohmann::json& key) -> std::optional<TuningTask> {
          py::object task = task_of(json_to_py(key));
          if (task.is_none()) return std::nullopt;
          return task.cast<TuningTask>();
        };
        TransferGroups g = transfer_groups(rs, of, exclude, source);
        py::dict d;
        d["groups"] = g.groups;
        d["tasks"] = g.tasks;
        d["warnings"] = g.warnings;
        return d;
      },
      py::arg("records"), py::arg("task_of"), py::arg("exclude"), py::arg("source"),
      "{'groups', 'tasks', 'warnings'}: other tasks' records as training groups.");
}

}  // namespace tessera::python
