// Python bindings for the tunable NPU templates (autotune/templates): the template table, tasks
// (template, arguments, target) with their config spaces, defaults, footprints and operators, and
// the templates' C++ measurement as a MeasureFunction (py_tuning.h) for the tuner's executors.
// Registered as tessera._tessera.npu_templates (re-exported by the tessera.autotune package) plus
// the NpuOp class in tessera._tessera.npu_ops (python/tessera/npu_ops.py builds operators with
// the templates). Configs, spaces and tuning tasks are the tuner core's classes (tuning.cpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "autotune/errors.h"
#include "autotune/templates/measure_npu.h"
#include "autotune/templates/npu_task.h"
#include "autotune/templates/template_features.h"
#include "python/src/py_handles.h"
#include "python/src/py_tuning.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

using TaskPtr = std::shared_ptr<NpuTask>;  // never modified after construction

nlohmann::json json_arg(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) {
    std::string text = obj.cast<std::string>();
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw autotune::ConfigError(str("'", text, "' is not valid JSON"));
    return j;
  }
  return py_to_json(obj);
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
  py::dict d = json_to_py(autotune::result_to_json(m.result)).cast<py::dict>();
  d["construct_us"] = m.construct_us;
  d["lower_us"] = m.lower_us;
  d["codegen_us"] = m.codegen_us;
  d["timing_us"] = m.timing_us;
  d["insns"] = m.insns;
  d["duplicate"] = m.duplicate;
  d["bound"] = m.bound_cycles;
  if (m.result.ok()) d["ddr_bytes"] = m.stats.ddr_bytes_read + m.stats.ddr_bytes_written;
  return d;
}

}  // namespace

void bind_autotune(py::module_& m) {
  py::module_ ops = m.def_submodule("npu_ops", "the NPU operator library");
  py::class_<NpuOp>(ops, "NpuOp")
      .def_readonly("name", &NpuOp::name)
      .def_readonly("args", &NpuOp::args)
      .def_readonly("schedule", &NpuOp::schedule);

  py::module_ at = m.def_submodule("npu_templates", "the tunable NPU templates");
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
  // A function, not an attribute: MeasureFunction's class is registered after this module
  // (bind_tuning), so the value is made when Python asks for it.
  at.def(
      "measure_function", [] { return MeasureFunction{measure_npu, "measure_npu"}; },
      "The templates' C++ measurement (build + timing simulation, classified errors, kernel "
      "fingerprints) as a MeasureFunction for LocalExecutor; it runs in parallel on the workers.");
  at.def(
      "template_feature_names", [] { return template_feature_names(); },
      "Names of the features a template adds after the knob features (template_features.h): its "
      "analytic estimate of a config over the layer's roofline bound, in parts, and the on-chip "
      "footprint over the target's capacities. The same for every template that has them.");
  at.def(
      "tuning_task",
      [](const py::object& key, const std::optional<npu::Target>& target) {
        return npu_task_from_key(json_arg(key), npu_target_or_default(target)).tuning;
      },
      py::arg("key"), py::arg("target") = py::none(),
      "The TuningTask of a task key {'template': .., 'args': {..}} (dict or JSON text): what "
      "transfer_groups' task_of and a farm worker need.");

  py::class_<NpuTask, TaskPtr>(at, "NpuTask",
                               "A task of an NPU template: NpuTask(template, args, target=None, "
                               "split_policy='all'); args a dict (or JSON text) of the template's "
                               "arguments; target an npu.Target (None: npu-v1); split_policy "
                               "'all' (every candidate factor) or 'factors' (divisors of each "
                               "split's extent only, named in the task key).")
      .def(py::init([](const std::string& tmpl, const py::object& args,
                       const std::optional<npu::Target>& target, const std::string& policy) {
             return std::make_shared<NpuTask>(make_npu_task(tmpl, json_arg(args),
                                                            npu_target_or_default(target),
                                                            autotune::parse_split_policy(policy)));
           }),
           py::arg("template"), py::arg("args"), py::arg("target") = py::none(),
           py::arg("split_policy") = "all")
      .def_static(
          "from_key",
          [](const py::object& key, const std::optional<npu::Target>& target) {
            return std::make_shared<NpuTask>(
                npu_task_from_key(json_arg(key), npu_target_or_default(target)));
          },
          py::arg("key"), py::arg("target") = py::none(),
          "The task of a key {'template': .., 'args': {..}} (dict or JSON text).")
      .def_property_readonly("template", [](const NpuTask& t) { return std::string(t.tmpl->name); })
      .def_property_readonly("args", [](const NpuTask& t) { return json_to_py(t.args); })
      .def_property_readonly("key", [](const NpuTask& t) { return json_to_py(t.tuning.key); })
      .def_property_readonly("key_text", [](const NpuTask& t) { return t.tuning.key_text(); },
                             "The task key as canonical JSON text.")
      .def_property_readonly("target", [](const NpuTask& t) { return t.target; })
      .def_property_readonly(
          "split_policy",
          [](const NpuTask& t) { return std::string(autotune::split_policy_name(t.split_policy)); },
          "'all' or 'factors' (config_space.h).")
      .def_property_readonly(
          "tuning", [](const NpuTask& t) { return t.tuning; },
          "The TuningTask (key, space with the validity check) for make_tuner and tune().")
      .def_property_readonly(
          "space", [](const NpuTask& t) { return t.tuning.space; },
          "The ConfigSpace: at(index), index_of(config), to_text(config), from_json(...).")
      .def_property_readonly(
          "space_size", [](const NpuTask& t) { return t.tuning.space.size(); },
          "The number of configs in the space (valid or not).")
      .def_property_readonly(
          "knobs", [](const NpuTask& t) { return json_to_py(t.tuning.space.describe()["knobs"]); },
          "Each knob: {'name', 'kind', 'domain'} (and 'extent' for splits).")
      .def(
          "count_valid",
          [](const NpuTask& t) {
            py::gil_scoped_release release;
            return count_valid_configs(t.tuning.space);
          },
          "How many configs of the space pass the validity check (visits every index).")
      .def_property_readonly(
          "has_cycles_bound", [](const NpuTask& t) { return bool(t.work_bound); },
          "Whether the template computes a lower bound on a config's cycles (cycles_bound).")
      .def(
          "cycles_bound",
          [](const NpuTask& t, const autotune::Config& c) -> py::object {
            std::optional<CyclesBound> b = cycles_lower_bound(t, c);
            if (!b) return py::none();
            KernelWork w = t.work_bound(t.tuning.space, c);
            py::dict d;
            d["cycles"] = b->cycles;
            d["fetch_chain"] = b->fetch_chain;
            d["port"] = b->port;
            d["load"] = b->load;
            d["store"] = b->store;
            d["mac"] = b->mac;
            d["vector"] = b->vector;
            d["compute"] = b->compute;
            py::dict wd;
            wd["gemms"] = w.gemms;
            wd["gemm_steps"] = w.gemm_steps;
            wd["vectors"] = w.vectors;
            wd["vector_rows"] = w.vector_rows;
            wd["loads"] = w.loads;
            wd["stores"] = w.stores;
            wd["load_bytes"] = w.load_bytes;
            wd["store_bytes"] = w.store_bytes;
            wd["load_ddr_rows"] = w.load_ddr_rows;
            wd["store_ddr_rows"] = w.store_ddr_rows;
            wd["pad_units"] = w.pad_units;
            wd["insns"] = w.insns();
            d["work"] = wd;
            return d;
          },
          py::arg("config"),
          "A sound lower bound on the timing simulator's cycles for the config's kernel, from the "
          "task and config alone (no lowering): a dict with 'cycles', its parts (fetch_chain, "
          "port, load, store, mac, vector, compute) and the lower bounds on the kernel's 'work' "
          "they come from; None when the template has none (docs/autotune_core.md).")
      .def(
          "valid_bounds",
          [](const NpuTask& t) {
            std::vector<std::pair<uint64_t, uint64_t>> v;
            {
              py::gil_scoped_release release;
              v = valid_config_bounds(t);
            }
            py::list idx, cyc;
            for (const auto& [i, b] : v) {
              idx.append(i);
              cyc.append(b);
            }
            return py::make_tuple(idx, cyc);
          },
          "Every valid config (index order) and its cycles bound: (indices, bounds), two lists. "
          "ConfigError when the template has no bound.")
      .def(
          "config", [](const NpuTask& t, uint64_t index) { return t.tuning.space.at(index); },
          py::arg("index"), "The config at `index` (0 <= index < space_size).")
      .def(
          "config_from_json",
          [](const NpuTask& t, const py::object& j) { return t.tuning.space.from_json(json_arg(j)); },
          py::arg("config"), "The config of a JSON text or dict of knob values.")
      .def(
          "to_json", [](const NpuTask& t, const autotune::Config& c) { return t.tuning.space.to_text(c); },
          py::arg("config"), "The config's canonical JSON text (keys sorted).")
      .def(
          "values",
          [](const NpuTask& t, const autotune::Config& c) {
            return json_to_py(t.tuning.space.to_json(c));
          },
          py::arg("config"), "The config's knob values as a dict.")
      .def(
          "index_of",
          [](const NpuTask& t, const autotune::Config& c) { return t.tuning.space.index_of(c); },
          py::arg("config"))
      .def(
          "default_config", [](const NpuTask& t) { return default_config(t); },
          "The template's shape-aware default for this task (a point of its space).")
      .def(
          "is_valid",
          [](const NpuTask& t, const autotune::Config& c) { return t.tuning.space.is_valid(c); },
          py::arg("config"),
          "The cheap validity check: the config's footprint fits on chip and the template builds "
          "its knob combination.")
      .def(
          "footprint",
          [](const NpuTask& t, const autotune::Config& c) {
            return footprint_dict(footprint(t, c), t.target);
          },
          py::arg("config"), "On-chip rows the config needs (double buffers twice) and capacity.")
      .def(
          "build",
          [](const NpuTask& t, const autotune::Config& c) {
            py::gil_scoped_release release;
            return build_npu_op(t, c);
          },
          py::arg("config"), "The operator (npu_ops.NpuOp) with the config's schedule.")
      .def(
          "measure",
          [](const NpuTask& t, const autotune::Config& c) {
            NpuMeasurement m;
            {
              py::gil_scoped_release release;
              m = measure_npu_detailed(t.tuning, c, t.target);
            }
            return measurement_dict(m);
          },
          py::arg("config"),
          "Builds and times the config (measure_npu, with its phases apart): a dict with 'status' "
          "(ok, invalid_config, compile_error, simulation_error, internal_error), 'cycles' or "
          "'message', the kernel 'fingerprint', construct_us, lower_us, codegen_us, timing_us, "
          "'insns' and 'bound' (the roofline bound of the operator's true work, cycles).")
      .def("__repr__", [](const NpuTask& t) {
        return str("<autotune.NpuTask ", t.tuning.key_text(), " on ", t.target.name, ", ",
                   t.tuning.space.size(), " configs>");
      });
}

}  // namespace tessera::python
