// Python bindings for schedules: Schedule (s[C], cache_read, cache_write) and Stage primitives.
#include "schedule/schedule.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/src/py_args.h"
#include "python/src/py_handles.h"
#include "runtime/base/error.h"

namespace py = pybind11;

namespace tessera::python {

namespace {

Operation as_op(const py::handle& h) {
  if (py::isinstance<Tensor>(h)) return h.cast<Tensor>().op();
  if (py::isinstance<OperationNode>(h)) return h.cast<PyOperation>();
  throw ScheduleError(str("expected a Tensor or an Operation, got a Python ",
                          std::string(py::str(h.get_type().attr("__name__")))));
}

IterVar as_iv(const py::handle& h, const Stage& st, const char* primitive) {
  if (h.is_none() || !py::isinstance<IterVarNode>(h)) {
    throw ScheduleError(str("stage '", st.name(), "': ", primitive,
                            ": expected an axis (IterVar), got a Python ",
                            std::string(py::str(h.get_type().attr("__name__")))));
  }
  return h.cast<PyIterVar>();
}

Tensor as_tensor(const py::handle& h, const char* primitive) {
  if (py::isinstance<Tensor>(h)) return h.cast<Tensor>();
  throw ScheduleError(str(primitive, ": expected a Tensor, got a Python ",
                          std::string(py::str(h.get_type().attr("__name__")))));
}

// TVM's Python rfactor: one tensor, or a list for a tuple reduction.
py::object one_or_list(const std::vector<Tensor>& ts) {
  return ts.size() == 1 ? py::cast(ts[0]) : py::cast(ts);
}

}  // namespace

void bind_schedule(py::module_& m) {
  py::class_<Stage>(m, "Stage")
      .def_property_readonly("name", &Stage::name)
      .def_property_readonly("op", [](const Stage& s) { return py_op(s.node()->op); })
      .def_property_readonly("leaf_iter_vars",
                             [](const Stage& s) { return py_ivs(s.node()->leaf_iter_vars); })
      .def_property_readonly("scope", [](const Stage& s) { return s.node()->scope; })
      // s[C].rfactor(k, factor_axis): the schedule's rfactor of the stage's tensor.
      .def(
          "rfactor",
          [](Stage& s, const py::object& axis, int factor_axis) {
            return one_or_list(s.schedule()->rfactor(Tensor(s.node()->origin_op),
                                                     as_iv(axis, s, "rfactor"), factor_axis));
          },
          py::arg("axis"), py::arg("factor_axis") = 0)
      .def(
          "split",
          [](Stage& s, const py::object& axis, const py::object& factor, const py::object& nparts) {
            IterVar iv = as_iv(axis, s, "split");
            if (factor.is_none() == nparts.is_none()) {
              throw ScheduleError(str("stage '", s.name(), "': split: axis '", iv->var.name(),
                                      "': give exactly one of factor= and nparts="));
            }
            std::string what = str("stage '", s.name(), "': split: ");
            auto r = factor.is_none()
                         ? s.split_nparts(iv, int64_arg<ScheduleError>(nparts, what + "nparts"))
                         : s.split(iv, int64_arg<ScheduleError>(factor, what + "factor"));
            return py::make_tuple(py_iv(r.first), py_iv(r.second));
          },
          py::arg("parent"), py::arg("factor") = py::none(), py::arg("nparts") = py::none())
      .def(
          "tile",
          [](Stage& s, const py::object& x, const py::object& y, const py::object& xf,
             const py::object& yf) {
            std::string what = str("stage '", s.name(), "': tile: ");
            auto r = s.tile(as_iv(x, s, "tile"), as_iv(y, s, "tile"),
                            int64_arg<ScheduleError>(xf, what + "x_factor"),
                            int64_arg<ScheduleError>(yf, what + "y_factor"));
            return py::make_tuple(py_iv(r[0]), py_iv(r[1]), py_iv(r[2]), py_iv(r[3]));
          },
          py::arg("x_parent"), py::arg("y_parent"), py::arg("x_factor"), py::arg("y_factor"))
      .def("fuse",
           [](Stage& s, const py::args& axes) {
             if (axes.size() < 2) {
               throw ScheduleError(str("stage '", s.name(), "': fuse: needs at least two axes"));
             }
             IterVar f = as_iv(axes[0], s, "fuse");
             for (size_t i = 1; i < axes.size(); ++i) f = s.fuse(f, as_iv(axes[i], s, "fuse"));
             return py_iv(f);
           })
      .def("reorder",
           [](Stage& s, const py::args& axes) {
             std::vector<IterVar> order;
             for (const py::handle& h : axes) order.push_back(as_iv(h, s, "reorder"));
             s.reorder(order);
           })
      .def(
          "unroll", [](Stage& s, const py::object& a) { s.unroll(as_iv(a, s, "unroll")); },
          py::arg("var"))
      .def(
          "vectorize", [](Stage& s, const py::object& a) { s.vectorize(as_iv(a, s, "vectorize")); },
          py::arg("var"))
      .def(
          "parallel", [](Stage& s, const py::object& a) { s.parallel(as_iv(a, s, "parallel")); },
          py::arg("var"))
      .def(
          "pragma",
          [](Stage& s, const py::object& a, const std::string& key, const py::object& value) {
            s.pragma(as_iv(a, s, "pragma"), key,
                     value.is_none() ? "" : std::string(py::str(value)));
          },
          py::arg("var"), py::arg("pragma_type"), py::arg("pragma_value") = py::none())
      .def(
          "compute_at",
          [](Stage& s, const Stage& parent, const py::object& a) {
            s.compute_at(parent, as_iv(a, parent, "compute_at"));
          },
          py::arg("parent"), py::arg("scope"))
      .def("compute_inline", &Stage::compute_inline)
      .def("compute_root", &Stage::compute_root)
      .def("set_scope", &Stage::set_scope, py::arg("scope"))
      .def("double_buffer", &Stage::double_buffer)
      .def("align_extent", &Stage::align_extent, py::arg("axis"), py::arg("factor"))
      .def(
          "tensorize",
          [](Stage& s, const py::object& a, const std::shared_ptr<TensorIntrinNode>& intrin) {
            s.tensorize(as_iv(a, s, "tensorize"), intrin);
          },
          py::arg("var"), py::arg("tensor_intrin"))
      .def("__repr__", [](const Stage& s) { return "Stage(" + s.name() + ")"; });

  py::class_<Schedule, std::shared_ptr<Schedule>>(m, "Schedule")
      .def(
          "__getitem__", [](Schedule& s, const py::object& t) { return s[as_op(t)]; },
          py::keep_alive<0, 1>())
      .def_property_readonly(
          "stages",
          [](Schedule& s) {
            std::vector<Stage> out;
            for (const StagePtr& st : s.stages()) out.emplace_back(&s, st);
            return out;
          },
          py::keep_alive<0, 1>())
      .def_property_readonly("outputs",
                             [](const Schedule& s) {
                               std::vector<Tensor> out;
                               for (const Operation& o : s.outputs()) out.emplace_back(o);
                               return out;
                             })
      .def(
          "cache_read",
          [](Schedule& s, const Tensor& t, const std::string& scope, const py::object& readers) {
            std::vector<Operation> ops;
            if (py::isinstance<Tensor>(readers) || py::isinstance<OperationNode>(readers)) {
              ops.push_back(as_op(readers));
            } else {
              for (const py::handle& h : readers) ops.push_back(as_op(h));
            }
            return s.cache_read(t, scope, ops);
          },
          py::arg("tensor"), py::arg("scope"), py::arg("readers"))
      .def(
          "cache_write",
          [](Schedule& s, const py::object& tensor, const std::string& scope) -> py::object {
            // TVM: a list of a multi-output compute's tensors gives a list of caches.
            if (py::isinstance<py::list>(tensor) || py::isinstance<py::tuple>(tensor)) {
              std::vector<Tensor> ts;
              for (const py::handle& h : tensor) ts.push_back(as_tensor(h, "cache_write"));
              return py::cast(s.cache_write(ts, scope));
            }
            return py::cast(s.cache_write(as_tensor(tensor, "cache_write"), scope));
          },
          py::arg("tensor"), py::arg("scope"),
          "TVM's s.cache_write(C, scope): the cache stage computing C (returned); C's stage "
          "copies it out. A list of a multi-output compute's tensors returns a list of caches.")
      .def(
          "rfactor",
          [](Schedule& s, const Tensor& t, const py::object& axis, int factor_axis) {
            return one_or_list(s.rfactor(t, as_iv(axis, s[t], "rfactor"), factor_axis));
          },
          py::arg("tensor"), py::arg("axis"), py::arg("factor_axis") = 0,
          "TVM's s.rfactor(C, ki, factor_axis=0): partial reductions over loop `ki` in a new "
          "stage (returned; a list for a tuple reduction), and C's stage reducing them.")
      .def("__str__", &Schedule::to_string);

  py::class_<TensorIntrinNode, std::shared_ptr<TensorIntrinNode>>(m, "TensorIntrin")
      .def_property_readonly("name", [](const TensorIntrinNode& t) { return t.name; })
      .def("__str__", &TensorIntrinNode::to_string);
  m.def(
      "npu_gemm_intrin",
      [](const std::optional<npu::Target>& target) {
        return std::const_pointer_cast<TensorIntrinNode>(
            npu_gemm_intrin(npu_target_or_default(target)));
      },
      py::arg("target") = py::none(),
      "The GEMM intrinsic of the target's MAC array (npu-v1 default).");
  m.def(
      "npu_vmac_intrin",
      [](const std::optional<npu::Target>& target) {
        return std::const_pointer_cast<TensorIntrinNode>(
            npu_vmac_intrin(npu_target_or_default(target)));
      },
      py::arg("target") = py::none(),
      "The vector unit's per-lane multiply-accumulate intrinsic (npu-v1 default).");

  m.def(
      "create_schedule",
      [](const py::object& ops) {
        std::vector<Operation> outs;
        if (py::isinstance<py::list>(ops) || py::isinstance<py::tuple>(ops)) {
          for (const py::handle& h : ops) outs.push_back(as_op(h));
        } else {
          outs.push_back(as_op(ops));
        }
        return create_schedule(outs);
      },
      py::arg("ops"));
}

}  // namespace tessera::python
