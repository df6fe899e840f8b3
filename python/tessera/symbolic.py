"""Symbolic shapes (TVM's te.var / te.size_var) on the C target.

    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    f = tessera.build(s, [A, B], target="c")     # a SymbolicModule
    f(a, b)                                      # n bound from a.shape; checked against b.shape

tessera lowers a symbolic shape per size: the module binds every size variable from the shapes
of the arrays it is called with (C++ bind_sizes: an inconsistent binding or a dimension that does
not match is an ArgumentError naming the variable and the argument), specializes the schedule to
those numbers (schedule/specialize.h: bound inference, simplification and the tail guards of
splits run on them) and compiles once per set of sizes. `lower(s, args, sizes={n: 100})` shows
the loop IR for one size; NPU targets need constant shapes (TargetError naming the variable).
A size variable that is no argument's dimension is passed as an argument, as in TVM:
`build(s, [A, B, m])` then `f(a, b, 5)`.
"""
import operator

import numpy as np

from . import _tessera
from ._tessera.te import Expr, Tensor

_ORDER = {"lower": ("schedule", "args", "name", "target"),
          "build": ("schedule", "args", "target", "name", "compiler")}


def _params(kind, a, kw):
    """The arguments of lower/build by name (None when absent); TVM's CPU target names ("llvm",
    "llvm -mcpu=...") are target c, the host CPU, and lower's simple_mode is accepted (tessera
    prints one form)."""
    out = dict(zip(_ORDER[kind], a))
    out.update(kw)
    out.pop("simple_mode", None)
    t = out.get("target")
    if isinstance(t, str) and (t == "llvm" or t.startswith("llvm ")):
        out["target"] = "c"
    return out


def _forward(fn, p):
    """Calls _tessera's lower/build with the normalised arguments."""
    return fn(**p)


def _split_args(args):
    return ([x for x in args if isinstance(x, Tensor)],
            [x for x in args if not isinstance(x, Tensor)])


def _binding(sizes, size_vars):
    """sizes= as (variable, value) pairs; keys are variables or their names."""
    out = []
    for key, value in sizes.items():
        if isinstance(key, str):
            found = [v for v in size_vars if str(v) == key]
            if not found:
                names = ", ".join(str(v) for v in size_vars) or "none"
                raise _tessera.ArgumentError(f"sizes: no size variable named '{key}' in the "
                                             f"schedule (its size variables: {names})")
            key = found[0]
        out.append((key, operator.index(value)))
    return out


def _specialize_sizes(sch, tensors, sizes):
    """(schedule, args) of `sch` specialized to sizes= ({var or name: value})."""
    return _tessera._specialize(sch, tensors,
                                _binding(sizes, _tessera._schedule_size_vars(sch, tensors)))


def _is_symbolic(sch, args):
    tensors, scalars = _split_args(args)
    return bool(scalars) or bool(_tessera._schedule_size_vars(sch, tensors))


def lower(*a, sizes=None, **kw):
    """tessera.lower; with sizes={var: value} (or {"n": value}) the schedule specialized to them."""
    p = _params("lower", a, kw)
    sch, args = p.get("schedule"), p.get("args")
    if sizes is None or not isinstance(sch, _tessera.Schedule):
        if isinstance(sch, _tessera.Schedule) and args is not None:
            # TVM passes size variables among the arguments; the C++ lower names the variable.
            p["args"] = _split_args(args)[0]
        return _forward(_tessera.lower, p)
    rest = {k: v for k, v in p.items() if k not in ("schedule", "args")}
    return _tessera.lower(*_specialize_sizes(sch, _split_args(args)[0], sizes), **rest)


def build(*a, sizes=None, **kw):
    """tessera.build; a symbolic schedule on target c gives a SymbolicModule (bound per call),
    sizes= builds one size."""
    sch = a[0] if a else kw.get("schedule", kw.get("inputs"))
    if not isinstance(sch, _tessera.Schedule):  # build(lower(...), target): (inputs, target, ...)
        p = dict(zip(("inputs", "target", "compiler"), a))
        p.update(kw)
        t = p.get("target")
        if isinstance(t, str) and (t == "llvm" or t.startswith("llvm ")):
            p["target"] = "c"
        return _tessera.build(**p)
    p = _params("build", a, kw)
    args = p.get("args")
    if args is None or (sizes is None and not _is_symbolic(sch, args)):
        return _forward(_tessera.build, p)
    rest = {k: v for k, v in p.items() if k not in ("schedule", "args")}
    tensors, _ = _split_args(args)
    if sizes is not None:
        return _tessera.build(*_specialize_sizes(sch, tensors, sizes), **rest)
    target = rest.get("target", "c")
    if not (isinstance(target, str) and target == "c"):
        return _tessera.build(sch, tensors, **rest)  # TargetError naming the size variable
    return SymbolicModule(sch, list(args), rest.get("name", "main"), rest.get("compiler"))


class SymbolicModule:
    """A C module over symbolic shapes: each call binds the sizes from its arrays, and the
    kernel for those sizes is compiled on first use and kept."""

    def __init__(self, sch, args, name, compiler):
        self._sch = sch
        self._args = args
        self._name = name
        self._compiler = compiler
        self._tensors, scalars = _split_args(args)
        self._needed = _tessera._schedule_size_vars(sch, self._tensors)
        for x in scalars:
            if not _is_size_var(x):
                raise _tessera.ArgumentError(
                    f"build: argument {x!r} is neither a tensor nor a size variable "
                    "(made by te.var or te.size_var)")
        self._modules = {}

    @property
    def entry_name(self):
        return self._name

    @property
    def specializations(self):
        """The sizes compiled so far, each a dict {variable name: value}, in first-use order."""
        return [dict(k) for k in self._modules]

    def _module_for(self, call_args):
        if len(call_args) != len(self._args):
            raise _tessera.ArgumentError(
                f"function '{self._name}' takes {len(self._args)} arguments "
                f"({', '.join(str(a.name) if isinstance(a, Tensor) else str(a) for a in self._args)}),"
                f" got {len(call_args)}")
        shapes, preset, arrays = [], [], []
        for decl, value in zip(self._args, call_args):
            if isinstance(decl, Tensor):
                shapes.append([int(d) for d in np.shape(value)] if not hasattr(value, "shape")
                              else [int(d) for d in value.shape])
                arrays.append(value)
            else:
                if isinstance(value, bool) or not hasattr(value, "__index__"):
                    raise _tessera.ArgumentError(
                        f"size variable '{decl}' is passed as an argument: give an integer, "
                        f"got {type(value).__name__}")
                preset.append((decl, operator.index(value)))
        binding = _tessera._bind_sizes(self._tensors, shapes, preset, self._needed)
        key = tuple((str(v), value) for v, value in binding)
        mod = self._modules.get(key)
        if mod is None:
            mod = self._modules[key] = self._build(binding)
        return mod, arrays

    def _build(self, binding):
        spec, spec_args = _tessera._specialize(self._sch, self._tensors, binding)
        return _tessera.build(spec, spec_args, target="c", name=self._name,
                              compiler=self._compiler)

    def __call__(self, *args):
        mod, arrays = self._module_for(args)
        mod(*arrays)

    def specialized(self, **sizes):
        """The module built for the given sizes, by variable name (its .source shows the C)."""
        return self._build(_binding(sizes, self._needed))

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1):
        """TVM's time_evaluator: times the kernel for the sizes of the arrays it is called with."""
        if func_name != self._name:
            raise _tessera.ArgumentError(
                f"time_evaluator: the module has no function '{func_name}'; its function is "
                f"'{self._name}' (Module.entry_name)")

        def run(*args):
            mod, arrays = self._module_for(args)
            return mod.time_evaluator(func_name, dev, number=number, repeat=repeat)(*arrays)
        return run


def _is_size_var(x):
    return isinstance(x, Expr) and x.is_size_var
