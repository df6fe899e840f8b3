// Python bindings for the operator library (autotune/templates): operator instances with their
// default schedules, parameters as keyword arguments.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_dense.h"

namespace py = pybind11;

namespace tessera::python {

void bind_autotune(py::module_& m) {
  py::module_ ops = m.def_submodule("npu_ops", "the NPU operator library");
  py::class_<NpuOp>(ops, "NpuOp")
      .def_readonly("name", &NpuOp::name)
      .def_readonly("args", &NpuOp::args)
      .def_readonly("schedule", &NpuOp::schedule);
  auto requant = [](int64_t multiplier, int64_t shift, int64_t zero_point, bool relu) {
    Requant q;
    q.multiplier = multiplier;
    q.shift = shift;
    q.zero_point = zero_point;
    q.relu = relu;
    return q;
  };
  ops.def("dense", [requant](int64_t M, int64_t K, int64_t N, int64_t multiplier, int64_t shift,
                             int64_t zero_point, bool relu, int64_t tile_m, int64_t tile_nb,
                             bool double_buffer) {
    NpuDenseParams p;
    p.tile_m = tile_m;
    p.tile_nb = tile_nb;
    p.double_buffer = double_buffer;
    return npu_dense(M, K, N, requant(multiplier, shift, zero_point, relu), p);
  }, py::arg("M"), py::arg("K"), py::arg("N"), py::arg("multiplier"), py::arg("shift"),
     py::arg("zero_point") = 0, py::arg("relu") = false, py::arg("tile_m") = NpuDenseParams().tile_m,
     py::arg("tile_nb") = NpuDenseParams().tile_nb,
     py::arg("double_buffer") = NpuDenseParams().double_buffer);
  ops.def("conv2d", [requant](int64_t C, int64_t H, int64_t W, int64_t K, int64_t R, int64_t S,
                              int64_t stride, int64_t pad, int64_t multiplier, int64_t shift,
                              int64_t zero_point, bool relu, int64_t tile_oh, int64_t tile_kb,
                              bool double_buffer) {
    NpuConv2dParams p;
    p.tile_oh = tile_oh;
    p.tile_kb = tile_kb;
    p.double_buffer = double_buffer;
    return npu_conv2d(Conv2dShape{C, H, W, K, R, S, stride, pad},
                      requant(multiplier, shift, zero_point, relu), p);
  }, py::arg("C"), py::arg("H"), py::arg("W"), py::arg("K"), py::arg("R"), py::arg("S"),
     py::arg("stride"), py::arg("pad"), py::arg("multiplier"), py::arg("shift"),
     py::arg("zero_point") = 0, py::arg("relu") = false,
     py::arg("tile_oh") = NpuConv2dParams().tile_oh, py::arg("tile_kb") = NpuConv2dParams().tile_kb,
     py::arg("double_buffer") = NpuConv2dParams().double_buffer);
}

}  // namespace tessera::python
