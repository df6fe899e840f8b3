// Python bindings for the operator library (autotune/templates): operator instances with their
// default schedules, parameters as keyword arguments, each for an NPU target (target=None: npu-v1).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autotune/templates/npu_add.h"
#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_dense.h"
#include "autotune/templates/npu_depthwise_conv2d.h"
#include "autotune/templates/npu_max_pool2d.h"
#include "python/src/py_handles.h"

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
  ops.def(
      "dense",
      [requant](int64_t M, int64_t K, int64_t N, int64_t multiplier, int64_t shift,
                int64_t zero_point, bool relu, const py::object& tile_m, const py::object& tile_nb,
                const py::object& double_buffer, const std::optional<npu::Target>& target) {
        npu::Target t = npu_target_or_default(target);
        // Parameters not given come from the shape-aware defaults.
        NpuDenseParams p = default_dense_params(t, M, K, N);
        if (!tile_m.is_none()) p.tile_m = tile_m.cast<int64_t>();
        if (!tile_nb.is_none()) p.tile_nb = tile_nb.cast<int64_t>();
        if (!double_buffer.is_none()) p.double_buffer = double_buffer.cast<bool>();
        return npu_dense(t, M, K, N, requant(multiplier, shift, zero_point, relu), p);
      },
      py::arg("M"), py::arg("K"), py::arg("N"), py::arg("multiplier"), py::arg("shift"),
      py::arg("zero_point") = 0, py::arg("relu") = false, py::arg("tile_m") = py::none(),
      py::arg("tile_nb") = py::none(), py::arg("double_buffer") = py::none(),
      py::arg("target") = py::none());
  ops.def(
      "conv2d",
      [requant](int64_t C, int64_t H, int64_t W, int64_t K, int64_t R, int64_t S, int64_t stride,
                int64_t pad, int64_t multiplier, int64_t shift, int64_t zero_point, bool relu,
                const py::object& tile_oh, const py::object& tile_kb,
                const py::object& double_buffer, const py::object& fold_channels,
                const std::optional<npu::Target>& target) {
        npu::Target t = npu_target_or_default(target);
        Conv2dShape shape{C, H, W, K, R, S, stride, pad};
        // Parameters not given come from the shape-aware defaults.
        NpuConv2dParams p = default_conv2d_params(t, shape);
        if (!tile_oh.is_none()) p.tile_oh = tile_oh.cast<int64_t>();
        if (!tile_kb.is_none()) p.tile_kb = tile_kb.cast<int64_t>();
        if (!double_buffer.is_none()) p.double_buffer = double_buffer.cast<bool>();
        if (!fold_channels.is_none()) p.fold_channels = fold_channels.cast<bool>();
        return npu_conv2d(t, shape, requant(multiplier, shift, zero_point, relu), p);
      },
      py::arg("C"), py::arg("H"), py::arg("W"), py::arg("K"), py::arg("R"), py::arg("S"),
      py::arg("stride"), py::arg("pad"), py::arg("multiplier"), py::arg("shift"),
      py::arg("zero_point") = 0, py::arg("relu") = false, py::arg("tile_oh") = py::none(),
      py::arg("tile_kb") = py::none(), py::arg("double_buffer") = py::none(),
      py::arg("fold_channels") = py::none(), py::arg("target") = py::none());
  ops.def(
      "conv2d_default_params",
      [](int64_t C, int64_t H, int64_t W, int64_t K, int64_t R, int64_t S, int64_t stride,
         int64_t pad, const std::optional<npu::Target>& target) {
        NpuConv2dParams p = default_conv2d_params(npu_target_or_default(target),
                                                  Conv2dShape{C, H, W, K, R, S, stride, pad});
        py::dict d;
        d["tile_oh"] = p.tile_oh;
        d["tile_kb"] = p.tile_kb;
        d["double_buffer"] = p.double_buffer;
        d["fold_channels"] = p.fold_channels;
        return d;
      },
      py::arg("C"), py::arg("H"), py::arg("W"), py::arg("K"), py::arg("R"), py::arg("S"),
      py::arg("stride"), py::arg("pad"), py::arg("target") = py::none());
  ops.def(
      "depthwise_conv2d",
      [requant](int64_t C, int64_t H, int64_t W, int64_t R, int64_t S, int64_t stride, int64_t pad,
                int64_t multiplier, int64_t shift, int64_t zero_point, bool relu, int64_t tile_oh,
                int64_t tile_cb, bool double_buffer, const std::optional<npu::Target>& target) {
        NpuDepthwiseConv2dParams p;
        p.tile_oh = tile_oh;
        p.tile_cb = tile_cb;
        p.double_buffer = double_buffer;
        return npu_depthwise_conv2d(npu_target_or_default(target),
                                    Conv2dShape{C, H, W, C, R, S, stride, pad},
                                    requant(multiplier, shift, zero_point, relu), p);
      },
      py::arg("C"), py::arg("H"), py::arg("W"), py::arg("R"), py::arg("S"), py::arg("stride"),
      py::arg("pad"), py::arg("multiplier"), py::arg("shift"), py::arg("zero_point") = 0,
      py::arg("relu") = false, py::arg("tile_oh") = NpuDepthwiseConv2dParams().tile_oh,
      py::arg("tile_cb") = NpuDepthwiseConv2dParams().tile_cb,
      py::arg("double_buffer") = NpuDepthwiseConv2dParams().double_buffer,
      py::arg("target") = py::none());
  ops.def(
      "max_pool2d",
      [](int64_t C, int64_t H, int64_t W, int64_t R, int64_t S, int64_t stride, int64_t pad,
         int64_t tile_oh, int64_t tile_cb, bool double_buffer,
         const std::optional<npu::Target>& target) {
        NpuMaxPool2dParams p;
        p.tile_oh = tile_oh;
        p.tile_cb = tile_cb;
        p.double_buffer = double_buffer;
        return npu_max_pool2d(npu_target_or_default(target),
                              Pool2dShape{C, H, W, R, S, stride, pad}, p);
      },
      py::arg("C"), py::arg("H"), py::arg("W"), py::arg("R"), py::arg("S"), py::arg("stride"),
      py::arg("pad") = 0, py::arg("tile_oh") = NpuMaxPool2dParams().tile_oh,
      py::arg("tile_cb") = NpuMaxPool2dParams().tile_cb,
      py::arg("double_buffer") = NpuMaxPool2dParams().double_buffer,
      py::arg("target") = py::none());
  ops.def(
      "add",
      [](int64_t C, int64_t H, int64_t W, bool relu, int64_t tile_h, int64_t tile_cb,
         bool double_buffer, const std::optional<npu::Target>& target) {
        NpuAddParams p;
        p.tile_h = tile_h;
        p.tile_cb = tile_cb;
        p.double_buffer = double_buffer;
        return npu_add(npu_target_or_default(target), C, H, W, relu, p);
      },
      py::arg("C"), py::arg("H"), py::arg("W"), py::arg("relu") = false,
      py::arg("tile_h") = NpuAddParams().tile_h, py::arg("tile_cb") = NpuAddParams().tile_cb,
      py::arg("double_buffer") = NpuAddParams().double_buffer, py::arg("target") = py::none());
}

}  // namespace tessera::python
