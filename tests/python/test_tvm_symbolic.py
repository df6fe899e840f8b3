"""Symbolic shapes (TVM's te.var / te.size_var) on the C target, written as TVM's tests are: one
kernel built once, called with several sizes (including sizes the split factors do not divide),
compared with numpy (integers bit-exact)."""
import numpy as np
import pytest

import tessera
from tessera import te

RNG = np.random.default_rng(13)


def test_vector_add_with_a_symbolic_length_runs_at_every_size():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].vectorize(xi)
    f = tessera.build(s, [A, B, C], target="c")
    for size in (1, 7, 8, 37, 64, 1000):
        a = RNG.standard_normal(size).astype("float32")
        b = RNG.standard_normal(size).astype("float32")
        c = np.zeros(size, dtype="float32")
        f(a, b, c)
        np.testing.assert_array_equal(c, a + b)
    assert [d["n"] for d in f.specializations] == [1, 7, 8, 37, 64, 1000]


def test_symbolic_shape_reads_as_the_variable():
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    assert str(A.shape[0]) == "n" and A.shape[1] == 4
    assert A.shape[0].is_size_var


def test_matmul_with_three_size_vars_and_tiled_schedule():
    n, m, l = te.size_var("n"), te.size_var("m"), te.size_var("l")
    A = te.placeholder((n, l), dtype="int32", name="A")
    B = te.placeholder((l, m), dtype="int32", name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    xo, yo, xi, yi = s[C].tile(s[C].op.axis[0], s[C].op.axis[1], 4, 8)
    s[C].parallel(xo)
    s[C].vectorize(yi)
    s[CC].compute_at(s[C], yo)
    ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=3)
    s[CC].reorder(ko, ki, *s[CC].op.axis)
    f = tessera.build(s, [A, B, C], target="c")
    for (N, L, M) in [(4, 3, 8), (5, 7, 9), (1, 1, 1), (13, 10, 17)]:
        a = RNG.integers(-20, 20, (N, L)).astype("int32")
        b = RNG.integers(-20, 20, (L, M)).astype("int32")
        c = np.zeros((N, M), dtype="int32")
        f(a, b, c)
        np.testing.assert_array_equal(c, a @ b, err_msg=f"n={N} l={L} m={M}")


def test_shape_expressions_and_a_size_variable_in_the_body():
    n = te.var("n")
    A = te.placeholder((n,), dtype="int32", name="A")
    B = te.compute((n * 2,), lambda i: A[i // 2] + n, name="B")
    C = te.compute((n - 1,), lambda i: B[2 * i + 1] - A[i + 1], name="C")
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], nparts=3)
    f = tessera.build(s, [A, C], target="c")
    for size in (2, 3, 10, 11):
        a = RNG.integers(-100, 100, size).astype("int32")
        c = np.zeros(size - 1, dtype="int32")
        f(a, c)
        np.testing.assert_array_equal(c, a[:-1] + size - a[1:])


def test_compute_at_and_cache_read_on_symbolic_extents():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [B])
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    yo, yi = s[C].split(C.op.axis[1], factor=5)
    s[C].reorder(xo, yo, xi, yi)
    s[B].compute_at(s[C], yo)
    s[AA].compute_at(s[C], yo)
    f = tessera.build(s, [A, C], target="c")
    for shape in [(3, 4), (9, 11), (4, 5), (1, 23)]:
        a = RNG.standard_normal(shape).astype("float32")
        c = np.zeros(shape, dtype="float32")
        f(a, c)
        np.testing.assert_array_equal(c, a * np.float32(2.0) + np.float32(1.0))


def test_fuse_of_symbolic_axes():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), dtype="int32", name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 3, name="B")
    s = te.create_schedule(B.op)
    fused = s[B].fuse(*B.op.axis)
    xo, xi = s[B].split(fused, factor=16)
    s[B].parallel(xo)
    f = tessera.build(s, [A, B], target="c")
    for shape in [(3, 5), (16, 1), (7, 9)]:
        a = RNG.integers(-9, 9, shape).astype("int32")
        b = np.zeros(shape, dtype="int32")
        f(a, b)
        np.testing.assert_array_equal(b, a * 3)


def test_size_variable_passed_as_an_argument_as_tvm_does():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n,), dtype="int32", name="A")
    B = te.compute((n,), lambda i: A[i] * m, name="B")
    s = te.create_schedule(B.op)
    f = tessera.build(s, [A, B, m], target="c")
    a = np.arange(6, dtype="int32")
    b = np.zeros(6, dtype="int32")
    f(a, b, 5)
    np.testing.assert_array_equal(b, a * 5)
    with pytest.raises(tessera.ArgumentError, match="integer"):
        f(a, b, 1.5)


def test_lower_with_sizes_shows_the_tail_guard():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=8)
    text = str(tessera.lower(s, [A, B], sizes={n: 20}))
    assert "for (i.outer, 0, 3)" in text and "< 20" in text, text
    exact = str(tessera.lower(s, [A, B], sizes={"n": 24}))
    assert "for (i.outer, 0, 3)" in exact and "< 24" not in exact, exact


def test_lower_without_sizes_says_how():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tessera.LowerError, match=r"size variable 'n'.*sizes=\{n: value\}"):
        tessera.lower(s, [A, B, n])


def test_mismatched_sizes_name_the_variable_and_the_argument():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    f = tessera.build(te.create_schedule(C.op), [A, B, C], target="c")
    a, b5, c = np.zeros(4, "float32"), np.zeros(5, "float32"), np.zeros(4, "float32")
    with pytest.raises(tessera.ArgumentError,
                       match=r"size variable 'n' is 4 from argument 'A' dimension 0 but 5 from "
                             r"argument 'B' dimension 0"):
        f(a, b5, c)
    with pytest.raises(tessera.ArgumentError, match="argument 'A' has 1 dimensions"):
        f(np.zeros((4, 1), "float32"), a, c)


def test_a_dimension_expression_that_does_not_match_is_an_error():
    n = te.var("n")
    A = te.placeholder((n,), dtype="int32", name="A")
    B = te.compute((n + 1,), lambda i: te.if_then_else(i < n, A[te.min(i, n - 1)], 0), name="B")
    f = tessera.build(te.create_schedule(B.op), [A, B], target="c")
    a = np.arange(4, dtype="int32")
    with pytest.raises(tessera.ArgumentError,
                       match=r"argument 'B' dimension 0 is \(?n \+ 1\)? = 5 with n = 4"):
        f(a, np.zeros(4, "int32"))
    b = np.zeros(5, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, [0, 1, 2, 3, 0])


def test_npu_target_refuses_a_symbolic_shape_naming_the_variable():
    n = te.var("rows")
    A = te.placeholder((n, 16), dtype="int8", name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tessera.TargetError, match="size variable 'rows'.*constant shapes"):
        tessera.build(s, [A, B], target="npu")


def test_non_size_variable_in_a_shape_is_rejected():
    A = te.placeholder((8,), name="A")
    axis_vars = []
    te.compute((8,), lambda i: axis_vars.append(i) or A[i], name="B")
    with pytest.raises(tessera.ExprError, match="'C'.*variable 'i'.*not a size variable"):
        te.placeholder((axis_vars[0],), name="C")


def test_symbolic_module_time_evaluator_and_nd_arrays():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    f = tessera.build(te.create_schedule(B.op), [A, B], target="c")
    dev = tessera.cpu(0)
    a = tessera.nd.array(np.arange(10, dtype="float32"), dev)
    b = tessera.nd.array(np.zeros(10, dtype="float32"), dev)
    res = f.time_evaluator(f.entry_name, dev, number=2, repeat=2)(a, b)
    assert len(res.results) == 2 and res.mean > 0
    np.testing.assert_array_equal(b.numpy(), np.arange(10, dtype="float32") + 1)


def test_rfactor_of_a_symbolic_reduce_extent_is_refused():
    m = te.var("m")
    A = te.placeholder((m, 3), name="A")
    k = te.reduce_axis((0, m), name="k")
    C = te.compute((3,), lambda j: te.sum(A[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    ko, ki = s[C].split(k, factor=4)
    with pytest.raises(tessera.ScheduleError, match="symbolic shape or reduce extent"):
        s.rfactor(C, ki)


def test_shape_mismatch_of_symbolic_tensors_prints_the_variables():
    m, n = te.var("m"), te.var("n")
    with pytest.raises(tessera.ExprError, match=r"shape \(m,\) but tensor 'Q' has shape \(n,\)"):
        te.placeholder((m,), name="P") + te.placeholder((n,), name="Q")
