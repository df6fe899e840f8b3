"""TVM's tir names that TE scripts use: call_extern (and call_packed, which says what to write).

    E = te.extern(A.shape, [A], lambda ins, outs: tir.call_extern("int32", "my_func", ins[0],
                  outs[0]), name="E", c_source=SRC)
"""
from ._tessera import ExprError as _ExprError
from ._tessera import te as _te

__all__ = ["call_extern", "call_packed", "const", "shift_left", "shift_right", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not"]


def const(value, dtype="int32"):
    """TVM's tvm.tir.const: a constant of `dtype` (uint64 takes 0 .. 2**64 - 1; float16 rounds)."""
    return _te.const(value, dtype)


def shift_left(x, y):
    """x << y (integers; an amount outside [0, bits) gives 0, as numpy)."""
    return _te._bits("shift_left", x, y)


def shift_right(x, y):
    """x >> y: arithmetic for signed, logical for unsigned types (numpy's)."""
    return _te._bits("shift_right", x, y)


def bitwise_and(x, y):
    return _te._bits("bitwise_and", x, y)


def bitwise_or(x, y):
    return _te._bits("bitwise_or", x, y)


def bitwise_xor(x, y):
    return _te._bits("bitwise_xor", x, y)


def bitwise_not(x):
    return _te._bitwise_not(x)


def call_extern(dtype, func_name, *args):
    """A call of the C function `func_name` returning `dtype` ("int32": a status, 0 for success;
    "void" or "handle": no value), for te.extern's fcompute. Arguments: ins[i] / outs[0] (their
    data pointers), numbers and size expressions (by value)."""
    return _te._call_extern(dtype, func_name, *args)


def call_packed(func_name, *args):
    """TVM's packed-function call (a function registered with tvm.register_func) is not
    supported: write the function in C and call it with call_extern."""
    raise _ExprError(
        f"tir.call_packed('{func_name}', ...): packed functions (registered with "
        "tvm.register_func) are not supported; write the function in C and use "
        f"tir.call_extern(\"int32\", \"{func_name}\", ins[0], ..., outs[0]) with "
        "te.extern(..., c_source=<its C definition>)")
