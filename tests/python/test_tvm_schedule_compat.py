"""TVM's schedule semantics for cache_write, rfactor and init= of tuple reductions (issue 13),
written as TVM's tests are (tests/python/unittest/test_te_schedule.py, test_te_schedule_ops.py,
tests/python/integration/test_reduce.py): build, run on the C target, compare with numpy
(integers bit-exact)."""
import numpy as np
import pytest

import tessera
from tessera import te

RNG = np.random.default_rng(13)


def run(s, args, inputs):
    """Builds for C, runs on `inputs` (numpy arrays for the leading args), returns the outputs."""
    f = tessera.build(s, args, target="c")
    outs = [np.zeros(t.shape, dtype=t.dtype) for t in args[len(inputs):]]
    f(*inputs, *outs)
    return outs


def ints(shape, lo=-20, hi=20):
    return RNG.integers(lo, hi, shape).astype("int32")


def matmul(M, N, K, dtype="int32"):
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), dtype=dtype, name="A")
    B = te.placeholder((K, N), dtype=dtype, name="B")
    C = te.compute((M, N), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
    return A, B, C


def same_axes(xs, ys):
    return len(xs) == len(ys) and all(x.same_as(y) for x, y in zip(xs, ys))


# ---- cache_write: TVM's axis ownership -------------------------------------------------------------

def test_matmul_tutorial_cache_write_keeps_c_op_axis_on_the_copy_out_stage():
    # TVM's "How to optimize GEMM on CPU", the cache_write step, as written for TVM.
    M, N, K, bn, kfactor = 64, 48, 40, 16, 4
    A, B, C = matmul(M, N, K, dtype="float32")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    assert same_axes(C.op.axis, s[C].op.axis)
    assert CC.op.name == "C.local" and s[CC].scope == "local"
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kaxis,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kaxis, factor=kfactor)
    s[CC].reorder(ko, mc, ki, nc)
    s[CC].vectorize(nc)
    s[CC].unroll(ki)
    s[C].parallel(mo)
    a = RNG.integers(-4, 5, (M, K)).astype("float32")
    b = RNG.integers(-4, 5, (K, N)).astype("float32")
    (c,) = run(s, [A, B, C], [a, b])
    np.testing.assert_array_equal(c, a @ b)  # small integers: exact in float32


def test_cache_write_reduce_axis_is_shared_with_the_tensor():
    A, B, C = matmul(8, 8, 6)
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    assert same_axes(CC.op.reduce_axis, C.op.reduce_axis)
    assert not any(a.same_as(c) for a in CC.op.axis for c in C.op.axis)


@pytest.mark.parametrize("M,N,K", [(64, 48, 16), (30, 21, 7)])
def test_cache_write_after_tile_relayouts_the_cache_by_the_loops(M, N, K):
    # TVM's test_schedule_cache_relayout: the cache's axes are the stage's loops (xo, yo, xi, yi).
    A, B, C = matmul(M, N, K)
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 16)
    CC = s.cache_write(C, "local")
    assert CC.shape == (-(-M // 8), -(-N // 16), 8, 16)
    assert [a.name for a in CC.op.axis] == ["x.outer", "y.outer", "x.inner", "y.inner"]
    # The stage restarts from its root loops: schedule it again.
    assert same_axes(s[C].leaf_iter_vars, C.op.axis)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 16)
    s[CC].compute_at(s[C], yo)
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=4)
    s[CC].reorder(ko, ki, *CC.op.axis)
    s[C].vectorize(yi)
    a, b = ints((M, K)), ints((K, N))
    (c,) = run(s, [A, B, C], [a, b])
    np.testing.assert_array_equal(c, a @ b)


def test_cache_write_after_reorder_transposes_the_cache():
    A = te.placeholder((5, 7), dtype="int32", name="A")
    B = te.placeholder((5, 7), dtype="int32", name="B")
    C = te.compute((5, 7), lambda i, j: A[i, j] * B[i, j], name="C")
    s = te.create_schedule(C.op)
    s[C].reorder(C.op.axis[1], C.op.axis[0])
    CC = s.cache_write(C, "global")
    assert CC.shape == (7, 5)
    a, b = ints((5, 7)), ints((5, 7))
    (c,) = run(s, [A, B, C], [a, b])
    np.testing.assert_array_equal(c, a * b)


def test_cache_write_after_split_fuse_and_reorder_of_a_reduction_matches_numpy():
    # TVM's test_schedule_cache_relayout3, with a split that does not divide and a fuse.
    A = te.placeholder((22, 9), dtype="int32", name="A")
    B = te.placeholder((22, 9), dtype="int32", name="B")
    k = te.reduce_axis((0, 9), "k")
    C = te.compute((22, 3), lambda i, j: te.sum(A[i, k] * B[i, k] + j, axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].reorder(xo, C.op.axis[1], xi)
    fj = s[C].fuse(C.op.axis[1], xi)
    CC = s.cache_write(C, "local")
    assert CC.shape == (6, 12)
    s[CC].compute_at(s[C], s[C].op.axis[0])
    a, b = ints((22, 9)), ints((22, 9))
    (c,) = run(s, [A, B, C], [a, b])
    ref = (a * b).sum(axis=1)[:, None] + 9 * np.arange(3)[None, :]
    np.testing.assert_array_equal(c, ref.astype("int32"))
    assert fj.name == "j.i.inner.fused"


def test_cache_write_after_split_keeps_sum_init_inside_the_tensor():
    A = te.placeholder((10, 6), dtype="int32", name="A")
    B = te.compute((10,), lambda i: i * 10, name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((10,), lambda i: te.sum(A[i, k], axis=k, init=B[i]), name="C")
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)  # 10 = 4 + 4 + 2: the cache's tail is guarded
    CC = s.cache_write(C, "local")
    assert CC.shape == (3, 4)
    a = ints((10, 6))
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, np.arange(10) * 10 + a.sum(axis=1))


def test_cache_write_after_split_of_a_reduce_axis_says_what_tvm_says():
    A, B, C = matmul(8, 8, 8)
    s = te.create_schedule(C.op)
    s[C].split(C.op.reduce_axis[0], factor=4)
    with pytest.raises(tessera.ScheduleError,
                       match=r"cache_write of 'C': the reduction loop 'k.outer' .*TVM rejects it "
                             r"too.*Can only relayout.*s\[CC\]\.split\(CC\.op\.reduce_axis\[0\]"):
        s.cache_write(C, "local")


def test_cache_write_that_would_drop_an_annotation_is_rejected():
    A, B, C = matmul(8, 8, 8)
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].vectorize(xi)
    with pytest.raises(tessera.ScheduleError,
                       match=r"loop 'x.inner' of stage 'C' is annotated vectorize.*annotate after "
                             r"cache_write"):
        s.cache_write(C, "local")


def test_cache_write_that_would_drop_an_attach_point_is_rejected():
    A = te.placeholder((8,), dtype="int32", name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    with pytest.raises(tessera.ScheduleError,
                       match=r"stage 'B' is computed at loop 'i.outer' of 'C'.*compute_at after "
                             r"cache_write"):
        s.cache_write(C, "local")


def test_cache_write_keeps_annotations_and_attach_points_on_root_axes():
    A = te.placeholder((8, 4), dtype="int32", name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((8, 4), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].vectorize(C.op.axis[1])
    CC = s.cache_write(C, "local")
    s[CC].compute_at(s[C], C.op.axis[0])
    a = ints((8, 4))
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, (a + 1) * 2)


def test_cache_write_after_rfactor_caches_the_final_reduction():
    A = te.placeholder((6, 16), dtype="int32", name="A")
    k = te.reduce_axis((0, 16), "k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki)
    BC = s.cache_write(B, "local")
    s[BC].compute_at(s[B], s[B].op.axis[0])
    a = ints((6, 16))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=1))
    assert BF.shape == (4, 6)


# ---- cache_write of a multi-output compute ------------------------------------------------------

def argmax_reducer():
    def fcombine(x, y):
        take = x[1] >= y[1]
        return te.if_then_else(take, x[0], y[0]), te.if_then_else(take, x[1], y[1])

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)
    return te.comm_reducer(fcombine, fidentity, name="argmax")


def test_multi_output_cache_write_returns_one_cache_per_output():
    A = te.placeholder((12, 5), dtype="int32", name="A")
    T0, T1 = te.compute((12, 5), lambda i, j: (A[i, j] + 1, A[i, j] * 3), name="T")
    s = te.create_schedule(T0.op)
    C0, C1 = s.cache_write([T0, T1], "local")
    assert C0.op.same_as(C1.op) and C0.op.name == "T.local" and C0.op.num_outputs == 2
    io, ii = s[T0].split(T0.op.axis[0], factor=5)
    s[C0].compute_at(s[T0], io)
    a = ints((12, 5))
    t0, t1 = run(s, [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a + 1)
    np.testing.assert_array_equal(t1, a * 3)


def test_multi_output_argmax_cache_write_after_split_matches_numpy():
    A = te.placeholder((10, 7), dtype="int32", name="A")
    k = te.reduce_axis((0, 7), name="k")
    T0, T1 = te.compute((10,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    s[T0].split(T0.op.axis[0], factor=3)
    C0, C1 = s.cache_write([T0, T1], "local")
    assert C0.shape == (4, 3)
    a = ints((10, 7), -3, 3)  # ties: the first index wins, as numpy's argmax
    t0, t1 = run(s, [A, T0, T1], [a])
    np.testing.assert_array_equal(t0, a.argmax(axis=1))
    np.testing.assert_array_equal(t1, a.max(axis=1))


def test_cache_write_of_one_output_of_a_multi_output_compute_says_how_tvm_writes_it():
    A = te.placeholder((4,), dtype="int32", name="A")
    T0, T1 = te.compute((4,), lambda i: (A[i] + 1, A[i] * 3), name="T")
    s = te.create_schedule(T0.op)
    with pytest.raises(tessera.ScheduleError,
                       match=r"cache_write of 'T.v0': stage 'T' is a multi-output compute \(2 "
                             r"outputs\); cache-write all of them together, as TVM requires: "
                             r"s.cache_write\(\[T.v0, T.v1\], \"local\"\)"):
        s.cache_write(T0, "local")


def test_compute_inline_of_a_multi_output_compute_says_tvm_rejects_it_too():
    A = te.placeholder((4,), dtype="int32", name="A")
    T0, T1 = te.compute((4,), lambda i: (A[i] + 1, A[i] * 3), name="T")
    C = te.compute((4,), lambda i: T0[i] + T1[i], name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"can only inline compute op with 1 output"):
        s[T0].compute_inline()


# ---- init= on a reduction over tuples ------------------------------------------------------------

def argmax_reference(idx0, val0, a):
    """Folds fcombine over k in order from (idx0, val0): the accumulated pair stays on >=."""
    idx, val = idx0.copy(), val0.copy()
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            if not val[i] >= a[i, k]:
                idx[i], val[i] = k, a[i, k]
    return idx, val


def test_argmax_with_init_tensors_matches_a_reference_fold():
    m, n = 9, 6
    A = te.placeholder((m, n), dtype="int32", name="A")
    I0 = te.placeholder((m,), dtype="int32", name="I0")
    V0 = te.placeholder((m,), dtype="int32", name="V0")
    k = te.reduce_axis((0, n), name="k")
    T0, T1 = te.compute((m,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k,
                                                         init=(I0[i], V0[i])), name="T")
    s = te.create_schedule(T0.op)
    a = ints((m, n), -5, 5)
    i0 = np.full(m, 100, dtype="int32")
    v0 = RNG.integers(-6, 6, m).astype("int32")
    t0, t1 = run(s, [A, I0, V0, T0, T1], [a, i0, v0])
    r0, r1 = argmax_reference(i0, v0, a)
    np.testing.assert_array_equal(t0, r0)
    np.testing.assert_array_equal(t1, r1)
    assert (t0 == 100).any() and (t0 != 100).any()  # both sides of the init taken


def test_argmax_with_literal_init_takes_the_sources_types():
    A = te.placeholder((5, 4), dtype="float32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    T0, T1 = te.compute((5,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k,
                                                         init=(-7, 0.5)), name="T")
    assert T0.dtype == "int32" and T1.dtype == "float32"
    a = RNG.standard_normal((5, 4)).astype("float32")
    t0, t1 = run(te.create_schedule(T0.op), [A, T0, T1], [a])
    r0, r1 = argmax_reference(np.full(5, -7, "int32"), np.full(5, 0.5, "float32"), a)
    np.testing.assert_array_equal(t0, r0)
    np.testing.assert_array_equal(t1, r1)


def test_argmax_init_with_rfactor_and_cache_write_matches_the_reference():
    m, n = 6, 12
    A = te.placeholder((m, n), dtype="int32", name="A")
    V0 = te.placeholder((m,), dtype="int32", name="V0")
    k = te.reduce_axis((0, n), name="k")
    T0, T1 = te.compute((m,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k,
                                                         init=(-1, V0[i])), name="T")
    s = te.create_schedule(T0.op)
    ko, ki = s[T0].split(k, factor=4)
    F0, F1 = s.rfactor(T0, ki)
    assert F0.op.same_as(F1.op) and F0.shape == (4, m)
    a = ints((m, n), -4, 4)
    v0 = RNG.integers(-5, 5, m).astype("int32")
    t0, t1 = run(s, [A, V0, T0, T1], [a, v0])
    # A tuple reduction's result does not depend on the order (ties: the fold keeps the lower
    # index only in order, so compare the values and check the index points at the value).
    r0, r1 = argmax_reference(np.full(m, -1, "int32"), v0, a)
    np.testing.assert_array_equal(t1, r1)
    for i in range(m):
        assert (t0[i] == -1 and v0[i] == t1[i]) or a[i, t0[i]] == t1[i]


def test_tuple_init_of_the_wrong_arity_is_an_expr_error_naming_the_reducer():
    A = te.placeholder((5, 4), dtype="int32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(tessera.ExprError, match=r"comm_reducer 'argmax'.*init= has 3 values but "
                                                r"the reduction is over tuples of 2 \(one per source\)"):
        te.compute((5,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k, init=(0, 1, 2)))
    with pytest.raises(tessera.ExprError, match=r"comm_reducer 'argmax'.*init= has one value but "
                                                r"the reduction is over tuples of 2"):
        te.compute((5,), lambda i: argmax_reducer()((k.var, A[i, k]), axis=k, init=0))


# ---- rfactor after other primitives --------------------------------------------------------------

def test_rfactor_after_split_of_data_and_reduce_axes_as_tvm_test_rfactor():
    # TVM's test_rfactor "schedule with split": BF's shape, its reduce axes (k2, ko).
    n = 20
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, 3), name="k2")
    A = te.placeholder((n, n, 3), dtype="int32", name="A")
    B = te.compute((n,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k1, factor=4)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    BF = s.rfactor(B, ki)
    assert BF.shape == (4, n)
    assert [a.name for a in BF.op.reduce_axis] == ["k2", "k1.outer"]
    assert BF.op.reduce_axis[0].same_as(k2)
    assert same_axes(BF.op.axis[1:], B.op.axis)  # TVM: the partials keep the tensor's axes
    assert s[B].op.reduce_axis[0].extent == 4
    a = ints((n, n, 3))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=(1, 2)))


@pytest.mark.parametrize("factor_axis", [0, 1, -1])
def test_rfactor_with_factor_axis_after_split_matches_numpy(factor_axis):
    n, K = 7, 30  # 30 = 7 * 4 + 2: the partials' tail is guarded
    A = te.placeholder((n, K), dtype="int32", name="A")
    k = te.reduce_axis((0, K), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=3)
    ko, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki, factor_axis)
    assert BF.shape == ((4, n) if factor_axis == 0 else (n, 4))
    bo, bi = s[B].split(s[B].op.axis[0], factor=2)
    s[BF].compute_at(s[B], bo)
    a = ints((n, K))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_rfactor_of_a_nested_split_part_matches_numpy():
    A = te.placeholder((5, 50), dtype="int32", name="A")
    k = te.reduce_axis((0, 50), name="k")
    B = te.compute((5,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=12)      # 50 = 4 * 12 + 2
    kio, kii = s[B].split(ki, factor=5)    # 12 = 2 * 5 + 2
    BF = s.rfactor(B, kio)
    assert BF.shape == (3, 5)
    assert [a.name for a in BF.op.reduce_axis] == ["k.outer", "k.inner.inner"]
    a = ints((5, 50), -1000, 1000)
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_rfactor_of_a_fused_reduction_loop_matches_numpy():
    A = te.placeholder((4, 6, 5), dtype="int32", name="A")
    k1 = te.reduce_axis((0, 6), name="k1")
    k2 = te.reduce_axis((0, 5), name="k2")
    B = te.compute((4,), lambda i: te.sum(A[i, k1, k2] * (k1 + 1), axis=[k1, k2]), name="B")
    s = te.create_schedule(B.op)
    kf = s[B].fuse(k1, k2)
    BF = s.rfactor(B, kf)
    assert BF.shape == (30, 4) and len(BF.op.reduce_axis) == 0
    s[BF].compute_at(s[B], s[B].op.axis[0])
    a = ints((4, 6, 5))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, (a * np.arange(1, 7)[None, :, None]).sum(axis=(1, 2)))


def test_rfactor_of_a_split_of_a_fused_loop_matches_numpy():
    A = te.placeholder((3, 7, 6), dtype="int32", name="A")
    k1 = te.reduce_axis((0, 7), name="k1")
    k2 = te.reduce_axis((0, 6), name="k2")
    B = te.compute((3,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    s = te.create_schedule(B.op)
    kf = s[B].fuse(k1, k2)
    fo, fi = s[B].split(kf, factor=8)  # 42 = 5 * 8 + 2
    BF = s.rfactor(B, fi)
    a = ints((3, 7, 6))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=(1, 2)))
    assert BF.shape == (8, 3)


def test_rfactor_of_a_loop_that_is_no_longer_a_loop_says_which_loops_are():
    A = te.placeholder((4, 8), dtype="int32", name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].split(k, factor=4)
    with pytest.raises(tessera.ScheduleError,
                       match=r"rfactor of 'B': axis 'k' is not a loop of stage 'B' .*Cannot find "
                             r"IterVar.*: i, k.outer, k.inner"):
        s.rfactor(B, k)
    with pytest.raises(tessera.ScheduleError, match=r"axis 'i' is data-parallel.*Can only factor "
                                                    r"reduction axis"):
        s.rfactor(B, B.op.axis[0])


def test_rfactor_after_cache_write_points_at_the_cache():
    A = te.placeholder((4, 8), dtype="int32", name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    BC = s.cache_write(B, "local")
    with pytest.raises(tessera.ScheduleError, match=r"stage 'B' is cache-written.*rfactor the "
                                                    r"cache"):
        s.rfactor(B, k)
    BF = s.rfactor(BC, k)  # the cache holds the reduction
    a = ints((4, 8))
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=1))
    assert BF.shape == (8, 4)


def test_rfactor_that_would_drop_an_attach_point_or_annotation_is_rejected():
    A = te.placeholder((4, 8), dtype="int32", name="A")
    P = te.compute((4, 8), lambda i, j: A[i, j] + 1, name="P")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(P[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[P].compute_at(s[B], B.op.axis[0])
    with pytest.raises(tessera.ScheduleError, match=r"stage 'P' is computed at loop 'i' of 'B', "
                                                    r"which rfactor rebuilds"):
        s.rfactor(B, k)
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=2)
    s[B].unroll(ki)
    with pytest.raises(tessera.ScheduleError, match=r"loop 'k.inner' of stage 'B' is annotated unroll"):
        s.rfactor(B, ko)
