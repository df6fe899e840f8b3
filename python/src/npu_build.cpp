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

// A roofline bound against the module's timing run, as a dict.
py::dict roofline_dict(const npu::RooflineBound& b, uint64_t cycles) {
  py::dict d;
  d["cycles"] = cycles;
  d["bound"] = b.cycles;
  d["fraction"] = cycles ? b.cycles / double(cycles) : 0.0;
  d["limited_by"] = b.limited_by();
  d["macs"] = b.macs;
  d["ddr_bytes"] = b.ddr_bytes;
  d["vector_ops"] = b.vector_ops;
  d["mac_cycles"] = b.mac_cycles;
  d["ddr_cycles"] = b.ddr_cycles;
  d["vector_cycles"] = b.vector_cycles;
  return d;
}

// Timing mode for a roofline figure, interruptible with Ctrl-C like every simulation.
uint64_t timing_cycles(const NpuModule& mod) {
  PySimRun run;
  try {
    py::gil_scoped_release release;
    return mod.timing(run.options).cycles;
  } catch (const SimulationError&) {
    run.reraise_interrupt();
    throw;
  }
}

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
            npu::SimOptions options;
            py::object max_work = py::none();
            for (auto item : kwargs) {
              std::string key = py::cast<std::string>(item.first);
              if (key == "max_work") {
                max_work = py::reinterpret_borrow<py::object>(item.second);
              } else if (key == "check_hazards") {
                options.check_hazards = py::cast<bool>(item.second);
              } else {
                throw ArgumentError(str(mod.name(), ": unknown keyword argument '", key,
                                        "' (the keywords are check_hazards and max_work)"));
              }
            }
            std::vector<NDArray> arrays;
            for (size_t i = 0; i < args.size(); ++i) arrays.push_back(npu_arg(args[i], i, mod));
            PySimRun run(max_work);
            run.options.check_hazards = options.check_hazards;
            try {
              py::gil_scoped_release release;
              mod.run(arrays, run.options);
            } catch (const SimulationError&) {
              run.reraise_interrupt();
              throw;
            }
          },
          "Runs the kernel on the functional simulator: outputs written in place. "
          "check_hazards=False skips the hazard check (docs/npu_isa.md section 6); max_work= sets "
          "the simulator's work limit (section 8). Ctrl-C raises KeyboardInterrupt.")
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
          [](const NpuModule& mod) { return roofline_dict(mod.roofline(), timing_cycles(mod)); },
          "Achieved cycles against the roofline bound of the operator's true work (unpadded "
          "MACs, minimum DDR bytes): fraction = bound / cycles (1 is the physical limit).")
      .def(
          "kernel_roofline",
          [](const NpuModule& mod) {
            return roofline_dict(mod.kernel_roofline(), timing_cycles(mod));
          },
          "The same against the bound of the kernel's own instructions and buffers (padded work "
          "counts as work, so this fraction flatters a padded layout).")
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
