// Python bindings for the tunable NPU templates (autotune/templates): the template table, tasks,
// their config spaces and configs, building an operator from a config, and the measurement.
// Registered as tessera._tessera.autotune (python/tessera/autotune.py re-exports it) plus the
// NpuOp class in tessera._tessera.npu_ops (python/tessera/npu_ops.py builds operators with it).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "autotune/errors.h"
#include "autotune/templates/measure_npu.h"
#include "autotune/templates/npu_task.h"
#include "python/src/py_handles.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

nlohmann::json to_json(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) {
    std::string text = obj.cast<std::string>();
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw autotune::ConfigError(str("'", text, "' is not valid JSON"));
    return j;
  }
  std::string text = py::module_::import("json").attr("dumps")(obj).cast<std::string>();
  return nlohmann::json::parse(text);
}

py::object to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

using TaskPtr = std::shared_ptr<NpuTask>;  // never modified after construction

// A config with the task whose space it belongs to.
struct PyConfig {
  TaskPtr task;
  autotune::Config config;
  const autotune::ConfigSpace& space() const { return task->tuning.space; }
};

const autotune::Config& config_of(const TaskPtr& task, const PyConfig& c) {
  if (c.task->tuning.key_text() != task->tuning.key_text() ||
      npu::target_hash(c.task->target) != npu::target_hash(task->target)) {
    throw autotune::ConfigError(str("the config belongs to task ", c.task->tuning.key_text(),
                                    " on ", c.task->target.name, ", not to task ",
                                    task->tuning.key_text(), " on ", task->target.name));
  }
  return c.config;
}

py::dict footprint_dict(const OnchipFootprint& f, const npu::Target& t) {
  py::dict d;
  d["sram_rows"] = f.sram_rows;
  d["acc_rows"] = f.acc_rows;
  d["sram_capacity_rows"] = t.sram_rows();
  d["acc_capacity_rows"] = t.acc_rows();
  d["fits"] = f.fits(t);
  return d;
}

py::dict measurement_dict(const NpuMeasurement& m) {
  py::dict d = to_python(autotune::result_to_json(m.result)).cast<py::dict>();
  d["construct_us"] = m.construct_us;
  d["lower_us"] = m.lower_us;
  d["codegen_us"] = m.codegen_us;
  d["timing_us"] = m.timing_us;
  d["insns"] = m.insns;
  d["duplicate"] = m.duplicate;
  if (m.result.ok()) {
    d["ddr_bytes"] = m.stats.ddr_bytes_read + m.stats.ddr_bytes_written;
  }
  return d;
}

}  // namespace

void bind_autotune(py::module_& m) {
  py::module_ ops = m.def_submodule("npu_ops", "the NPU operator library");
  py::class_<NpuOp>(ops, "NpuOp")
      .def_readonly("name", &NpuOp::name)
      .def_readonly("args", &NpuOp::args)
      .def_readonly("schedule", &NpuOp::schedule);

  py::module_ at = m.def_submodule("autotune", "tunable NPU templates: tasks and config spaces");
  at.def(
      "templates",
      [] {
        py::list out;
        for (const NpuTemplate* t : npu_templates()) {
          py::dict d;
          d["name"] = t->name;
          d["summary"] = t->summary;
          out.append(d);
        }
        return out;
      },
      "The template table: a list of {'name', 'summary'}, in a fixed order.");

  py::class_<PyConfig>(at, "Config", "A point of a task's config space.")
      .def_property_readonly("index",
                             [](const PyConfig& c) { return c.space().index_of(c.config); })
      .def(
          "to_json", [](const PyConfig& c) { return c.space().to_text(c.config); },
          "The canonical JSON text (keys sorted).")
      .def_property_readonly(
          "values", [](const PyConfig& c) { return to_python(c.space().to_json(c.config)); },
          "The knob values as a dict.")
      .def("__eq__",
           [](const PyConfig& a, const PyConfig& b) {
             return a.task->tuning.key_text() == b.task->tuning.key_text() && a.config == b.config;
           })
      .def("__hash__",
           [](const PyConfig& c) { return py::hash(py::str(c.space().to_text(c.config))); })
      .def("__repr__",
           [](const PyConfig& c) { return "Config(" + c.space().to_text(c.config) + ")"; });

  py::class_<NpuTask, TaskPtr>(at, "Task",
                               "A tuning task: (template, arguments, target). Task(template, args, "
                               "target=None); args a dict (or JSON text) of the template's "
                               "arguments; target an npu.Target (None: npu-v1).")
      .def(py::init([](const std::string& tmpl, const py::object& args,
                       const std::optional<npu::Target>& target) {
             return std::make_shared<NpuTask>(
                 make_npu_task(tmpl, to_json(args), npu_target_or_default(target)));
           }),
           py::arg("template"), py::arg("args"), py::arg("target") = py::none())
      .def_static(
          "from_key",
          [](const py::object& key, const std::optional<npu::Target>& target) {
            return std::make_shared<NpuTask>(
                npu_task_from_key(to_json(key), npu_target_or_default(target)));
          },
          py::arg("key"), py::arg("target") = py::none(),
          "The task of a key {'template': .., 'args': {..}} (dict or JSON text).")
      .def_property_readonly("template", [](const NpuTask& t) { return std::string(t.tmpl->name); })
      .def_property_readonly("args", [](const NpuTask& t) { return to_python(t.args); })
      .def_property_readonly(
          "key", [](const NpuTask& t) { return t.tuning.key_text(); },
          "The task key as canonical JSON text.")
      .def_property_readonly("target", [](const NpuTask& t) { return t.target; })
      .def_property_readonly(
          "space_size", [](const NpuTask& t) { return t.tuning.space.size(); },
          "The number of configs in the space (valid or not).")
      .def_property_readonly(
          "knobs", [](const NpuTask& t) { return to_python(t.tuning.space.describe()["knobs"]); },
          "Each knob: {'name', 'kind', 'domain'} (and 'extent' for splits).")
      .def(
          "count_valid",
          [](const NpuTask& t) {
            py::gil_scoped_release release;
            return count_valid_configs(t.tuning.space);
          },
          "How many configs of the space pass the validity check (visits every index).")
      .def(
          "config",
          [](const TaskPtr& t, uint64_t index) {
            return PyConfig{t, t->tuning.space.at(index)};
          },
          py::arg("index"), "The config at `index` (0 <= index < space_size).")
      .def(
          "config_from_json",
          [](const TaskPtr& t, const py::object& j) {
            return PyConfig{t, t->tuning.space.from_json(to_json(j))};
          },
          py::arg("config"), "The config of a JSON text or dict of knob values.")
      .def(
          "default_config",
          [](const TaskPtr& t) {
            return PyConfig{t, default_config(*t)};
          },
          "The template's shape-aware default for this task.")
      .def(
          "is_valid",
          [](const TaskPtr& t, const PyConfig& c) {
            return t->tuning.space.is_valid(config_of(t, c));
          },
          py::arg("config"), "The cheap validity check: the config's footprint fits on chip.")
      .def(
          "footprint",
          [](const TaskPtr& t, const PyConfig& c) {
            return footprint_dict(footprint(*t, config_of(t, c)), t->target);
          },
          py::arg("config"), "On-chip rows the config needs (double buffers twice) and capacity.")
      .def(
          "build",
          [](const TaskPtr& t, const PyConfig& c) {
            const autotune::Config& cfg = config_of(t, c);
            py::gil_scoped_release release;
            return build_npu_op(*t, cfg);
          },
          py::arg("config"), "The operator (npu_ops.NpuOp) with the config's schedule.")
      .def(
          "measure",
          [](const TaskPtr& t, const PyConfig& c) {
            const autotune::Config& cfg = config_of(t, c);
            NpuMeasurement m;
            {
              py::gil_scoped_release release;
              m = measure_npu_detailed(t->tuning, cfg, t->target);
            }
            return measurement_dict(m);
          },
          py::arg("config"),
          "Builds and times the config (the tuner's measurement): a dict with 'status' (ok, "
          "invalid_config, compile_error, simulation_error, internal_error), 'cycles' or "
          "'message', the kernel 'fingerprint', the phases' times (construct_us, lower_us, "
          "codegen_us, timing_us) and 'insns'.")
      .def("__repr__", [](const NpuTask& t) {
        return str("<autotune.Task ", t.tuning.key_text(), " on ", t.target.name, ", ",
                   t.tuning.space.size(), " configs>");
      });
}

}  // namespace tessera::python
