"""TVM TE behaviour that a TVM user's script relies on (issue 13), written as TVM's tests are:
build a small operator, run it, compare with numpy (integers bit-exact)."""
import numpy as np
import pytest

import tessera
from tessera import te


def run(s, args, inputs):
    """Builds for C, runs on `inputs` (numpy arrays for the leading args), returns the outputs."""
    f = tessera.build(s, args, target="c")
    outs = [np.zeros(t.shape, dtype=t.dtype) for t in args[len(inputs):]]
    f(*inputs, *outs)
    return outs


# ---- tensor arithmetic and indexing ---------------------------------------------------------------

def test_tensor_plus_tensor_is_an_elementwise_compute():
    A = te.placeholder((4, 5), name="A")
    B = te.placeholder((4, 5), name="B")
    C = A + B
    assert C.shape == (4, 5) and C.dtype == "float32" and C.op.name == "T_add"
    a, b = np.random.default_rng(0).standard_normal((2, 4, 5)).astype("float32")
    (c,) = run(te.create_schedule(C.op), [A, B, C], [a, b])
    np.testing.assert_array_equal(c, a + b)


def test_tensor_operators_with_scalars_match_numpy_bit_exact():
    A = te.placeholder((6, 7), dtype="int32", name="A")
    B = te.placeholder((6, 7), dtype="int32", name="B")
    outs = [A * 2, 1 - A, A - B, A * B + 3, A // 3, A % 3, 7 // (B + 100), -A, 2 + (A * B) % 5]
    a = np.random.default_rng(1).integers(-50, 50, (6, 7)).astype("int32")
    b = np.random.default_rng(2).integers(-50, 50, (6, 7)).astype("int32")
    refs = [a * 2, 1 - a, a - b, a * b + 3, a // 3, a % 3, 7 // (b + 100), -a, 2 + (a * b) % 5]
    for out, ref in zip(outs, refs):
        assert out.dtype == "int32"
        (got,) = run(te.create_schedule(out.op), [A, B, out], [a, b])
        np.testing.assert_array_equal(got, ref, err_msg=out.op.name)


def test_number_operand_takes_the_tensor_type():
    A = te.placeholder((8,), dtype="int8", name="A")
    C = A + 1
    assert C.dtype == "int8"
    a = np.arange(-4, 4, dtype="int8")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, a + np.int8(1))


def test_tensor_times_scalar_expression():
    A = te.placeholder((5,), name="A")
    C = A * te.const(0.5, "float32")
    a = np.linspace(-1, 1, 5, dtype="float32")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, a * np.float32(0.5))


def test_tensor_arithmetic_feeds_a_compute_and_schedules():
    A = te.placeholder((16,), name="A")
    B = A * 2.0
    C = te.compute((16,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    a = np.random.default_rng(3).standard_normal(16).astype("float32")
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, a * np.float32(2) + np.float32(1))


def test_tensor_arithmetic_with_other_shapes_is_rejected():
    A = te.placeholder((4, 5), name="A")
    B = te.placeholder((5,), name="B")
    with pytest.raises(tessera.ExprError,
                       match=r"'T_add': tensor 'A' has shape \(4, 5\) but tensor 'B' has shape "
                             r"\(5,\); elementwise operators take tensors of one shape or a scalar"):
        A + B


def test_tensor_arithmetic_with_a_string_is_rejected():
    A = te.placeholder((4,), name="A")
    with pytest.raises(tessera.ExprError, match=r"'T_multiply' with tensor 'A': the other operand "
                                                r"must be a tensor of the same shape, a number"):
        A * "x"


def test_chained_indexing_reads_the_same_element():
    A = te.placeholder((3, 4, 5), dtype="int32", name="A")
    C1 = te.compute((3, 4, 5), lambda i, j, k: A[i][j][k] * 3, name="C")
    C2 = te.compute((3, 4, 5), lambda i, j, k: A[i, j, k] * 3, name="C")
    C3 = te.compute((3, 4, 5), lambda i, j, k: A[i][j, k] * 3, name="C")
    texts = [str(tessera.lower(te.create_schedule(c.op), [A, c])) for c in (C1, C2, C3)]
    assert texts[0] == texts[1] == texts[2]
    a = np.arange(60, dtype="int32").reshape(3, 4, 5) - 30
    (c,) = run(te.create_schedule(C1.op), [A, C1], [a])
    np.testing.assert_array_equal(c, a * 3)


def test_partially_indexed_tensor_is_not_an_expression():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A' has 2 dimension\(s\) but is indexed "
                                                r"with 1"):
        te.compute((4,), lambda i: A[i] + 1.0, name="C")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A' has 2 dimension\(s\) but is indexed "
                                                r"with 3"):
        te.compute((4,), lambda i: A[i][i, i], name="C")


def test_placeholder_takes_an_int_shape_like_compute():
    n = 8
    A = te.placeholder(n, dtype="int32", name="A")
    assert A.shape == (8,)
    C = te.compute(n, lambda i: A[i] + 1, name="C")
    a = np.arange(8, dtype="int32")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, a + 1)


# ---- pragma ---------------------------------------------------------------------------------------

def split_sum(pragma=None, primitive=None):
    A = te.placeholder((8, 12), dtype="int32", name="A")
    k = te.reduce_axis((0, 12), name="k")
    C = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    if pragma:
        s[C].pragma(xi, pragma)
    if primitive:
        getattr(s[C], primitive)(xi)
    return s, [A, C]


@pytest.mark.parametrize("name", ["unroll", "vectorize"])
def test_pragma_unroll_and_vectorize_are_the_primitives(name):
    s, args = split_sum(pragma=name)
    s2, args2 = split_sum(primitive=name)
    assert str(s) == str(s2)
    text = str(tessera.lower(s, args))
    assert text == str(tessera.lower(s2, args2))
    assert "pragma_" not in text
    a = np.random.default_rng(4).integers(-100, 100, (8, 12)).astype("int32")
    (c,) = run(s, args, [a])
    np.testing.assert_array_equal(c, a.sum(axis=1, dtype="int32"))


def test_pragma_vectorize_of_a_reduction_axis_is_rejected_as_vectorize_is():
    A = te.placeholder((8, 12), name="A")
    k = te.reduce_axis((0, 12), name="k")
    C = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': pragma 'vectorize': axis 'k' is a "
                                                    r"reduction axis"):
        s[C].pragma(k, "vectorize")


def test_pragma_unroll_after_vectorize_is_rejected():
    s, _ = split_sum(primitive="vectorize")
    C = s.outputs[0]
    xi = s[C].leaf_iter_vars[1]
    with pytest.raises(tessera.ScheduleError, match=r"pragma 'unroll': axis 'i.inner' is already "
                                                    r"marked vectorize"):
        s[C].pragma(xi, "unroll")


def test_other_pragmas_stay_loop_attributes():
    s, args = split_sum(pragma="auto_unroll_max_step")
    text = str(tessera.lower(s, args))
    assert "pragma_auto_unroll_max_step" in text
    assert "unroll" not in str(s).replace("auto_unroll_max_step", "")


# ---- default names --------------------------------------------------------------------------------

def default_named_sub():
    A = te.placeholder((10,), dtype="int32")
    B = te.placeholder((10,), dtype="int32")
    C = te.compute((10,), lambda i: A[i] - B[i])
    return A, B, C


def test_placeholders_with_the_default_name_lower_and_build():
    A, B, C = default_named_sub()
    s = te.create_schedule(C.op)
    text = str(tessera.lower(s, [A, B, C]))
    assert text.startswith("func main(placeholder: int32[10], placeholder_1: int32[10], "
                           "compute: int32[10])")
    f = tessera.build(s, [A, B, C])
    assert f.arg_names == ["placeholder", "placeholder_1", "compute"]
    a = np.arange(10, dtype="int32") * 7
    b = np.arange(10, dtype="int32") ** 2
    c = np.zeros(10, dtype="int32")
    f(a, b, c)
    np.testing.assert_array_equal(c, a - b)  # a swapped binding would give b - a


def test_default_name_suffixes_depend_on_the_program_only():
    A, B, C = default_named_sub()
    expected = str(tessera.lower(te.create_schedule(C.op), [A, B, C]))
    te.placeholder((3,), dtype="int32")  # tensors made in between change nothing
    A2, B2, C2 = default_named_sub()
    assert str(tessera.lower(te.create_schedule(C2.op), [A2, B2, C2])) == expected
    # The suffixes follow the argument order: B comes first here and keeps the plain name.
    s = te.create_schedule(C.op)
    f = tessera.build(s, [B, A, C])
    assert f.arg_names == ["placeholder", "placeholder_1", "compute"]
    a, b, c = np.full(10, 9, dtype="int32"), np.arange(10, dtype="int32"), np.zeros(10, "int32")
    f(b, a, c)
    np.testing.assert_array_equal(c, a - b)


def test_computes_with_the_default_name_lower_and_build():
    A = te.placeholder((12,), dtype="int32", name="A")
    B = te.compute((12,), lambda i: A[i] * 3)
    C = te.compute((12,), lambda i: B[i] + 1)
    D = te.compute((12,), lambda i: C[i] - A[i])
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])
    text = str(tessera.lower(s, [A, C, D]))
    assert text.startswith("func main(A: int32[12], compute: int32[12], compute_1: int32[12])")
    a = np.arange(12, dtype="int32") - 5
    c, d = run(s, [A, C, D], [a])
    np.testing.assert_array_equal(c, a * 3 + 1)
    np.testing.assert_array_equal(d, a * 3 + 1 - a)


def test_tensor_arithmetic_results_share_names_and_build():
    A = te.placeholder((6,), dtype="int32", name="A")
    outs = [A * 2, A * 3, 1 - A, 5 - A]
    s = te.create_schedule([o.op for o in outs])
    a = np.arange(6, dtype="int32")
    got = run(s, [A] + outs, [a])
    for g, ref in zip(got, [a * 2, a * 3, 1 - a, 5 - a]):
        np.testing.assert_array_equal(g, ref)


# ---- keyword arguments, build(lower(...)), time_evaluator -----------------------------------------

def matmul(n=16):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def matmul_inputs(n=16):
    rng = np.random.default_rng(5)
    return [rng.integers(-3, 4, (n, n)).astype("float32") for _ in range(2)]


def test_schedule_primitives_take_tvm_keyword_arguments():
    A, B, C = matmul()
    s = te.create_schedule(ops=C.op)
    CL = s.cache_write(tensor=C, scope="local")
    AL = s.cache_read(tensor=A, scope="local", readers=[CL])
    i, j = s[C].op.axis
    io, ii = s[C].split(parent=i, factor=4)
    jo, ji = s[C].split(j, nparts=2)
    s[C].reorder(io, jo, ii, ji)
    s[CL].compute_at(parent=s[C], scope=jo)
    s[AL].compute_at(s[CL], scope=s[CL].op.reduce_axis[0])
    ci = s[CL].op.axis[0]
    s[C].vectorize(var=ji)
    s[CL].unroll(var=ci)
    s[C].parallel(var=io)
    s[C].pragma(var=ii, pragma_type="my_hint", pragma_value=3)
    text = str(tessera.lower(s, [A, B, C]))
    assert "pragma_my_hint" in text
    a, b = matmul_inputs()
    (c,) = run(s, [A, B, C], [a, b])
    np.testing.assert_array_equal(c, a @ b)  # small integers: exact in float32


def test_build_takes_a_lowered_function():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[1], factor=8)
    f = tessera.build(tessera.lower(s, [A, B, C], name="mm"))
    assert f.name == "mm" and f.arg_names == ["A", "B", "C"]
    a, b = matmul_inputs()
    c = np.zeros((16, 16), dtype="float32")
    f(a, b, c)
    np.testing.assert_array_equal(c, a @ b)
    g = tessera.build(tessera.lower(s, [A, B, C]), target="c")
    assert g.source == tessera.build(s, [A, B, C]).source


def test_build_of_a_function_lowered_for_another_target_is_rejected():
    A, B, C = matmul()
    lowered = tessera.lower(te.create_schedule(C.op), [A, B, C])
    with pytest.raises(tessera.TargetError, match=r"build: function 'main' was lowered for target "
                                                  r"'c', not 'npu-v1'"):
        tessera.build(lowered, target="npu")


def test_time_evaluator_has_tvms_shape():
    A, B, C = matmul()
    f = tessera.build(te.create_schedule(C.op), [A, B, C])
    a, b = matmul_inputs()
    c = np.zeros((16, 16), dtype="float32")
    evaluator = f.time_evaluator(f.entry_name, number=3, repeat=4)
    r = evaluator(a, b, c)
    np.testing.assert_array_equal(c, a @ b)  # it ran the function on the arguments
    assert isinstance(r.results, tuple) and len(r.results) == 4
    assert all(t > 0 for t in r.results)
    assert r.mean == pytest.approx(np.mean(r.results))
    assert r.median == pytest.approx(np.median(r.results))
    assert r.min == min(r.results) and r.max == max(r.results)
    assert r.std == pytest.approx(np.std(r.results))
    assert f.time_evaluator("main", None)(a, b, c).results.__len__() == 1  # TVM's default repeat


def test_time_evaluator_of_an_unknown_function_is_rejected():
    A, B, C = matmul()
    f = tessera.build(te.create_schedule(C.op), [A, B, C], name="mm")
    with pytest.raises(tessera.ArgumentError, match=r"time_evaluator: the module has no function "
                                                    r"'main'; its function is 'mm'"):
        f.time_evaluator("main")
    with pytest.raises(tessera.ArgumentError, match=r"number and repeat must be at least 1, got "
                                                    r"number=0, repeat=1"):
        f.time_evaluator("mm", number=0)


# ---- te.sum(..., init=) -------------------------------------------------------------------------

def test_sum_with_init_starts_from_a_tensor_value():
    n, k_ext = 6, 5
    A = te.placeholder((n, k_ext), dtype="int32", name="A")
    X = te.placeholder((n,), dtype="int32", name="X")
    k = te.reduce_axis((0, k_ext), name="k")
    C = te.compute((n,), lambda i: te.sum(A[i, k], axis=k, init=X[i]), name="C")
    s = te.create_schedule(C.op)
    ko, ki = s[C].split(k, factor=2)
    a = np.random.default_rng(3).integers(-9, 9, (n, k_ext)).astype("int32")
    x = np.random.default_rng(4).integers(-99, 99, n).astype("int32")
    (c,) = run(s, [A, X, C], [a, x])
    np.testing.assert_array_equal(c, x + a.sum(axis=1))


def test_max_with_a_literal_init_and_where():
    A = te.placeholder((4, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    C = te.compute((4,), lambda i: te.max(A[i, k], axis=k, where=k > 2, init=0.5), name="C")
    a = np.random.default_rng(5).standard_normal((4, 7)).astype("float32")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, np.maximum(a[:, 3:].max(axis=1), np.float32(0.5)))


def test_sum_init_with_compute_at_producer_and_cache_write():
    A = te.placeholder((8, 6), dtype="int32", name="A")
    B = te.compute((8,), lambda i: i * 10, name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((8,), lambda i: te.sum(A[i, k], axis=k, init=B[i]), name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    xo, xi = s[C].split(s[C].op.axis[0], factor=3)
    s[CC].compute_at(s[C], xo)
    s[B].compute_at(s[CC], s[CC].op.axis[0])
    a = np.random.default_rng(6).integers(-9, 9, (8, 6)).astype("int32")
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, np.arange(8) * 10 + a.sum(axis=1))


def test_init_that_uses_the_reduce_axis_is_rejected():
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    with pytest.raises(tessera.ExprError, match="init= uses reduce axis 'k'"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k, init=A[i, k]), name="C")


# ---- te.comm_reducer ------------------------------------------------------------------------------

def test_comm_reducer_sum_matches_numpy():
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, dtype=t), name="mysum")
    A = te.placeholder((5, 9), dtype="int32", name="A")
    k = te.reduce_axis((0, 9), name="k")
    C = te.compute((5,), lambda i: mysum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    ko, ki = s[C].split(k, factor=4)
    a = np.random.default_rng(7).integers(-50, 50, (5, 9)).astype("int32")
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, a.sum(axis=1))


def test_comm_reducer_with_a_select_combiner_and_init():
    # The element of largest magnitude (ties keep the first value seen), from init 0.
    absmax = te.comm_reducer(
        lambda x, y: te.if_then_else(te.abs(y) > te.abs(x), y, x),
        lambda t: te.const(0, dtype=t), name="absmax")
    A = te.placeholder((4, 6), dtype="int32", name="A")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((4,), lambda i: absmax(A[i, k], axis=k, init=1), name="C")
    a = np.random.default_rng(8).integers(-99, 99, (4, 6)).astype("int32")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    ref = []
    for row in a:
        acc = 1
        for v in row:
            acc = v if abs(v) > abs(acc) else acc
        ref.append(acc)
    np.testing.assert_array_equal(c, ref)


def test_argmax_written_as_two_reductions_matches_numpy():
    A = te.placeholder((5, 7), dtype="int32", name="A")
    k = te.reduce_axis((0, 7), name="k")
    M = te.compute((5,), lambda i: te.max(A[i, k], axis=k), name="M")
    k2 = te.reduce_axis((0, 7), name="k2")
    idx = te.compute((5,), lambda i: te.min(te.if_then_else(A[i, k2] == M[i], k2, 7), axis=k2),
                     name="idx")
    a = np.random.default_rng(9).integers(-3, 3, (5, 7)).astype("int32")
    (got,) = run(te.create_schedule(idx.op), [A, idx], [a])
    np.testing.assert_array_equal(got, a.argmax(axis=1))


# ---- rfactor ------------------------------------------------------------------------------------

def _rowsum(n=5, k_ext=23, dtype="int32"):
    A = te.placeholder((n, k_ext), dtype=dtype, name="A")
    k = te.reduce_axis((0, k_ext), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, k, B


@pytest.mark.parametrize("factor", [4, 5, 23, 30])
def test_rfactor_inner_part_of_a_split_matches_numpy(factor):
    A, k, B = _rowsum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=factor)
    BF = s.rfactor(B, ki)
    assert BF.shape == (factor, 5)
    s[BF].parallel(s[BF].op.axis[0])
    a = np.random.default_rng(10).integers(-99, 99, (5, 23)).astype("int32")
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_rfactor_outer_part_with_factor_axis_and_compute_at():
    A, k, B = _rowsum(n=6, k_ext=17, dtype="float32")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    BF = s[B].rfactor(ko, factor_axis=1)
    assert BF.shape == (6, 5)
    s[BF].compute_at(s[B], s[B].op.axis[0])
    a = np.random.default_rng(11).integers(-8, 8, (6, 17)).astype("float32")
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_rfactor_of_a_whole_reduce_axis_and_of_a_max():
    A = te.placeholder((4, 9), dtype="int32", name="A")
    k = te.reduce_axis((0, 9), name="k")
    B = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    BF = s.rfactor(B, k)
    assert BF.shape == (9, 4)
    a = np.random.default_rng(12).integers(-99, 99, (4, 9)).astype("int32")
    (b,) = run(s, [A, B], [a])
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_rfactor_of_a_non_reduction_is_rejected():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tessera.ScheduleError, match="'B' is not a reduction"):
        s.rfactor(B, B.op.axis[0])


# ---- attach legalization ----------------------------------------------------------------------

def test_split_and_fuse_after_compute_at_move_the_attach_point_as_tvm():
    A = te.placeholder((12, 10), dtype="int32", name="A")
    B = te.compute((12, 10), lambda i, j: A[i, j] * 3, name="B")
    C = te.compute((12, 10), lambda i, j: B[i, j] - 1, name="C")
    s = te.create_schedule(C.op)
    i, j = s[C].op.axis
    s[B].compute_at(s[C], i)
    io, ii = s[C].split(i, factor=5)        # B moves to ii
    assert "at C.i.inner" in str(s)
    fused = s[C].fuse(io, ii)               # then to the fused loop
    assert "at C.i.outer.i.inner.fused" in str(s)
    s[C].parallel(fused)
    a = np.random.default_rng(14).integers(-99, 99, (12, 10)).astype("int32")
    (c,) = run(s, [A, C], [a])
    np.testing.assert_array_equal(c, a * 3 - 1)
