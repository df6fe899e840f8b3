// Python bindings for the NPU area: target description, assembler, kernel files, simulator in both
// modes, roofline. Registered as the submodule tessera._tessera.npu; python/tessera/npu.py is the
// user-facing wrapper. Errors arrive as tessera.TargetError, KernelFileError, SimulationError,
// ArgumentError (errors.cpp translates them).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

#include "python/src/py_args.h"
#include "python/src/sim_interrupt.h"
#include "runtime/base/error.h"
#include "runtime/npu/assembler.h"
#include "runtime/npu/kernel_file.h"
#include "runtime/npu/roofline.h"
#include "runtime/npu/simulator.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

using namespace tessera::npu;

py::dict stats_dict(const SimStats& s) {
  py::dict units;
  for (int q = 0; q < kNumQueues; ++q) {
    py::dict u;
    u["busy_cycles"] = s.units[q].busy_cycles;
    u["stalled_cycles"] = s.units[q].stalled_cycles;
    u["insns"] = s.units[q].insns;
    units[queue_name(Queue(q))] = u;
  }
  py::dict counts;
  for (int op = 1; op < kNumOpcodes; ++op) counts[opcode_name(Opcode(op))] = s.insn_count[op];
  py::dict d;
  d["cycles"] = s.cycles;
  d["units"] = units;
  d["mac_busy_cycles"] = s.mac_busy_cycles;
  d["vector_busy_cycles"] = s.vector_busy_cycles;
  d["ddr_port_busy_cycles"] = s.ddr_port_busy_cycles;
  d["ddr_bytes_read"] = s.ddr_bytes_read;
  d["ddr_bytes_written"] = s.ddr_bytes_written;
  d["ddr_bytes_fetched"] = s.ddr_bytes_fetched;
  d["sram_peak_bytes"] = s.sram_peak_bytes;
  d["acc_peak_bytes"] = s.acc_peak_bytes;
  d["insn_count"] = counts;
  d["macs"] = s.macs;
  d["vector_ops"] = s.vector_ops;
  return d;
}

py::dict work_dict(const Work& w) {
  py::dict d;
  d["macs"] = w.macs;
  d["min_ddr_bytes"] = w.min_ddr_bytes;
  d["vector_ops"] = w.vector_ops;
  return d;
}

py::dtype numpy_dtype(DType d) {
  return d == DType::kInt32 ? py::dtype::of<int32_t>() : py::dtype::of<int8_t>();
}

// Copies the caller's arrays into a DDR image laid out by the buffer table, runs functional mode,
// and returns every output buffer as a new array of its declared shape.
py::tuple run_functional(const Kernel& k, const Target& t, const py::dict& inputs,
                         bool check_hazards, const py::object& max_work) {
  std::vector<uint8_t> ddr(k.ddr_bytes(), 0);
  for (auto item : inputs) {
    if (!py::isinstance<py::str>(item.first)) {
      throw ArgumentError(str("kernel '", k.name,
                              "': inputs map buffer names (str) to arrays; got a ",
                              describe_py(item.first), " as a key"));
    }
    std::string name = py::cast<std::string>(item.first);
    const BufferDecl& b = k.buffer(name);  // ArgumentError naming the buffers if absent
    if (b.role == BufferRole::kOutput)
      throw ArgumentError(str("kernel '", k.name, "': buffer '", name, "' is an output"));
    py::array given = py::reinterpret_borrow<py::array>(py::array::ensure(item.second));
    if (!given) throw ArgumentError(str("buffer '", name, "': expected an array"));
    std::vector<int64_t> shape(given.shape(), given.shape() + given.ndim());
    if (shape != b.shape)
      throw ArgumentError(str("kernel '", k.name, "': buffer '", name, "' has shape ",
                              py::str(py::tuple(py::cast(b.shape))).cast<std::string>(),
                              " but the array has shape ",
                              py::str(py::tuple(py::cast(shape))).cast<std::string>()));
    if (!given.dtype().is(numpy_dtype(b.dtype)))
      throw ArgumentError(str("kernel '", k.name, "': buffer '", name, "' is ", dtype_name(b.dtype),
                              " but the array is ", py::str(given.dtype()).cast<std::string>()));
    py::array c = py::array::ensure(given, py::array::c_style | py::array::forcecast);
    std::memcpy(ddr.data() + b.ddr_offset, c.data(), b.bytes());
  }
  for (const BufferDecl& b : k.buffers)
    if (b.role == BufferRole::kInput && !inputs.contains(b.name))
      throw ArgumentError(str("kernel '", k.name, "': input buffer '", b.name, "' is missing"));
  SimStats s;
  PySimRun run(max_work);
  try {
    py::gil_scoped_release release;
    run.options.check_hazards = check_hazards;
    s = simulate_functional(k, t, ddr, run.options);
  } catch (const SimulationError&) {
    run.reraise_interrupt();
    throw;
  }
  py::dict outputs;
  for (const BufferDecl& b : k.buffers) {
    if (b.role != BufferRole::kOutput) continue;
    // Explicit C-order strides: the (dtype, shape) constructor is ambiguous for a vector<int64_t>.
    std::vector<py::ssize_t> shape(b.shape.begin(), b.shape.end()), strides(shape.size());
    py::ssize_t step = py::ssize_t(bytes_of(b.dtype));
    for (size_t d = shape.size(); d-- > 0; step *= shape[d]) strides[d] = step;
    py::array out(numpy_dtype(b.dtype), shape, strides);
    std::memcpy(out.mutable_data(), ddr.data() + b.ddr_offset, b.bytes());
    outputs[py::str(b.name)] = out;
  }
  return py::make_tuple(outputs, stats_dict(s));
}

void bind_target(py::module_& m) {
  py::class_<Target> target(m, "Target", "An NPU target description (docs/npu_isa.md, section 1).");
  target.def_readonly("name", &Target::name)
      .def_readonly("clock_hz", &Target::clock_hz)
      .def_readonly("mac_in", &Target::mac_in)
      .def_readonly("mac_out", &Target::mac_out)
      .def_readonly("sram_bytes", &Target::sram_bytes)
      .def_readonly("acc_bytes", &Target::acc_bytes)
      .def_readonly("vector_lanes", &Target::vector_lanes)
      .def_readonly("ddr_bytes_per_cycle", &Target::ddr_bytes_per_cycle)
      .def_readonly("dma_fixed_cycles", &Target::dma_fixed_cycles)
      .def_readonly("dma_row_cycles", &Target::dma_row_cycles)
      .def_readonly("gemm_fixed_cycles", &Target::gemm_fixed_cycles)
      .def_readonly("vector_fixed_cycles", &Target::vector_fixed_cycles)
      .def_readonly("load_queue_depth", &Target::load_queue_depth)
      .def_readonly("compute_queue_depth", &Target::compute_queue_depth)
      .def_readonly("store_queue_depth", &Target::store_queue_depth)
      .def_readonly("token_queue_depth", &Target::token_queue_depth)
      .def_readonly("fetch_burst_insns", &Target::fetch_burst_insns)
      .def_readonly("acc_raw_latency_cycles", &Target::acc_raw_latency_cycles)
      .def_readonly("pad_unit_cycles", &Target::pad_unit_cycles)
      .def_readonly("compute_units", &Target::compute_units)
      .def_property_readonly("block", &Target::block,
                             "The packed layouts' channel block: the MAC array's side.")
      .def_property_readonly("hash", [](const Target& t) { return target_hash(t); })
      .def("to_json", [](const Target& t) { return target_to_json(t); })
      .def("__repr__", [](const Target& t) { return "<npu.Target " + t.name + ">"; });
  m.def("default_target", &default_target, "The built-in npu-v1 description.");
  m.def("load_target", &load_target, py::arg("path"));
  m.def("parse_target", &parse_target, py::arg("json_text"), py::arg("source") = "<string>");
}

void bind_kernel(py::module_& m) {
  py::enum_<Mem>(m, "Mem").value("SRAM", Mem::kSram).value("ACC", Mem::kAcc);
  py::enum_<Queue>(m, "Queue")
      .value("LOAD", Queue::kLoad)
      .value("COMPUTE", Queue::kCompute)
      .value("STORE", Queue::kStore);
  py::enum_<DType>(m, "DType").value("INT8", DType::kInt8).value("INT32", DType::kInt32);
  py::enum_<BufferRole>(m, "BufferRole")
      .value("INPUT", BufferRole::kInput)
      .value("OUTPUT", BufferRole::kOutput)
      .value("SCRATCH", BufferRole::kScratch);
  py::enum_<VecOp> vec(m, "VecOp");
  for (int op = 0; op < kNumVecOps; ++op) {
    std::string name = vec_op_name(VecOp(op));
    for (char& c : name) c = char(std::toupper(c));
    vec.value(name.c_str(), VecOp(op));
  }
  m.attr("POP_PREV") = unsigned(kPopPrev);
  m.attr("POP_NEXT") = unsigned(kPopNext);
  m.attr("PUSH_PREV") = unsigned(kPushPrev);
  m.attr("PUSH_NEXT") = unsigned(kPushNext);

  py::class_<BufferDecl>(m, "Buffer")
      .def_readonly("name", &BufferDecl::name)
      .def_readonly("shape", &BufferDecl::shape)
      .def_property_readonly("dtype", [](const BufferDecl& b) { return dtype_name(b.dtype); })
      .def_property_readonly("role", [](const BufferDecl& b) { return role_name(b.role); })
      .def_readonly("ddr_offset", &BufferDecl::ddr_offset)
      .def_property_readonly("nbytes", &BufferDecl::bytes);

  py::class_<Kernel>(m, "Kernel", "An NPU kernel: buffer table and program.")
      .def_readonly("name", &Kernel::name)
      .def_readonly("target_name", &Kernel::target_name)
      .def_readonly("target_hash", &Kernel::target_hash)
      .def_readonly("buffers", &Kernel::buffers)
      .def_property_readonly("ddr_bytes", &Kernel::ddr_bytes)
      .def_property_readonly(
          "work",
          [](const Kernel& k) -> py::object {
            if (!k.work) return py::none();
            return work_dict(*k.work);
          },
          "The declared true work (dict: macs, min_ddr_bytes, vector_ops), or None.")
      .def("__len__", [](const Kernel& k) { return k.program.size(); })
      .def("disassemble",
           [](const Kernel& k) {
             std::vector<std::string> lines;
             for (const Insn& i : k.program) lines.push_back(disassemble(i));
             return lines;
           })
      .def("to_bytes",
           [](const Kernel& k) {
             std::vector<uint8_t> b = serialize_kernel(k);
             return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
           })
      .def("save", [](const Kernel& k, const std::string& path) { save_kernel(k, path); });
  m.def("load_kernel", &load_kernel, py::arg("path"));
  m.def(
      "kernel_from_bytes",
      [](const py::bytes& data, const std::string& source) {
        std::string s = data;
        return parse_kernel(reinterpret_cast<const uint8_t*>(s.data()), s.size(), source);
      },
      py::arg("data"), py::arg("source") = "<bytes>");

  py::class_<Affine>(m, "Affine")
      .def(py::init(&at), py::arg("base"), py::arg("stride0") = 0, py::arg("stride1") = 0);
  py::class_<Operand>(m, "Operand");
  py::class_<Pad>(m, "Pad").def(py::init([](uint8_t t, uint8_t b, uint8_t l, uint8_t r) {
                                  return Pad{t, b, l, r};
                                }),
                                py::arg("top") = 0, py::arg("bottom") = 0, py::arg("left") = 0,
                                py::arg("right") = 0);
  m.def("at", &at, py::arg("base"), py::arg("stride0") = 0, py::arg("stride1") = 0);
  m.def("sram", &sram, py::arg("base"), py::arg("stride0") = 0, py::arg("stride1") = 0);
  m.def("acc", &acc, py::arg("base"), py::arg("stride0") = 0, py::arg("stride1") = 0);

  using A = Assembler;
  py::class_<A>(m, "Assembler", "Builds a kernel instruction by instruction (assembler.h).")
      .def(py::init<const Target&, std::string>(), py::arg("target"), py::arg("name"))
      .def("buffer", &A::buffer, py::arg("name"), py::arg("shape"), py::arg("dtype"),
           py::arg("role"))
      .def("load", &A::load, py::arg("mem"), py::arg("addr"), py::arg("stride"),
           py::arg("ddr_addr"), py::arg("ddr_stride"), py::arg("rows"), py::arg("cols"),
           py::arg("deps") = 0, py::arg("pad") = Pad{})
      .def("store", &A::store, py::arg("mem"), py::arg("addr"), py::arg("stride"),
           py::arg("ddr_addr"), py::arg("ddr_stride"), py::arg("rows"), py::arg("cols"),
           py::arg("deps") = 0)
      .def("gemm", &A::gemm, py::arg("reset"), py::arg("ext0"), py::arg("ext1"), py::arg("acc"),
           py::arg("inp"), py::arg("wgt"), py::arg("deps") = 0)
      .def("vector", &A::vector, py::arg("op"), py::arg("ext0"), py::arg("ext1"), py::arg("dst"),
           py::arg("src"), py::arg("src2"), py::arg("deps") = 0)
      .def("vector_imm", &A::vector_imm, py::arg("op"), py::arg("ext0"), py::arg("ext1"),
           py::arg("dst"), py::arg("src"), py::arg("imm"), py::arg("deps") = 0)
      .def("relu", &A::relu, py::arg("ext0"), py::arg("ext1"), py::arg("dst"), py::arg("src"),
           py::arg("deps") = 0)
      .def("clip", &A::clip, py::arg("ext0"), py::arg("ext1"), py::arg("dst"), py::arg("src"),
           py::arg("lo"), py::arg("hi"), py::arg("deps") = 0)
      .def("requantize", &A::requantize, py::arg("ext0"), py::arg("ext1"), py::arg("dst"),
           py::arg("src"), py::arg("multiplier"), py::arg("shift"), py::arg("zero_point"),
           py::arg("deps") = 0)
      .def("sync", &A::sync, py::arg("queue"), py::arg("deps"))
      .def(
          "declare_work",
          [](A& a, uint64_t macs, uint64_t min_ddr_bytes, uint64_t vector_ops) {
            a.declare_work(Work{macs, min_ddr_bytes, vector_ops});
          },
          py::arg("macs"), py::arg("min_ddr_bytes"), py::arg("vector_ops"),
          "Declares the true work of what the kernel computes (its roofline bound).")
      .def("finish", &A::finish, py::arg("deps") = 0)
      .def("kernel", &A::kernel)
      .def("__len__", &A::size);
}

void bind_simulator(py::module_& m) {
  m.def(
      "simulate_timing",
      [](const Kernel& k, const Target& t, const py::object& max_work) {
        SimStats s;
        PySimRun run(max_work);
        try {
          py::gil_scoped_release release;
          s = simulate_timing(k, t, run.options);
        } catch (const SimulationError&) {
          run.reraise_interrupt();
          throw;
        }
        return stats_dict(s);
      },
      py::arg("kernel"), py::arg("target"), py::arg("max_work") = py::none(),
      "Timing mode: statistics as a dict. max_work: the work limit (None: the default).");
  m.def("simulate_functional", &run_functional, py::arg("kernel"), py::arg("target"),
        py::arg("inputs"), py::arg("check_hazards") = true, py::arg("max_work") = py::none(),
        "Functional mode: (outputs dict of arrays, statistics dict).");

  py::class_<RooflineBound>(m, "RooflineBound")
      .def_readonly("macs", &RooflineBound::macs)
      .def_readonly("ddr_bytes", &RooflineBound::ddr_bytes)
      .def_readonly("vector_ops", &RooflineBound::vector_ops)
      .def_readonly("mac_cycles", &RooflineBound::mac_cycles)
      .def_readonly("ddr_cycles", &RooflineBound::ddr_cycles)
      .def_readonly("vector_cycles", &RooflineBound::vector_cycles)
      .def_readonly("cycles", &RooflineBound::cycles)
      .def_property_readonly("limited_by", &RooflineBound::limited_by);
  m.def("roofline_bound", py::overload_cast<const Kernel&, const Target&>(&roofline_bound),
        py::arg("kernel"), py::arg("target"), "The bound of the kernel's declared true work.");
  m.def("kernel_roofline_bound", &kernel_roofline_bound, py::arg("kernel"), py::arg("target"),
        "The bound of the kernel's own instructions and buffers.");
  m.def("roofline_bound_of",
        py::overload_cast<const Target&, uint64_t, uint64_t, uint64_t>(&roofline_bound),
        py::arg("target"), py::arg("macs"), py::arg("min_ddr_bytes"), py::arg("vector_ops"));
  m.def("achieved_over_bound", &achieved_over_bound, py::arg("cycles"), py::arg("bound"));
}

}  // namespace

void bind_npu(py::module_& m) {
  py::module_ npu = m.def_submodule("npu", "NPU target, kernels and simulator");
  bind_target(npu);
  bind_kernel(npu);
  bind_simulator(npu);
}

}  // namespace tessera::python
