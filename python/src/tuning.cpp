// Python bindings for the auto-tuner's generic core (autotune/*.h): knobs, config spaces and
// configs, tuning tasks (a task may be defined in Python), measurement results, the tuners, the
// local executor (a measurement may be a C++ function or a Python callable) and executors
// written in Python, tune(), and tuning logs. Registered as the `tuning` submodule; the thin
// Python package tessera.autotune wraps it.
//
// Separate from autotune.cpp, which binds the operator library (autotune/templates): this file
// is the tuning machinery any template plugs into, whoever wrote the template; the two meet only
// through MeasureFunction (py_tuning.h).
//
// Threads: tune(), a tuner's propose() and a batch measurement release the GIL; every Python
// callable the C++ side calls (measurement, validity check, featurizer, progress, warnings, a
// Python executor) takes it for the time of the call only.
#include <pybind11/functional.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "autotune/compiler_version.h"
#include "autotune/errors.h"
#include "autotune/fingerprint_cache.h"
#include "autotune/local_executor.h"
#include "autotune/make_tuner.h"
#include "autotune/run_measurement.h"
#include "autotune/tune.h"
#include "python/src/py_tuning.h"

namespace tessera::python {

void bind_tuning_model(py::module_& t);
void bind_tuning_log(py::module_& t);

namespace {

using namespace autotune;

// What a Python measurement receives: copies, so that it may keep them.
struct PyMeasureInput {
  TuningTask task;
  Config config;
  npu::Target target;
};

// What a Python executor receives for one batch.
struct PyMeasureBatch {
  TuningTask task;
  npu::Target target;
  std::vector<Config> configs;
  std::vector<int64_t> trials;
  std::shared_ptr<const FingerprintCache> known;
};

PyMeasureBatch to_python(const MeasureBatch& b) {
  return PyMeasureBatch{b.task, b.target, b.configs, b.trials, b.known};
}

std::vector<MeasureResult> results_of(const py::handle& results, const char* method) {
  std::vector<MeasureResult> out;
  for (const py::handle& r : results) {
    if (!py::isinstance<MeasureResult>(r))
      throw UserError(str("Python executor ", std::string(py::repr(py::type::of(r))), ": ",
                          method, " must return MeasureResults, one per config"));
    out.push_back(r.cast<MeasureResult>());
  }
  return out;
}

// An Executor written in Python: subclass tessera.autotune.Executor and define measure(batch),
// and if it measures several batches better together, measure_many(batches) (a list of lists).
class PyExecutor : public Executor {
 public:
  std::vector<MeasureResult> measure(const MeasureBatch& batch) override {
    py::gil_scoped_acquire gil;
    py::function override = py::get_override(static_cast<const Executor*>(this), "measure");
    if (!override) throw UserError("a Python Executor must define measure(self, batch)");
    return results_of(override(to_python(batch)), "measure(batch)");
  }

  std::vector<std::vector<MeasureResult>> measure_many(
      const std::vector<MeasureBatch>& batches) override {
    {
      py::gil_scoped_acquire gil;
      py::function override =
          py::get_override(static_cast<const Executor*>(this), "measure_many");
      if (override) {
        py::list in;
        for (const MeasureBatch& b : batches) in.append(to_python(b));
        py::object got = override(in);
        std::vector<std::vector<MeasureResult>> out;
        for (const py::handle& one : got)
          out.push_back(results_of(one, "measure_many(batches)"));
        if (out.size() != batches.size())
          throw UserError(str("Python executor: measure_many(batches) returned ", out.size(),
                              " lists of results for ", batches.size(), " batches"));
        return out;
      }
    }
    return Executor::measure_many(batches);
  }
};

npu::Target target_or_default(const std::optional<npu::Target>& t) {
  return t ? *t : npu::default_target();
}

MeasureStatus status_of(const std::string& name) {
  auto s = parse_measure_status(name);
  if (!s)
    throw UserError(str("unknown measurement status '", name,
                        "'; statuses: ok, invalid_config, compile_error, simulation_error, "
                        "timeout, internal_error"));
  return *s;
}

// A measurement given from Python: a MeasureFunction, or any callable(input, context).
MeasureFunction as_measure_function(const py::object& fn) {
  if (py::isinstance<MeasureFunction>(fn)) return fn.cast<MeasureFunction>();
  if (!PyCallable_Check(fn.ptr()))
    throw UserError(
        str("a measurement must be a MeasureFunction or a callable(input, context), "
            "not ",
            std::string(py::repr(fn))));
  return measure_function_from_python(fn);
}

void bind_errors(py::module_& t, py::module_& m) {
  auto derive = [&t](const char* name, py::handle base, py::handle extra) {
    py::object bases = extra ? py::make_tuple(base, extra) : py::make_tuple(base);
    py::object cls = py::reinterpret_borrow<py::object>((PyObject*)&PyType_Type)(
        name, bases, py::dict(py::arg("__module__") = "tessera.autotune"));
    t.attr(name) = cls;
    return cls;
  };
  static py::object config_error = derive("ConfigError", m.attr("UserError"), PyExc_ValueError);
  static py::object log_error = derive("TuningLogError", m.attr("UserError"), py::handle());
  static py::object cancelled =
      derive("MeasurementCancelled", m.attr("TesseraError"), py::handle());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      PyErr_SetString(config_error.ptr(), e.what());
    } catch (const TuningLogError& e) {
      PyErr_SetString(log_error.ptr(), e.what());
    } catch (const MeasurementCancelled& e) {
      PyErr_SetString(cancelled.ptr(), e.what());
    }
  });
}

void bind_spaces(py::module_& t) {
  py::class_<Knob>(t, "Knob", "One named dimension of a config space (autotune/knob.h).")
      .def_static("split", &Knob::split, py::arg("name"), py::arg("extent"), py::arg("factors"),
                  py::arg("allow_tails") = false)
      .def_static("choice", &Knob::choice, py::arg("name"), py::arg("alternatives"),
                  py::arg("ordered") = false)
      .def_static(
          "permutation",
          [](std::string name, std::vector<std::string> elements,
             const std::optional<std::vector<std::vector<std::string>>>& orders) {
            return orders ? Knob::permutation(std::move(name), std::move(elements), *orders)
                          : Knob::permutation(std::move(name), std::move(elements));
          },
          py::arg("name"), py::arg("elements"), py::arg("orders") = py::none())
      .def_static("flag", &Knob::flag, py::arg("name"))
      .def_property_readonly("name", &Knob::name)
      .def_property_readonly("kind", [](const Knob& k) { return knob_kind_name(k.kind()); })
      .def("__len__", &Knob::size)
      .def("value", [](const Knob& k, uint32_t v) { return json_to_py(k.value_to_json(v)); })
      .def("describe", [](const Knob& k) { return json_to_py(k.describe()); })
      .def("__repr__", [](const Knob& k) { return "<Knob " + k.describe().dump() + ">"; });

  py::class_<Config>(t, "Config", "A point of a config space: one value index per knob.")
      .def(py::init([](std::vector<uint32_t> v) { return Config{std::move(v)}; }),
           py::arg("values"))
      .def_readonly("values", &Config::values)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def("__hash__", [](const Config& c) { return py::hash(py::tuple(py::cast(c.values))); })
      .def("__repr__", [](const Config& c) {
        std::string s = "Config([";
        for (size_t i = 0; i < c.values.size(); ++i)
          s += (i ? ", " : "") + std::to_string(c.values[i]);
        return s + "])";
      });

  py::class_<ConfigSpace>(t, "ConfigSpace", "The product of a template's knobs (config_space.h).")
      .def(py::init<>())
      .def("add", &ConfigSpace::add, py::arg("knob"), py::return_value_policy::reference_internal)
      .def(
          "set_validity_check",
          [](ConfigSpace& s, const py::object& fn) {
            if (fn.is_none()) return s.set_validity_check(nullptr);
            s.set_validity_check(
                callback<bool, const ConfigSpace&, const Config&>(fn, "the validity check"));
          },
          py::arg("check"), "check(space, config) -> bool: cheap, pure and deterministic.")
      .def_property_readonly("knobs", &ConfigSpace::knobs)
      .def("knob", &ConfigSpace::knob, py::arg("name"), py::return_value_policy::copy)
      .def_property_readonly("size", &ConfigSpace::size)
      .def("__len__", &ConfigSpace::size)
      .def("at", &ConfigSpace::at, py::arg("index"))
      .def("index_of", &ConfigSpace::index_of, py::arg("config"))
      .def("in_domain", &ConfigSpace::in_domain, py::arg("config"))
      .def("is_valid", &ConfigSpace::is_valid, py::arg("config"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "to_json", [](const ConfigSpace& s, const Config& c) { return json_to_py(s.to_json(c)); },
          py::arg("config"), "The config's canonical JSON as a dict (knob -> value).")
      .def("to_text", &ConfigSpace::to_text, py::arg("config"))
      .def(
          "from_json",
          [](const ConfigSpace& s, const py::object& j) { return s.from_json(py_to_json(j)); },
          py::arg("values"))
      .def("from_text", &ConfigSpace::from_text, py::arg("text"))
      .def("split", &ConfigSpace::split, py::arg("config"), py::arg("knob"))
      .def("choice", &ConfigSpace::choice, py::arg("config"), py::arg("knob"))
      .def("permutation", &ConfigSpace::permutation, py::arg("config"), py::arg("knob"))
      .def("flag", &ConfigSpace::flag, py::arg("config"), py::arg("knob"))
      .def("describe", [](const ConfigSpace& s) { return json_to_py(s.describe()); });

  py::class_<TuningTask>(t, "TuningTask",
                         "A task: its key (small, stable JSON), its space and, optionally, a "
                         "featurize(space, config) -> list of floats (default: knob features) and "
                         "an estimate(space, config) -> float, an a-priori cost (lower is better) "
                         "that the xgb tuner ranks its first proposals by (default: none, random "
                         "first proposals).")
      .def(py::init([](const py::object& key, ConfigSpace space, const py::object& featurize,
                       const py::object& estimate) {
             TuningTask task;
             task.key = py_to_json(key);
             if (!task.key.is_object())
               throw UserError(
                   str("a tuning task's key must be a dict (template and "
                       "arguments), not ",
                       task.key.dump()));
             task.space = std::move(space);
             if (!featurize.is_none())
               task.featurize = callback<std::vector<float>, const ConfigSpace&, const Config&>(
                   featurize, str("featurize of task ", task.key.dump()));
             if (!estimate.is_none())
               task.estimate = callback<double, const ConfigSpace&, const Config&>(
                   estimate, str("estimate of task ", task.key.dump()));
             return task;
           }),
           py::arg("key"), py::arg("space"), py::arg("featurize") = py::none(),
           py::arg("estimate") = py::none())
      .def_property_readonly("key", [](const TuningTask& t) { return json_to_py(t.key); })
      .def_property_readonly("key_text", &TuningTask::key_text)
      .def_readonly("space", &TuningTask::space)
      .def("features", &TuningTask::features, py::arg("config"),
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("has_estimate",
                             [](const TuningTask& t) { return static_cast<bool>(t.estimate); })
      .def(
          "estimate",
          [](const TuningTask& t, const Config& c) {
            if (!t.estimate)
              throw UserError(str("task ", t.key_text(), " has no a-priori cost estimate"));
            if (!t.space.in_domain(c)) t.space.index_of(c);  // ConfigError naming the config
            return t.estimate(t.space, c);
          },
          py::arg("config"), py::call_guard<py::gil_scoped_release>())
      .def("__repr__", [](const TuningTask& t) { return "<TuningTask " + t.key_text() + ">"; });
}

void bind_results(py::module_& t) {
  py::class_<MeasureResult>(t, "MeasureResult", "The outcome of one measurement.")
      .def_static("success", &MeasureResult::success, py::arg("cycles"),
                  py::arg("fingerprint") = "")
      .def_static(
          "failure",
          [](const std::string& status, std::string message, std::string fingerprint) {
            return MeasureResult::failure(status_of(status), std::move(message),
                                          std::move(fingerprint));
          },
          py::arg("status"), py::arg("message"), py::arg("fingerprint") = "")
      .def_property_readonly("ok", &MeasureResult::ok)
      .def_property_readonly("status",
                             [](const MeasureResult& r) { return measure_status_name(r.status); })
      .def_readonly("cycles", &MeasureResult::cycles)
      .def_readonly("message", &MeasureResult::message)
      .def_readonly("fingerprint", &MeasureResult::fingerprint)
      .def_readonly("duplicate_of", &MeasureResult::duplicate_of)
      .def("to_dict", [](const MeasureResult& r) { return json_to_py(result_to_json(r)); })
      .def(py::self == py::self)
      .def("__repr__", [](const MeasureResult& r) {
        return "<MeasureResult " + result_to_json(r).dump() + ">";
      });

  py::class_<Trial>(t, "Trial")
      .def_readonly("index", &Trial::index)
      .def_readonly("config", &Trial::config)
      .def_readonly("result", &Trial::result)
      .def("__repr__", [](const Trial& x) {
        return str("<Trial ", x.index, " ", result_to_json(x.result).dump(), ">");
      });

  py::class_<MeasureContext>(t, "MeasureContext",
                             "Given to a measurement: its cancellation flag and earlier results.")
      .def(py::init<>())
      .def("cancelled", &MeasureContext::cancelled)
      .def("throw_if_cancelled", &MeasureContext::throw_if_cancelled)
      .def("known_result", &MeasureContext::known_result, py::arg("fingerprint"));

  py::class_<PyMeasureInput>(t, "MeasureInput", "What a measurement measures.")
      .def_readonly("task", &PyMeasureInput::task)
      .def_readonly("config", &PyMeasureInput::config)
      .def_readonly("target", &PyMeasureInput::target)
      .def_property_readonly("values", [](const PyMeasureInput& in) {
        return json_to_py(in.task.space.to_json(in.config));
      });

  py::class_<MeasureFunction>(t, "MeasureFunction", "A measurement function run in C++.")
      .def(py::init([](const py::object& fn) { return measure_function_from_python(fn); }),
           py::arg("fn"))
      .def_readonly("name", &MeasureFunction::name)
      .def("__repr__", [](const MeasureFunction& f) { return "<MeasureFunction " + f.name + ">"; });

  t.def(
      "run_measurement",
      [](const py::object& fn, const TuningTask& task, const Config& config,
         const std::optional<npu::Target>& target) {
        MeasureFunction f = as_measure_function(fn);
        npu::Target tgt = target_or_default(target);
        py::gil_scoped_release release;
        return run_measurement(f.fn, MeasureInput{task, config, tgt}, MeasureContext());
      },
      py::arg("measure"), py::arg("task"), py::arg("config"), py::arg("target") = py::none(),
      "One measurement, classified as the executors do: what a farm worker runs.");
}

void bind_tuners(py::module_& t) {
  py::class_<CostModelOptions>(t, "CostModelOptions")
      .def(py::init<>())
      .def_readwrite("nthread", &CostModelOptions::nthread)
      .def_readwrite("seed", &CostModelOptions::seed)
      .def_readwrite("rounds", &CostModelOptions::rounds)
      .def_readwrite("max_depth", &CostModelOptions::max_depth)
      .def_readwrite("eta", &CostModelOptions::eta)
      .def_readwrite("prior_weight", &CostModelOptions::prior_weight)
      .def_readwrite("prior_eta", &CostModelOptions::prior_eta);
  py::class_<AnnealingOptions>(t, "AnnealingOptions")
      .def(py::init<>())
      .def_readwrite("chains", &AnnealingOptions::chains)
      .def_readwrite("steps", &AnnealingOptions::steps)
      .def_readwrite("temperature", &AnnealingOptions::temperature);
  py::class_<XgbTunerOptions>(t, "XgbTunerOptions")
      .def(py::init<>())
      .def_readwrite("model", &XgbTunerOptions::model)
      .def_readwrite("annealing", &XgbTunerOptions::annealing)
      .def_readwrite("epsilon", &XgbTunerOptions::epsilon)
      .def_readwrite("diversity", &XgbTunerOptions::diversity)
      .def_readwrite("transfer", &XgbTunerOptions::transfer);
  py::class_<GeneticOptions>(t, "GeneticOptions")
      .def(py::init<>())
      .def_readwrite("population", &GeneticOptions::population)
      .def_readwrite("mutation", &GeneticOptions::mutation);
  py::class_<TunerOptions>(t, "TunerOptions")
      .def(py::init<>())
      .def_readwrite("xgb", &TunerOptions::xgb)
      .def_readwrite("genetic", &TunerOptions::genetic);

  py::class_<Tuner>(t, "Tuner", "propose(n) then observe(trials); seeded and deterministic.")
      .def_property_readonly("name", &Tuner::name)
      .def_property_readonly("seed", &Tuner::seed)
      .def("propose", &Tuner::propose, py::arg("n"), py::call_guard<py::gil_scoped_release>())
      .def("observe", &Tuner::observe, py::arg("trials"), py::call_guard<py::gil_scoped_release>());
  t.def(
      "make_tuner",
      [](const std::string& kind, const TuningTask& task, uint64_t seed,
         const std::optional<TunerOptions>& options) {
        return make_tuner(parse_tuner_kind(kind), task, seed, options ? *options : TunerOptions());
      },
      py::arg("kind"), py::arg("task"), py::arg("seed") = 0, py::arg("options") = py::none(),
      py::keep_alive<0, 2>(), "kind: xgb, random, grid or ga. The tuner keeps the task alive.");
}

void bind_executors(py::module_& t) {
  py::class_<PyMeasureBatch>(t, "MeasureBatch", "One batch for an executor to measure.")
      .def(py::init([](const TuningTask& task, const std::vector<Config>& configs,
                       const std::optional<npu::Target>& target,
                       const std::optional<std::vector<int64_t>>& trials) {
             PyMeasureBatch b{task, target_or_default(target), configs, {}, nullptr};
             if (trials) {
               if (trials->size() != configs.size())
                 throw UserError(str("MeasureBatch: ", trials->size(), " trial indices for ",
                                     configs.size(), " configs"));
               b.trials = *trials;
             } else {
               for (size_t i = 0; i < configs.size(); ++i)
                 b.trials.push_back(static_cast<int64_t>(i));
             }
             return b;
           }),
           py::arg("task"), py::arg("configs"), py::arg("target") = py::none(),
           py::arg("trials") = py::none(),
           "A batch of `configs` of `task` on `target` (None: npu-v1); `trials`: their trial "
           "indices (default 0, 1, ...).")
      .def_readonly("task", &PyMeasureBatch::task)
      .def_readonly("target", &PyMeasureBatch::target)
      .def_readonly("configs", &PyMeasureBatch::configs)
      .def_readonly("trials", &PyMeasureBatch::trials)
      .def_property_readonly(
          "context", [](const PyMeasureBatch& b) { return MeasureContext(nullptr, b.known); });

  py::class_<Executor, PyExecutor, std::shared_ptr<Executor>>(
      t, "Executor",
      "Subclass and define measure(batch) -> [MeasureResult] (one per config), and optionally "
      "measure_many(batches) -> [[MeasureResult]] (a tuning job's round; default: measure() "
      "of each batch in turn).")
      .def(py::init<>())
      .def(
          "measure_many",
          [](Executor& e, const std::vector<PyMeasureBatch>& batches) {
            std::vector<MeasureBatch> in;
            for (const PyMeasureBatch& b : batches)
              in.push_back(MeasureBatch{b.task, b.target, b.configs, b.trials, b.known});
            py::gil_scoped_release release;
            return e.measure_many(in);
          },
          py::arg("batches"),
          "The results of each MeasureBatch, in order: a list of lists of MeasureResult.");

  py::class_<LocalExecutor, Executor, std::shared_ptr<LocalExecutor>>(
      t, "LocalExecutor", "A pool of worker threads with a per-measurement time limit.")
      .def(py::init(
               [](const py::object& measure, int workers, double timeout, double abandon_grace) {
                 LocalExecutorOptions o;
                 o.workers = workers;
                 o.timeout_seconds = timeout;
                 o.abandon_grace_seconds = abandon_grace;
                 // Its workers may wait for the GIL: stop them with the GIL released.
                 return std::shared_ptr<LocalExecutor>(
                     new LocalExecutor(as_measure_function(measure).fn, o), [](LocalExecutor* e) {
                       if (PyGILState_Check()) {
                         py::gil_scoped_release release;
                         delete e;
                       } else {
                         delete e;
                       }
                     });
               }),
           py::arg("measure"), py::arg("workers") = 1, py::arg("timeout") = 0.0,
           py::arg("abandon_grace") = 1.0)
      .def_property_readonly("workers", [](const LocalExecutor& e) { return e.options().workers; })
      .def_property_readonly("abandoned_count", &LocalExecutor::abandoned_count)
      .def(
          "measure",
          [](LocalExecutor& e, const TuningTask& task, const std::vector<Config>& configs,
             const std::optional<npu::Target>& target,
             const std::map<std::string, MeasureResult>& known) {
            npu::Target tgt = target_or_default(target);
            std::shared_ptr<FingerprintCache> cache;
            if (!known.empty()) {
              cache = std::make_shared<FingerprintCache>();
              int64_t k = 0;
              for (const auto& [fp, r] : known) {
                MeasureResult copy = r;
                copy.fingerprint = fp;
                cache->resolve(-1 - k++, copy);
              }
            }
            MeasureBatch batch{task, tgt, configs, {}, cache};
            for (size_t i = 0; i < configs.size(); ++i)
              batch.trials.push_back(static_cast<int64_t>(i));
            py::gil_scoped_release release;
            return e.measure(batch);
          },
          py::arg("task"), py::arg("configs"), py::arg("target") = py::none(),
          py::arg("known") = std::map<std::string, MeasureResult>(),
          "One result per config, in order. `known`: {fingerprint: MeasureResult} of kernels "
          "measured before; a config whose kernel has one of these fingerprints is not "
          "simulated again (measure_npu returns the known result).");
}

void bind_tune(py::module_& t) {
  py::class_<TuneProgress>(t, "TuneProgress")
      .def_readonly("trials", &TuneProgress::trials)
      .def_readonly("total", &TuneProgress::total)
      .def_readonly("best_cycles", &TuneProgress::best_cycles)
      .def_readonly("errors", &TuneProgress::errors);
  py::class_<TuneReport>(t, "TuneReport")
      .def_readonly("trials", &TuneReport::trials)
      .def_readonly("resumed", &TuneReport::resumed)
      .def_readonly("measured", &TuneReport::measured)
      .def_readonly("best", &TuneReport::best)
      .def_readonly("early_stopped", &TuneReport::early_stopped)
      .def_readonly("exhausted", &TuneReport::exhausted)
      .def_readonly("internal_errors", &TuneReport::internal_errors)
      .def_property_readonly("by_status", [](const TuneReport& r) {
        py::dict d;
        for (size_t s = 0; s < r.by_status.size(); ++s)
          d[measure_status_name(static_cast<MeasureStatus>(s))] = r.by_status[s];
        return d;
      });
  t.def(
      "tune",
      [](const TuningTask& task, Tuner& tuner, Executor& executor,
         const std::optional<npu::Target>& target, int64_t trials, int64_t batch_size,
         int64_t early_stopping, const std::string& log, const py::object& progress,
         const py::object& warn, const py::object& on_internal_error) {
        TuneOptions o;
        o.trials = trials;
        o.batch_size = batch_size;
        o.early_stopping = early_stopping;
        o.log_path = log;
        if (!progress.is_none())
          o.progress = callback<void, const TuneProgress&>(progress, "the progress callback");
        if (!warn.is_none()) o.warn = callback<void, const std::string&>(warn, "warn");
        if (!on_internal_error.is_none())
          o.on_internal_error =
              callback<void, const Trial&>(on_internal_error, "on_internal_error");
        npu::Target tgt = target_or_default(target);
        py::gil_scoped_release release;
        return tune(task, tgt, tuner, executor, o);
      },
      py::arg("task"), py::arg("tuner"), py::arg("executor"), py::arg("target") = py::none(),
      py::arg("trials") = TuneOptions().trials, py::arg("batch_size") = TuneOptions().batch_size,
      py::arg("early_stopping") = 0, py::arg("log") = "", py::arg("progress") = py::none(),
      py::arg("warn") = py::none(), py::arg("on_internal_error") = py::none());
}

}  // namespace

// A callable's name without its address, so that messages (and logs) are the same on every run.
std::string callable_name(const py::object& fn) {
  py::object qualname = py::getattr(fn, "__qualname__", py::none());
  if (qualname.is_none()) qualname = py::type::of(fn).attr("__qualname__");
  py::object module = py::getattr(fn, "__module__", py::none());
  std::string q = py::str(qualname);
  return module.is_none() ? q : std::string(py::str(module)) + "." + q;
}

MeasureFunction measure_function_from_python(py::object fn) {
  std::string name = callable_name(fn);
  PyRef ref = hold(std::move(fn));
  MeasureFn measure = [ref, name](const MeasureInput& in,
                                  const MeasureContext& context) -> MeasureResult {
    py::gil_scoped_acquire gil;
    try {
      py::object r = (*ref)(PyMeasureInput{in.task, in.config, in.target}, context);
      if (!py::isinstance<MeasureResult>(r))
        throw InternalError(str("the measurement ", name, " returned a ",
                                std::string(py::str(py::type::of(r).attr("__name__"))),
                                "; a measurement returns a MeasureResult (or raises)"));
      return r.cast<MeasureResult>();
    } catch (py::error_already_set& e) {
      rethrow_python_error(e, "the measurement " + name);
    }
  };
  return MeasureFunction{std::move(measure), name};
}

void bind_tuning(py::module_& m) {
  py::module_ t = m.def_submodule("tuning", "the auto-tuner's core (tessera.autotune wraps it)");
  bind_errors(t, m);
  bind_spaces(t);
  bind_results(t);
  bind_tuners(t);
  bind_executors(t);
  bind_tune(t);
  bind_tuning_log(t);
  bind_tuning_model(t);
}

}  // namespace tessera::python
