// Python bindings for lowering, building and running: lower(), build(), Module, NDArray.
// numpy arrays are passed to kernels without copies (as views of their memory).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "compiler/build.h"
#include "compiler/ir/ir_printer.h"
#include "schedule/specialize.h"
#include "python/src/array_arg.h"
#include "python/src/py_handles.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

namespace {

std::string numpy_format(DType t) {
  switch (t) {
    case DType::kBool:
      return "?";
    case DType::kInt8:
      return "b";
    case DType::kInt16:
      return "h";
    case DType::kInt32:
      return "i";
    case DType::kInt64:
      return "q";
    case DType::kUInt8:
      return "B";
    case DType::kUInt32:
      return "I";
    case DType::kUInt64:
      return "Q";
    case DType::kFloat16:
      return "e";
    case DType::kFloat32:
      return "f";
    case DType::kFloat64:
      return "d";
  }
  return "";
}

// A view of a numpy array (or an NDArray) as argument `index` of module `fn`.
NDArray as_ndarray(const py::handle& h, size_t index, const CpuModule& mod) {
  if (py::isinstance<NDArray>(h)) return h.cast<NDArray>();
  return array_arg(h, str(mod.name(), ": argument ", index,
                          index < mod.arg_specs().size() ? " '" + mod.arg_specs()[index].name + "'"
                                                         : std::string()));
}

// What Module.time_evaluator's evaluator returns, in TVM's shape: the mean seconds of one call
// in each repeat (`results`) and their statistics.
struct BenchmarkResult {
  std::vector<double> results;
  double mean() const {
    double s = 0;
    for (double r : results) s += r;
    return s / results.size();
  }
  double median() const {
    std::vector<double> v = results;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double std() const {
    double m = mean(), s = 0;
    for (double r : results) s += (r - m) * (r - m);
    return std::sqrt(s / results.size());
  }
};

// One warm-up call (as TVM's), then `repeat` timings of `number` back-to-back calls each.
BenchmarkResult time_calls(const CpuModule& mod, const std::vector<NDArray>& args, int64_t number,
                           int64_t repeat) {
  BenchmarkResult r;
  mod.run(args);
  for (int64_t i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t n = 0; n < number; ++n) mod.run(args);
    std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    r.results.push_back(dt.count() / number);
  }
  return r;
}

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<LoweredFunc>(m, "LoweredFunc")
      .def_property_readonly("name", [](const LoweredFunc& f) { return f.name; })
      .def_property_readonly(
          "work",
          [](const LoweredFunc& f) -> py::object {
            if (!f.work) return py::none();
            py::dict d;
            d["macs"] = f.work->macs;
            d["min_ddr_bytes"] = f.work->min_ddr_bytes;
            d["vector_ops"] = f.work->vector_ops;
            return d;
          },
          "The true work of what the function computes (dict), for roofline figures.")
      .def("__str__", [](const LoweredFunc& f) { return to_string(f); });

  py::class_<NDArray>(m, "NDArray", py::buffer_protocol())
      .def_property_readonly("shape", [](const NDArray& a) { return a.shape(); })
      .def_property_readonly("dtype", [](const NDArray& a) { return dtype_name(a.dtype()); })
      // TVM's NDArray.numpy() / asnumpy(): a numpy copy of the array.
      .def("numpy",
           [](const py::object& self) {
             return py::module_::import("numpy").attr("array")(self, py::arg("copy") = true);
           })
      .def("asnumpy",
           [](const py::object& self) {
             return py::module_::import("numpy").attr("array")(self, py::arg("copy") = true);
           })
      .def_buffer([](NDArray& a) {
        std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
        std::vector<py::ssize_t> strides(shape.size());
        py::ssize_t s = bytes_of(a.dtype());
        for (size_t i = shape.size(); i-- > 0;) {
          strides[i] = s;
          s *= shape[i];
        }
        return py::buffer_info(a.data(), bytes_of(a.dtype()), numpy_format(a.dtype()),
                               static_cast<py::ssize_t>(shape.size()), shape, strides);
      });
  m.def("nd_empty", [](const std::vector<int64_t>& shape, const std::string& dtype) {
    auto t = parse_dtype(dtype);
    if (!t) {
      throw ArgumentError("nd.empty: unknown dtype '" + dtype + "'; known: " + known_dtype_names());
    }
    return NDArray::empty(shape, *t);
  });

  py::class_<CpuModule>(m, "Module")
      .def_property_readonly("name", &CpuModule::name)
      .def_property_readonly("source", &CpuModule::source)
      .def_property_readonly("arg_names",
                             [](const CpuModule& mod) {
                               std::vector<std::string> n;
                               for (const ArgSpec& a : mod.arg_specs()) n.push_back(a.name);
                               return n;
                             })
      .def("__call__",
           [](const CpuModule& mod, const py::args& args) {
             std::vector<NDArray> arrays;
             for (size_t i = 0; i < args.size(); ++i) arrays.push_back(as_ndarray(args[i], i, mod));
             py::gil_scoped_release release;
             mod.run(arrays);
           })
      .def_property_readonly("entry_name", &CpuModule::name, "The function's name (TVM's name).")
      .def(
          "time_evaluator",
          [](const py::object& self, const std::string& func_name, const py::object& /*dev*/,
             int64_t number, int64_t repeat) {
            const CpuModule& mod = self.cast<const CpuModule&>();
            if (func_name != mod.name()) {
              throw ArgumentError(str("time_evaluator: the module has no function '", func_name,
                                      "'; its function is '", mod.name(), "' (Module.entry_name)"));
            }
            if (number < 1 || repeat < 1) {
              throw ArgumentError(
                  str("time_evaluator: number and repeat must be at least 1, got number=", number,
                      ", repeat=", repeat));
            }
            return py::cpp_function([self, number, repeat](const py::args& args) {
              const CpuModule& m = self.cast<const CpuModule&>();
              std::vector<NDArray> arrays;
              for (size_t i = 0; i < args.size(); ++i) arrays.push_back(as_ndarray(args[i], i, m));
              py::gil_scoped_release release;
              return time_calls(m, arrays, number, repeat);
            });
          },
          py::arg("func_name"), py::arg("dev") = py::none(), py::arg("number") = 10,
          py::arg("repeat") = 1,
          "TVM's time_evaluator: a function that runs the module on its arguments once to warm "
          "up, then `repeat` times `number` calls, and returns a BenchmarkResult (seconds per "
          "call). `dev` is accepted for TVM's signature; a C module runs on the host.")
      .def("export_library", &CpuModule::export_library);

  py::class_<BenchmarkResult>(m, "BenchmarkResult")
      .def_property_readonly(
          "results", [](const BenchmarkResult& r) { return py::tuple(py::cast(r.results)); })
      .def_property_readonly("mean", &BenchmarkResult::mean)
      .def_property_readonly("median", &BenchmarkResult::median)
      .def_property_readonly("min",
                             [](const BenchmarkResult& r) {
                               return *std::min_element(r.results.begin(), r.results.end());
                             })
      .def_property_readonly("max",
                             [](const BenchmarkResult& r) {
                               return *std::max_element(r.results.begin(), r.results.end());
                             })
      .def_property_readonly("std", &BenchmarkResult::std)
      .def("__repr__", [](const BenchmarkResult& r) {
        return str("BenchmarkResult(mean=", r.mean(), " s, median=", r.median(), " s, ",
                   r.results.size(), " repeat(s))");
      });
  m.def("load_module", &CpuModule::load);

  // Symbolic shapes (schedule/specialize.h): what python/tessera/symbolic.py needs.
  m.def("_schedule_size_vars", [](Schedule& s, const std::vector<Tensor>& args) {
    std::vector<Expr> out;
    for (const Var& v : schedule_size_vars(s, args)) out.push_back(v);
    return out;
  });
  m.def("_bind_sizes", [](const std::vector<Tensor>& args,
                          const std::vector<std::vector<int64_t>>& shapes,
                          const std::vector<std::pair<Expr, int64_t>>& preset,
                          const std::vector<Expr>& needed) {
    SizeBinding p;
    for (const auto& [v, value] : preset) p[Var(v)] = value;
    std::vector<Var> need;
    for (const Expr& v : needed) need.push_back(Var(v));
    std::vector<std::pair<Expr, int64_t>> out;
    for (const auto& [v, value] : bind_sizes(args, shapes, p, need)) out.push_back({v, value});
    return out;
  });
  m.def("_specialize", [](Schedule& s, const std::vector<Tensor>& args,
                          const std::vector<std::pair<Expr, int64_t>>& sizes) {
    SizeBinding b;
    for (const auto& [v, value] : sizes) {
      const auto* node = v.as<VarNode>();
      if (!node || !node->size_var) {
        throw ArgumentError(str("sizes: key ", to_string(v),
                                " is not a size variable (made by te.var or te.size_var)"));
      }
      b[Var(v)] = value;
    }
    Specialized sp = specialize(s, args, b);
    return std::make_pair(sp.schedule, sp.args);
  });

  // target: "c", "npu" (npu-v1) or an npu.Target; C++ decides what each means.
  m.def(
      "lower",
      [](Schedule& s, const std::vector<Tensor>& args, const std::string& name,
         const PyTarget& target) { return lower(s, args, name, to_target(target)); },
      py::arg("schedule"), py::arg("args"), py::arg("name") = "main", py::arg("target") = "c");
  m.def(
      "build",
      [](Schedule& s, const std::vector<Tensor>& args, const PyTarget& target,
         const std::string& name, const std::optional<std::string>& compiler) {
        CompileOptions c_options;
        if (compiler) c_options.compiler = *compiler;
        return build(s, args, to_target(target), name, c_options);
      },
      py::arg("schedule"), py::arg("args"), py::arg("target") = "c", py::arg("name") = "main",
      py::arg("compiler") = py::none(),
      "Lowers and builds for the target: a Module (C) or an npu.NpuModule (an NPU target). "
      "compiler= names another C compiler (e.g. 'clang') for target 'c', with the default flags.");
  m.def(
      "build",
      [](const LoweredFunc& f, const PyTarget& target, const std::optional<std::string>& compiler) {
        CompileOptions c_options;
        if (compiler) c_options.compiler = *compiler;
        return build(f, to_target(target), c_options);
      },
      py::arg("inputs"), py::arg("target") = "c", py::arg("compiler") = py::none(),
      "Builds a function lower() made for the same target (TVM's build(lower(...))).");
}

}  // namespace tessera::python
