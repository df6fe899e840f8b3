"""Tensor expressions, with TVM's TE names.

    A = te.placeholder((M, K), dtype="float32", name="A")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

Types follow the promotion rules of runtime/base/dtype.h: equal types stay, integers widen to a
type that holds both, an integer meets a float only when the float holds it exactly (else cast
with x.astype(...)). Python numbers take the type of the expression they meet. Integer `/`, `//`
and `%` are floor division and floor modulo (Python's semantics); float `/` is true division.
Python's `and`/`or`/`not`/`if` cannot be overloaded: use `&`, `|`, `~`, te.all, te.any and
te.if_then_else.

As on TVM's te.Tensor, `A + B`, `A * 2`, `1 - A`, `-A` (and / // %) on tensors of one shape, or
with a scalar, are elementwise computes (T_add, T_multiply, ...), and `A[i][j]` reads A[i, j].
"""
import builtins
import inspect
import operator

from ._tessera import create_schedule  # noqa: F401  (TVM has it in te)
from ._tessera.te import (Expr, IterVar, Operation, Tensor, placeholder, reduce_axis, select,  # noqa: F401
                          const, cast, requantize, min_value, max_value, ExternBuffer)
from ._tessera import te as _te
from ._tessera import ExprError as _ExprError

__all__ = ["Expr", "IterVar", "Operation", "Tensor", "placeholder", "reduce_axis", "compute",
           "create_schedule", "sum", "max", "min", "if_then_else", "select", "const", "cast",
           "all", "any", "exp", "log", "sqrt", "tanh", "sigmoid", "abs", "floor", "ceil", "power",
           "floordiv", "floormod", "requantize", "var", "size_var", "comm_reducer", "min_value",
           "max_value", "extern", "ExternBuffer"]


def var(name="tindex", dtype="int32"):
    """A size variable (TVM's te.var): a symbolic extent for shapes, reduce axes and compute
    bodies, bound from the arrays' shapes when a C module is called (tessera.symbolic)."""
    return _te._size_var(name, dtype)


def size_var(name="size", dtype="int32"):
    """TVM's te.size_var: a size variable (tessera's size variables are all at least 1)."""
    return _te._size_var(name, dtype)


def compute(shape, fcompute, name="compute", true_work=None):
    """A tensor of `shape` whose element at (i, j, ...) is fcompute(i, j, ...).

    When fcompute returns a tuple (or list) of n > 1 values, the compute has n outputs, as in
    TVM: a list of tensors of one operation (T.op.output(i), T.op.num_outputs), computed in one
    loop nest; scheduling any output's stage (s[T0] is s[T1]) schedules the operation. The
    values are all elementwise, or the results of one reduction over tuples (te.comm_reducer).

    The axes are named after fcompute's parameters, as in TVM. fcompute takes one parameter per
    dimension of `shape` (ExprError naming the compute otherwise); every extent must be an integer
    (ExprError naming the dimension otherwise: a float is never truncated). `true_work`, a dict
    with macs, min_ddr_bytes and vector_ops (non-negative integers), declares the work of
    computing this tensor at the operator's logical shape (for an operator written in a padded
    layout); NPU roofline figures use it instead of the work computed from the expression."""
    sequence = hasattr(shape, "__len__") and not isinstance(shape, (str, bytes))
    rank = len(shape) if sequence else 1
    try:
        sig = inspect.signature(fcompute)
    except (TypeError, ValueError):  # a builtin or C function: nothing to check
        sig = None
    names = []
    if sig is not None:
        positional = [p for p in sig.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p for p in positional if p.default is p.empty]
        # builtins.any: this module's any() is te.any.
        varargs = builtins.any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())
        if len(required) > rank or (len(positional) < rank and not varargs):
            params = ", ".join(p.name for p in positional) or "none"
            shown = tuple(shape) if sequence else (shape,)
            raise _ExprError(f"te.compute '{name}': the function takes {len(positional)} "
                             f"positional parameter(s) ({params}) but the shape {shown} has "
                             f"{rank} dimension(s); give it one parameter per dimension")
        if len(positional) == rank:
            names = [p.name for p in positional]
    work = None
    if true_work is not None:
        unknown = set(true_work) - {"macs", "min_ddr_bytes", "vector_ops"}
        if unknown:
            raise _ExprError(f"compute '{name}': true_work has unknown keys {sorted(unknown)}; "
                             "it takes macs, min_ddr_bytes and vector_ops")
        work = tuple(_work_count(name, key, true_work.get(key, 0))
                     for key in ("macs", "min_ddr_bytes", "vector_ops"))
    return _te._compute(shape, fcompute, name, names, work)


def extern(shape, inputs, fcompute, name="extern", dtype=None, in_buffers=None,
           out_buffers=None, tag="", attrs=None, c_source=None):
    """TVM's te.extern: a stage computed by a C function, between tensor-expression stages.

        E = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_extern(
                "int32", "my_func", ins[0], outs[0], ins[0].shape[0]),
            name="E", c_source=MY_FUNC_C)

    fcompute(ins, outs) gets the buffers of `inputs` and of the output (name, shape, dtype, data)
    and returns tessera.tir.call_extern(ret_dtype, "func", args...): a buffer passes its data
    pointer (dense, row-major; `float*` for float32), a number or size expression passes by value
    (int32_t for ints). `c_source` is the C code that defines the function (tessera compiles it
    into the module); an integer return value is a status, nonzero fails the call (RuntimeError).
    One output; dtype defaults to inputs[0]'s. Target c only. The stage has no axes: it runs at
    the root, and the stages it reads stay at the root (ScheduleError naming the stages
    otherwise). in_buffers/out_buffers are not supported; tag and attrs are ignored."""
    if in_buffers is not None or out_buffers is not None:
        raise _ExprError(f"te.extern '{name}': in_buffers/out_buffers are not supported; tessera "
                         "passes each tensor's dense buffer")
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    return _te._extern(shape, list(inputs), fcompute, name, dtype, c_source)


def _work_count(name, key, value):
    """A true_work entry: a non-negative integer (never a truncated float)."""
    if (isinstance(value, bool) or not hasattr(value, "__index__")
            or not 0 <= operator.index(value) < 2**64):
        raise _ExprError(f"compute '{name}': true_work[{key!r}] must be a non-negative integer, "
                         f"got {type(value).__name__} {value!r}")
    return operator.index(value)


def _axes(axis):
    return axis if isinstance(axis, (list, tuple)) else [axis]


def sum(expr, axis, where=None, init=None):  # noqa: A001  (TVM's name)
    """Sum of `expr` over the reduce axis or axes `axis` (points where `where` is false skipped),
    starting from `init` (an expression over the data axes, TVM's init=) instead of 0."""
    return _te._sum(expr, _axes(axis), where, init)


def max(a, b=None, axis=None, where=None, init=None):  # noqa: A001
    """te.max(expr, axis=k) reduces (from `init` when given); te.max(a, b) is the elementwise
    maximum."""
    if axis is not None:
        return _te._max_reduce(a, _axes(axis), where, init)
    if isinstance(b, (IterVar, list, tuple)):
        return _te._max_reduce(a, _axes(b), where, init)
    return _te._binary_max(a, b)


def min(a, b=None, axis=None, where=None, init=None):  # noqa: A001
    """te.min(expr, axis=k) reduces (from `init` when given); te.min(a, b) is the elementwise
    minimum."""
    if axis is not None:
        return _te._min_reduce(a, _axes(axis), where, init)
    if isinstance(b, (IterVar, list, tuple)):
        return _te._min_reduce(a, _axes(b), where, init)
    return _te._binary_min(a, b)


def comm_reducer(fcombine, fidentity, name="comm_reduce"):
    """TVM's te.comm_reducer: a reduction from a commutative, associative combiner.

        mysum = te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, dtype=t), name="mysum")
        C = te.compute((n,), lambda i: mysum(A[i, k], axis=k), name="C")

    fcombine(x, y) combines two values of the source's type (arithmetic, min/max, selects; no
    tensor reads); fidentity(dtype) gives its identity. The reducer takes where= and init= as
    te.sum does.

    Over tuples (TVM's argmax): the reduction of a tuple of sources gives one result per source,
    computed together by a multi-output te.compute; fcombine(x, y) gets tuples x, y and returns a
    tuple, fidentity(*dtypes) a tuple:

        def fcombine(x, y):
            take = x[1] >= y[1]
            return te.if_then_else(take, x[0], y[0]), te.if_then_else(take, x[1], y[1])
        argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)))
        T0, T1 = te.compute((m,), lambda i: argmax((k.var, A[i, k]), axis=k))
    """
    code = getattr(fcombine, "__code__", None)
    names = list(code.co_varnames[:2]) if code is not None and code.co_argcount >= 2 else []
    lname, rname = names if len(names) == 2 else ("x", "y")

    def reducer(expr, axis, where=None, init=None):
        if isinstance(expr, (tuple, list)):
            if len(expr) > 1:
                return tuple(_te._comm_reduce_tuple(name, fcombine, fidentity, list(expr),
                                                    _axes(axis), where, init, lname, rname))
            expr = expr[0]
            if isinstance(init, (tuple, list)) and len(init) == 1:
                init = init[0]
        return _te._comm_reduce(name, fcombine, fidentity, expr, _axes(axis), where, init)
    reducer.__name__ = name
    return reducer


def if_then_else(cond, t, f):
    """`t` where `cond` holds, else `f` (only the chosen side is evaluated)."""
    return select(cond, t, f)


def all(*conds):  # noqa: A001
    """Logical and of bool expressions."""
    out = conds[0]
    for c in conds[1:]:
        out = _te._binary("and", out, c)
    return out


def any(*conds):  # noqa: A001
    """Logical or of bool expressions."""
    out = conds[0]
    for c in conds[1:]:
        out = _te._binary("or", out, c)
    return out


def floordiv(a, b):
    return _te._binary("floordiv", a, b)


def floormod(a, b):
    return _te._binary("floormod", a, b)


def exp(x): return _te._call("exp", x)
def log(x): return _te._call("log", x)
def sqrt(x): return _te._call("sqrt", x)
def tanh(x): return _te._call("tanh", x)
def sigmoid(x): return _te._call("sigmoid", x)
def abs(x): return _te._call("abs", x)  # noqa: A001
def floor(x): return _te._call("floor", x)
def ceil(x): return _te._call("ceil", x)
def power(x, y): return _te._call("pow", x, y)
