"""Arguments of the wrong Python type or size (issue 7): each is a typed tessera error naming the
argument and the expected type, never pybind11's bare "Unable to cast Python instance to C++
type", a bare TypeError, or a silent truncation."""
import re

import numpy as np
import pytest

import tessera
from tessera import te


def two_stage():
    A = te.placeholder((8,), "float32", "A")
    Q = te.compute((8,), lambda i: A[i] + 1.0, name="Q")
    R = te.compute((8,), lambda i: Q[i] * 2.0, name="R")
    return A, Q, R


def test_sum_over_a_data_axis_names_it():
    A = te.placeholder((4, 4), "float32", "A")
    with pytest.raises(tessera.ExprError,
                       match=r"te.sum: axis 'i' is a data axis \(a parameter of the compute's "
                             r"lambda\), not a reduce axis; reduce over an axis made by "
                             r"te.reduce_axis"):
        te.compute((4,), lambda i: te.sum(A[i, 0], axis=i), name="S")


@pytest.mark.parametrize("axis, shown", [("k", "str 'k'"), (3, "int 3"), ([None], "NoneType None")])
def test_sum_over_something_that_is_not_an_axis_says_what_it_got(axis, shown):
    A = te.placeholder((4,), "float32", "A")
    with pytest.raises(tessera.ExprError,
                       match=r"te.sum: axis must be a reduce axis made by te.reduce_axis \(or a "
                             r"list of them\), got " + shown):
        te.compute((1,), lambda i: te.sum(A[i], axis=axis), name="S")
    with pytest.raises(tessera.ExprError, match=r"te.max: axis must be a reduce axis"):
        te.compute((1,), lambda i: te.max(A[i], axis=axis), name="S")


def test_an_integer_literal_wider_than_64_bits_is_an_expr_error():
    A = te.placeholder((4,), "int64", "A")
    with pytest.raises(tessera.ExprError,
                       match=r"integer literal is 1180591620717411303424, which does not fit a "
                             r"64-bit integer"):
        te.compute((4,), lambda i: A[i] + 2**70, name="B")
    with pytest.raises(tessera.ExprError, match=r"te.const: value for int64 is 1180591620717411303424"):
        te.const(2**70, "int64")


@pytest.mark.parametrize("factor, words", [
    (2.5, "must be an integer, got float 2.5"),
    ("4", "must be an integer, got str '4'"),
    (2**70, "is 1180591620717411303424, which does not fit a 64-bit integer"),
    (True, "must be an integer, got bool True"),
])
def test_split_factor_of_the_wrong_type_names_stage_primitive_and_argument(factor, words):
    A, Q, R = two_stage()
    s = te.create_schedule(R.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'R': split: factor " + re.escape(words)):
        s[R].split(R.op.axis[0], factor=factor)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'R': split: nparts " + re.escape(words)):
        s[R].split(R.op.axis[0], nparts=factor)


def test_numpy_integer_factors_are_integers():
    A, Q, R = two_stage()
    s = te.create_schedule(R.op)
    outer, inner = s[R].split(R.op.axis[0], factor=np.int64(4))
    assert inner.extent == 4


def test_tile_factors_are_checked_by_name():
    A = te.placeholder((8, 8), "float32", "A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'B': tile: y_factor must be an integer, "
                                                    r"got float 2.0"):
        s[B].tile(B.op.axis[0], B.op.axis[1], 2, 2.0)


def test_lambda_of_the_wrong_arity_names_the_compute():
    A = te.placeholder((4,), "float32", "A")
    with pytest.raises(tessera.ExprError,
                       match=r"te.compute 'Q': the function takes 1 positional parameter\(s\) \(i\) "
                             r"but the shape \(4, 4\) has 2 dimension\(s\); give it one parameter "
                             r"per dimension"):
        te.compute((4, 4), lambda i: A[i], name="Q")
    with pytest.raises(tessera.ExprError, match=r"te.compute 'Q': the function takes 2 positional "
                                                r"parameter\(s\) \(i, j\) but the shape \(4,\) "
                                                r"has 1 dimension"):
        te.compute((4,), lambda i, j: A[i], name="Q")
    # *args takes any rank; a defaulted extra parameter is allowed.
    assert te.compute((4, 4), lambda *ix: A[ix[0]], name="V").shape == (4, 4)
    assert te.compute((4,), lambda i, unused=0: A[i], name="D").shape == (4,)


def test_compute_at_a_stage_of_another_schedule_is_rejected_at_once():
    A, Q, R = two_stage()
    s1, s2 = te.create_schedule(R.op), te.create_schedule(R.op)
    with pytest.raises(tessera.ScheduleError,
                       match=r"stage 'Q': compute_at: stage 'R' belongs to another schedule; "
                             r"compute_at a stage of this schedule"):
        s1[Q].compute_at(s2[R], R.op.axis[0])
    s1[Q].compute_at(s1[R], R.op.axis[0])  # the same stage of its own schedule is fine
    assert "Q" in str(tessera.lower(s1, [A, R]))


@pytest.mark.parametrize("shape, words", [
    ((2.5,), r"shape\[0\] must be an integer, got float 2.5"),
    (("4",), r"shape\[0\] must be an integer, got str '4'"),
    ((4, None), r"shape\[1\] must be an integer, got NoneType None"),
    ("44", r"shape must be a tuple of integers, got str '44'"),
])
def test_shapes_must_be_integers(shape, words):
    with pytest.raises(tessera.ExprError, match=r"te.placeholder 'X': " + words):
        te.placeholder(shape, "float32", "X")
    A = te.placeholder((4,), "float32", "A")
    with pytest.raises(tessera.ExprError, match=r"te.compute 'C': " + words):
        te.compute(shape, lambda *i: A[0], name="C")


@pytest.mark.parametrize("dom, words", [
    ((0, 2.5), r"dom\[1\] \(end\) must be an integer, got float 2.5"),
    (4, r"dom must be a pair \(min, end\) of integers, got int 4"),
    ((0, 1, 2), r"dom must be a pair \(min, end\) of integers, got tuple \(0, 1, 2\)"),
    ((0, 2**70), r"dom\[1\] \(end\) is 1180591620717411303424, which does not fit"),
])
def test_reduce_axis_domain_must_be_a_pair_of_integers(dom, words):
    with pytest.raises(tessera.ExprError, match=r"te.reduce_axis 'k': " + words):
        te.reduce_axis(dom, name="k")


def test_index_of_the_wrong_type_names_the_tensor():
    A = te.placeholder((4, 4), "float32", "A")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A': index 1 must be an integer expression "
                                                r"\(an axis, an Expr or an int\), got str 'j'"):
        te.compute((4,), lambda i: A[i, "j"], name="B")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A': index 0 must be an integer expression "
                                                r"\(an axis, an Expr or an int\), got float 1.5"):
        te.compute((4,), lambda i: A[1.5, i], name="B")



def test_numpy_scalars_are_literals_like_python_numbers():
    # np.int64 as an index was "cannot use a Python int64 as a tensor expression".
    A = te.placeholder((4,), "float32", "A")
    I = te.placeholder((4,), "int8", "I")
    C = te.compute((4,), lambda i: A[np.int64(1)] * np.float32(0.5) + A[i], name="C")
    D = te.compute((4,), lambda i: te.if_then_else(np.bool_(True), I[i] + np.int32(3), 0),
                   name="D")
    f = tessera.build(te.create_schedule([C.op, D.op]), [A, I, C, D])
    a = np.arange(4, dtype="float32")
    ix = np.array([1, -2, 124, 7], "int8")
    c, d = np.zeros(4, "float32"), np.zeros(4, "int8")
    f(a, ix, c, d)
    np.testing.assert_array_equal(c, a + 0.5)
    np.testing.assert_array_equal(d, (ix.astype(np.int16) + 3).astype(np.int8))  # int8 wraps
    assert D.dtype == "int8"  # a numpy integer takes the type it meets, as a Python int does


def test_npu_run_inputs_keyed_by_something_else_than_a_name_are_an_argument_error():
    from tessera import npu
    a = npu.Assembler(npu.default_target(), "k")
    a.buffer("x", [16], npu.DType.INT8, npu.BufferRole.INPUT)
    k = a.finish()
    with pytest.raises(tessera.ArgumentError, match=r"kernel 'k': inputs map buffer names \(str\) "
                                                    r"to arrays; got a int 0 as a key"):
        npu.run(k, {0: np.zeros(16, np.int8)})


@pytest.mark.parametrize("path, shown", [
    ("/nonexistent/k\0.tnpu", r"'/nonexistent/k\\x00.tnpu'"),
    (b"/nonexistent/\xff\xfe.tnpu", r"'/nonexistent/\\xff\\xfe.tnpu'"),
    ("/nonexistent/b\u20ac.tnpu", r"'/nonexistent/b\u20ac.tnpu'"),
], ids=["nul", "invalid-utf8", "valid-utf8"])
def test_an_error_naming_a_strange_path_shows_all_of_it(path, shown):
    # A NUL cut the message short at the path; invalid UTF-8 made the whole message empty.
    from tessera import npu
    with pytest.raises(tessera.KernelFileError) as e:
        npu.load_kernel(path)
    assert re.fullmatch(r"kernel file " + shown + r": cannot open: .+", str(e.value)), str(e.value)
    with pytest.raises(tessera.RuntimeError, match=r"could not open " + shown + ": "):
        tessera.load_module(path)
