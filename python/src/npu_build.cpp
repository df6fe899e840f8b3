// Python bindings for building NPU modules: build_npu(func, target) -> NpuModule, callable with
// numpy arrays like the CPU Module (outputs written in place). Registered into the `npu`
// submodule (tessera._tessera.npu) next to Kernel and Target, so .kernel returns the same
// Kernel class the assembler bindings use. module.cpp calls bind_npu_build after bind_npu.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "codegen/npu/build_npu.h"
#include "python/src/array_arg.h"
#include "python/src/sim_interrupt.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

// A view of argument `index` (a C-contiguous numpy array) for module `mod`.
NDArray npu_arg(const py::handle& h, size_t index, const NpuModule& mod) {
  const auto& bufs = mod.kernel().buffers;
  return array_arg(h, str(mod.name(), ": argument ", index,
                          index < bufs.size() ? " '" + bufs[index].name + "'" : std::string()));
}

}  // namespace

void bind_npu_build(py::module_& m) {
  py::module_ npu = py::hasattr(m, "npu") ? py::module_(m.attr("npu"))
                                          : m.def_submodule("npu", "NPU target and kernels");
  py::class_<NpuModule>(npu, "NpuModule",
                        "An NPU kernel with its target; call it with numpy arrays.")
      .def_property_readonly("name", &NpuModule::name)
      .def_property_readonly("kernel", &NpuModule::kernel)
      .def_property_readonly("target", &NpuModule::target)
      .def(
          "__call__",
          [](const NpuModule& mod, const py::args& args, const py::kwargs& kwargs) {
            py::object max_work = py::none();
            for (auto item : kwargs) {
              if (py::str(item.first).cast<std::string>() != "max_work")
                throw ArgumentError(str(mod.name(), ": unknown keyword argument '",
                                        py::str(item.first).cast<std::string>(),
                                        "' (the only one is max_work)"));
              max_work = py::reinterpret_borrow<py::object>(item.second);
            }
            std::vector<NDArray> arrays;
            for (size_t i = 0; i < args.size(); ++i) arrays.push_back(npu_arg(args[i], i, mod));
            PySimRun run(max_work);
            try {
              py::gil_scoped_release release;
              mod.run(arrays, run.options);
            } catch (const SimulationError&) {
              run.reraise_interrupt();
              throw;
            }
          },
          "Runs the kernel on numpy arrays (outputs written in place); max_work= raises the "
          "simulator's work limit.")
      .def(
          "timing",
          [npu](const NpuModule& mod, const py::object& max_work) {
            // The same statistics dict as npu.simulate_timing (one definition, in npu.cpp).
            return npu.attr("simulate_timing")(mod.kernel(), mod.target(), max_work);
          },
          py::arg("max_work") = py::none(),
          "Timing mode: dict with cycles and per-unit statistics.")
      .def(
          "roofline",
          [](const NpuModule& mod) {
            npu::RooflineBound b = mod.roofline();
            npu::SimStats s;
            PySimRun run;
            try {
              py::gil_scoped_release release;
              s = mod.timing(run.options);
            } catch (const SimulationError&) {
              run.reraise_interrupt();
              throw;
            }
            py::dict d;
            d["cycles"] = s.cycles;
            d["bound"] = b.cycles;
            d["fraction"] = s.cycles ? b.cycles / double(s.cycles) : 0.0;
            d["macs"] = b.macs;
            d["ddr_bytes"] = b.ddr_bytes;
            d["vector_ops"] = b.vector_ops;
            d["mac_cycles"] = b.mac_cycles;
            d["ddr_cycles"] = b.ddr_cycles;
            d["vector_cycles"] = b.vector_cycles;
            return d;
          },
          "Achieved cycles against the roofline bound: fraction = bound / cycles (1 is the limit).")
      .def("save", &NpuModule::save, py::arg("path"))
      .def("__repr__", [](const NpuModule& mod) {
        return str("<npu.NpuModule ", mod.name(), " on ", mod.target().name, ", ",
                   mod.kernel().program.size(), " instructions>");
      });
  npu.def(
      "build_npu",
      [](const LoweredFunc& f, const std::optional<npu::Target>& target) {
        return build_npu(f, target ? *target : npu::default_target());
      },
      py::arg("func"), py::arg("target") = py::none(),
      "Compiles a lowered function (NPU statements) into an NpuModule.");
  npu.def(
      "load_npu_module",
      [](const std::string& path, const std::optional<npu::Target>& target) {
        return NpuModule::load(path, target ? *target : npu::default_target());
      },
      py::arg("path"), py::arg("target") = py::none());
}

}  // namespace tessera::python
