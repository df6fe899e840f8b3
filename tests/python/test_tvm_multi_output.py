"""Multi-output compute and te.comm_reducer over tuples (issue 13), as TVM's tests write them:
build, run, compare with numpy (integers bit-exact; a tuple reduction against a numpy fold in the
same order, so that ties are decided by the comparison fcombine writes)."""
import numpy as np
import pytest

import tessera
from tessera import te


def run(s, args, inputs, **kw):
    """Builds for C, runs on `inputs` (numpy arrays for the leading args), returns the outputs."""
    f = tessera.build(s, args, target="c")
    outs = [np.zeros(t.shape, dtype=t.dtype) for t in args[len(inputs):]]
    f(*inputs, *outs, **kw)
    return outs


# ---- multi-output compute ---------------------------------------------------------------------

def test_compute_returning_a_tuple_gives_the_outputs_of_one_operation():
    A = te.placeholder((4, 6), dtype="int32", name="A")
    T = te.compute((4, 6), lambda i, j: (A[i, j] + 1, A[i, j] * 3), name="T")
    assert isinstance(T, list) and len(T) == 2
    T0, T1 = T
    assert T0.op is T1.op and T0.op.num_outputs == 2
    assert T0.op.output(0) == T0 and T0.op.output(1) == T1
    assert (T0.value_index, T1.value_index) == (0, 1)
    assert (T0.name, T1.name) == ("T.v0", "T.v1")
    assert len(T0.op.body) == 2 and T0.shape == T1.shape == (4, 6)
    a = np.random.default_rng(0).integers(-99, 99, (4, 6)).astype("int32")
    t0, t1 = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a + 1)
    np.testing.assert_array_equal(t1, a * 3)


def test_multi_output_compute_is_one_loop_nest_writing_each_output():
    A = te.placeholder((8,), name="A")
    T0, T1 = te.compute((8,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="T")
    text = str(tessera.lower(te.create_schedule(T0.op), [A, T0, T1]))
    assert text.count("for (") == 1 and "T.v0[i] =" in text and "T.v1[i] =" in text


def test_outputs_may_have_different_types():
    A = te.placeholder((5,), name="A")
    T0, T1 = te.compute((5,), lambda i: (A[i] * 2.0, (A[i] > 0.5).astype("int32")), name="T")
    assert (T0.dtype, T1.dtype) == ("float32", "int32")
    a = np.random.default_rng(1).random(5).astype("float32")
    t0, t1 = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a * 2)
    np.testing.assert_array_equal(t1, (a > 0.5).astype("int32"))


def test_scheduling_any_output_schedules_the_operation():
    A = te.placeholder((9, 10), dtype="int32", name="A")
    T0, T1 = te.compute((9, 10), lambda i, j: (A[i, j] - 1, A[i, j] * A[i, j]), name="T")
    s = te.create_schedule([T0.op])
    i, j = s[T1].op.axis                       # s[T1] is s[T0]: one stage
    jo, ji = s[T1].split(j, factor=4)           # 10 = 4 * 3 - 2: a guarded tail
    s[T0].reorder(jo, i, ji)
    s[T0].vectorize(ji)
    text = str(tessera.lower(s, [A, T0, T1]))
    assert "j.outer" in text and text.count("// produce") == 1
    a = np.random.default_rng(2).integers(-99, 99, (9, 10)).astype("int32")
    t0, t1 = run(s, [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a - 1)
    np.testing.assert_array_equal(t1, a * a)


def test_multi_output_stage_computed_at_its_consumer():
    A = te.placeholder((6, 7), name="A")
    X, Y = te.compute((6, 7), lambda i, j: (A[i, j] + 1.0, A[i, j] * 2.0), name="XY")
    C = te.compute((6, 7), lambda i, j: X[i, j] - Y[i, j], name="C")
    s = te.create_schedule(C.op)
    s[X].compute_at(s[C], C.op.axis[0])       # both outputs move: one stage
    s[Y].split(s[Y].op.axis[1], factor=3)
    text = str(tessera.lower(s, [A, C]))
    assert "allocate XY.v0" in text and "allocate XY.v1" in text
    a = np.random.default_rng(3).standard_normal((6, 7)).astype("float32")
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, (a + np.float32(1)) - a * np.float32(2))


def test_a_stage_computed_inside_the_multi_output_stage():
    A = te.placeholder((6, 8), dtype="int32", name="A")
    B = te.compute((6, 8), lambda i, j: A[i, j] * 5, name="B")
    T0, T1 = te.compute((6, 8), lambda i, j: (B[i, j] + 1, B[i, j] - 1), name="T")
    s = te.create_schedule(T0.op)
    io, ii = s[T1].split(s[T1].op.axis[0], factor=4)
    s[B].compute_at(s[T0], io)
    a = np.random.default_rng(4).integers(-99, 99, (6, 8)).astype("int32")
    t0, t1 = run(s, [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a * 5 + 1)
    np.testing.assert_array_equal(t1, a * 5 - 1)


def test_only_some_outputs_as_arguments():
    # An output that is not an argument gets a buffer of its own, as any intermediate.
    A = te.placeholder((5,), dtype="int32", name="A")
    T0, T1 = te.compute((5,), lambda i: (A[i] + 1, A[i] + 2), name="T")
    C = te.compute((5,), lambda i: T0[i] * T1[i], name="C")
    s = te.create_schedule(C.op)
    a = np.arange(5, dtype="int32")
    t1, c = run(s, [A, T1, C], [a])
    np.testing.assert_array_equal(t1, a + 2)
    np.testing.assert_array_equal(c, (a + 1) * (a + 2))


def test_multi_output_compute_with_a_symbolic_shape():
    n = te.var("n")
    A = te.placeholder((n,), dtype="int32", name="A")
    T0, T1 = te.compute((n,), lambda i: (A[i] + 1, A[i] * 2), name="T")
    s = te.create_schedule(T0.op)
    s[T0].split(s[T0].op.axis[0], factor=4)
    f = tessera.build(s, [A, T0, T1], target="c")
    for size in (3, 9):
        a = np.arange(size, dtype="int32") - 4
        t0, t1 = np.zeros(size, "int32"), np.zeros(size, "int32")
        f(a, t0, t1)
        np.testing.assert_array_equal(t0, a + 1)
        np.testing.assert_array_equal(t1, a * 2)


# ---- te.comm_reducer over tuples ------------------------------------------------------------------

def _argmax_reducer(cmp="ge"):
    # TVM's test_reduce argmax, with the comparison as a parameter: ">=" keeps the accumulated
    # (earlier) index on a tie, ">" takes the new (later) one.
    def fcombine(x, y):
        keep = x[1] >= y[1] if cmp == "ge" else x[1] > y[1]
        lhs = te.if_then_else(keep, x[0], y[0])
        rhs = te.if_then_else(keep, x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)

    return te.comm_reducer(fcombine, fidentity, name="argmax")


def _argmin_reducer():
    def fcombine(x, y):
        keep = x[1] <= y[1]
        return te.if_then_else(keep, x[0], y[0]), te.if_then_else(keep, x[1], y[1])

    def fidentity(t0, t1):
        return te.const(-1, t0), te.max_value(t1)

    return te.comm_reducer(fcombine, fidentity, name="argmin")


def _fold(a, keep, init_val, where=None):
    """numpy evaluation of the tuple fold in loop order: (index, value) per row."""
    idx = np.full(a.shape[0], -1, "int32")
    val = np.full(a.shape[0], init_val, a.dtype)
    for r in range(a.shape[0]):
        for k in range(a.shape[1]):
            if where is not None and not where[r, k]:
                continue
            if not keep(val[r], a[r, k]):
                idx[r], val[r] = k, a[r, k]
    return idx, val


def test_argmax_over_a_tuple_matches_numpy():
    m, n = 7, 11
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    argmax = _argmax_reducer()
    T0, T1 = te.compute((m,), lambda i: argmax((k.var, A[i, k]), axis=k), name="T")
    assert (T0.dtype, T1.dtype) == ("int32", "float32")
    a = np.random.default_rng(5).standard_normal((m, n)).astype("float32")
    idx, val = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    np.testing.assert_array_equal(idx, a.argmax(axis=1))
    np.testing.assert_array_equal(val, a.max(axis=1))


def test_argmax_ties_follow_the_comparison_in_fcombine():
    m, n = 9, 13
    a = np.random.default_rng(6).integers(-2, 3, (m, n)).astype("int32")  # many ties
    for cmp in ("ge", "gt"):
        A = te.placeholder((m, n), dtype="int32", name="A")
        k = te.reduce_axis((0, n), name="k")
        argmax = _argmax_reducer(cmp)
        T0, T1 = te.compute((m,), lambda i: argmax((k, A[i, k]), axis=k), name="T")
        s = te.create_schedule(T0.op)
        ko, ki = s[T0].split(k, factor=4)       # same order, guarded tail
        keep = (lambda acc, v: acc >= v) if cmp == "ge" else (lambda acc, v: acc > v)
        ref_idx, ref_val = _fold(a, keep, np.iinfo("int32").min)
        idx, val = run(s, [A, T0, T1], [a])
        np.testing.assert_array_equal(idx, ref_idx, err_msg=cmp)
        np.testing.assert_array_equal(val, ref_val, err_msg=cmp)
    # ">=" is numpy's argmax (first maximum); ">" gives the last one.
    np.testing.assert_array_equal(_fold(a, lambda x, y: x >= y, -99)[0], a.argmax(axis=1))


def test_argmin_over_a_tuple_matches_numpy():
    m, n = 6, 10
    a = np.random.default_rng(7).integers(-3, 3, (m, n)).astype("int32")
    A = te.placeholder((m, n), dtype="int32", name="A")
    k = te.reduce_axis((0, n), name="k")
    argmin = _argmin_reducer()
    T0, T1 = te.compute((m,), lambda i: argmin((k, A[i, k]), axis=k), name="T")
    idx, val = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    np.testing.assert_array_equal(idx, a.argmin(axis=1))
    np.testing.assert_array_equal(val, a.min(axis=1))


def test_argmax_with_where_matches_a_numpy_fold():
    m, n = 8, 12
    a = np.random.default_rng(8).integers(-5, 5, (m, n)).astype("int32")
    A = te.placeholder((m, n), dtype="int32", name="A")
    k = te.reduce_axis((0, n), name="k")
    argmax = _argmax_reducer()
    # only even positions, and only rows' non-negative values
    T0, T1 = te.compute(
        (m,), lambda i: argmax((k, A[i, k]), axis=k, where=te.all(k % 2 == 0, A[i, k] >= 0)),
        name="T")
    ks = np.arange(n)
    where = (ks % 2 == 0)[None, :] & (a >= 0)
    ref_idx, ref_val = _fold(a, lambda acc, v: acc >= v, np.iinfo("int32").min, where)
    idx, val = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_array_equal(val, ref_val)
    assert (idx == -1).any() or where.any(axis=1).all()  # an empty row keeps the identity


def test_argmax_over_two_reduce_axes_in_a_consumer():
    # The flat position of the maximum of each 3x4 block, read by a later stage.
    A = te.placeholder((5, 3, 4), name="A")
    r = te.reduce_axis((0, 3), name="r")
    c = te.reduce_axis((0, 4), name="c")
    argmax = _argmax_reducer()
    I, V = te.compute((5,), lambda b: argmax((r * 4 + c, A[b, r, c]), axis=[r, c]), name="T")
    D = te.compute((5,), lambda b: I[b] * 100 + (V[b] > 0).astype("int32"), name="D")
    s = te.create_schedule(D.op)
    s[I].compute_at(s[D], D.op.axis[0])
    a = np.random.default_rng(9).standard_normal((5, 3, 4)).astype("float32")
    (d,) = run(s, [A, D], [a])
    flat = a.reshape(5, 12)
    np.testing.assert_array_equal(d, flat.argmax(axis=1) * 100 + (flat.max(axis=1) > 0))


def test_comm_reducer_over_a_tuple_of_one_is_a_plain_reduction():
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, t), name="mysum")
    A = te.placeholder((3, 4), dtype="int32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((3,), lambda i: mysum((A[i, k],), axis=k), name="C")
    a = np.arange(12, dtype="int32").reshape(3, 4)
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, a.sum(axis=1))


# ---- errors -----------------------------------------------------------------------------------

def _argmax_setup():
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    return A, k


def test_tuple_reducer_whose_fcombine_returns_the_wrong_arity_is_rejected():
    A, k = _argmax_setup()
    bad = te.comm_reducer(lambda x, y: (x[0], x[1], y[0]),
                          lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="bad3")
    with pytest.raises(tessera.ExprError, match=r"comm_reducer 'bad3': fcombine returns 3 values "
                                                r"but the reduction is over tuples of 2"):
        te.compute((4,), lambda i: bad((k, A[i, k]), axis=k), name="T")
    one = te.comm_reducer(lambda x, y: x[0], lambda t0, t1: (te.const(-1, t0), te.const(0, t1)),
                          name="one")
    with pytest.raises(tessera.ExprError, match=r"'one': fcombine returns one value but the "
                                                r"reduction is over tuples of 2"):
        te.compute((4,), lambda i: one((k, A[i, k]), axis=k), name="T")


def test_tuple_reducer_whose_fidentity_returns_the_wrong_arity_is_rejected():
    A, k = _argmax_setup()
    bad = te.comm_reducer(lambda x, y: (x[0], y[1]), lambda t0, t1: te.const(0, t0), name="badid")
    with pytest.raises(tessera.ExprError, match=r"'badid': fidentity returns one value"):
        te.compute((4,), lambda i: bad((k, A[i, k]), axis=k), name="T")


def test_tuple_reducer_whose_fcombine_mixes_types_is_rejected():
    A, k = _argmax_setup()
    # position 0 is int32 (the index) but fcombine returns the float value there
    bad = te.comm_reducer(lambda x, y: (y[1], x[1]),
                          lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="swap")
    with pytest.raises(tessera.ExprError, match=r"'swap'"):
        te.compute((4,), lambda i: bad((k, A[i, k]), axis=k), name="T")


def test_single_source_with_a_tuple_fcombine_says_how_to_pass_a_tuple():
    A, k = _argmax_setup()
    r = te.comm_reducer(lambda x, y: (x, y), lambda t: te.const(0, t), name="pair")
    with pytest.raises(tessera.ExprError, match=r"'pair': fcombine returns 2 values but the "
                                                r"reduction has one source"):
        te.compute((4,), lambda i: r(A[i, k], axis=k), name="T")


def test_tuple_reduction_init_of_the_wrong_type_is_rejected():
    # init= of a tuple reduction works as in TVM (test_tvm_schedule_compat.py); a tensor of the
    # wrong type is refused as for one value.
    A, k = _argmax_setup()
    F = te.placeholder((4,), dtype="float64", name="F")
    with pytest.raises(tessera.ExprError, match=r"init= value 1 has type float64 but the "
                                                r"reduction's values at position 1 are"):
        te.compute((4,), lambda i: _argmax_reducer()((k, A[i, k]), axis=k, init=(0, F[i])),
                   name="T")


def test_mixing_a_reduction_and_an_elementwise_output_is_rejected():
    A, k = _argmax_setup()
    with pytest.raises(tessera.ExprError, match=r"compute 'T': output 0 is a reduction of one "
                                                r"value.*comm_reducer with a tuple"):
        te.compute((4,), lambda i: (te.sum(A[i, k], axis=k), A[i, 0]), name="T")
    with pytest.raises(tessera.ExprError, match=r"compute 'T2': output 1 is a reduction over "
                                                r"tuples but output 0 is elementwise"):
        te.compute((4,), lambda i: (A[i, 0],) + _argmax_reducer()((k, A[i, k]), axis=k)[1:],
                   name="T2")


def test_tuple_reduction_results_out_of_order_are_rejected():
    A, k = _argmax_setup()
    with pytest.raises(tessera.ExprError, match=r"compute 'T': returns result 1 of reduction "
                                                r"'argmax' as output 0"):
        te.compute((4,), lambda i: tuple(reversed(_argmax_reducer()((k, A[i, k]), axis=k))),
                   name="T")


def test_output_index_out_of_range_names_the_operation():
    A = te.placeholder((4,), name="A")
    T0, T1 = te.compute((4,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="T")
    with pytest.raises(tessera.ExprError, match=r"operation 'T' has 2 output\(s\) \(index 0..1\), "
                                                r"not 2"):
        T0.op.output(2)


def test_multi_output_stage_primitives_follow_tvm():
    # TVM rejects inlining a multi-output compute and caching one output of it alone; it caches
    # all outputs together and factors tuple reductions (test_tvm_schedule_compat.py has the
    # numerics).
    A = te.placeholder((4, 6), dtype="int32", name="A")
    k = te.reduce_axis((0, 6), name="k")
    T0, T1 = te.compute((4,), lambda i: _argmax_reducer()((k, A[i, k]), axis=k), name="T")
    X, Y = te.compute((4,), lambda i: (T0[i] + 1, T1[i] - 1), name="XY")
    C = te.compute((4,), lambda i: X[i] * Y[i], name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'XY': compute_inline: a multi-output"):
        s[X].compute_inline()
    with pytest.raises(tessera.ScheduleError, match=r"cache_write of 'T.v0': stage 'T' is a "
                                                    r"multi-output compute"):
        s.cache_write(T0, "local")
    F0, F1 = s.rfactor(T1, k)
    assert F0.op.name == "T.rf" and F0.op.num_outputs == 2 and F1.value_index == 1


def test_multi_output_compute_on_the_npu_is_a_target_error_naming_the_stage():
    A = te.placeholder((16,), dtype="int8", name="A")
    T0, T1 = te.compute((16,), lambda i: (A[i] + 1, A[i] - 1), name="T")
    s = te.create_schedule(T0.op)
    with pytest.raises(tessera.TargetError, match=r"stage 'T' is a multi-output compute \(2 "
                                                  r"outputs\); NPU kernels compute one tensor"):
        tessera.lower(s, [A, T0, T1], target="npu")
