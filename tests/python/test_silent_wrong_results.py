"""Inputs that used to give a silent wrong result (issue 7): each now gives the right answer,
checked against numpy, or a typed error whose message names the object and says what is legal."""
import os
import tempfile

import numpy as np
import pytest

import tessera
from tessera import te

import op_defs


# --- GCC 12 -O3 miscompiled zero-then-accumulate nests under `omp parallel for` -------------------

@pytest.mark.parametrize("Bn, M, N, K, order", [
    (2, 5, 6, 1, "jbi"),   # the shape the issue reported
    (6, 3, 5, 1, "jbi"),   # C[0, 2, :] came out 0 at GCC -O3
    (2, 4, 5, 3, "jkbi"),  # the init nest apart from the update nest: rows of C left at 0
])
def test_integer_batch_matmul_with_the_parallel_loop_outermost_matches_numpy(Bn, M, N, K, order):
    case = op_defs.batch_matmul(Bn=Bn, M=M, N=N, K=K, dtype="int32")
    C = case.output
    s = te.create_schedule(C.op)
    b, i, j = C.op.axis
    axes = {"b": b, "i": i, "j": j, "k": C.op.reduce_axis[0]}
    s[C].reorder(*[axes[a] for a in order])
    s[C].parallel(j)
    f = tessera.build(s, case.args, target="c", name="bmm")
    for seed in range(3):
        out, ref = op_defs.run_case(case, f, np.random.default_rng(seed))
        np.testing.assert_array_equal(out, ref)


# --- byte order and writeability of arguments ------------------------------------------------------

def _double_cpu():
    A = te.placeholder((4,), "float32", "A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    return tessera.build(te.create_schedule(B.op), [A, B], name="dbl")


def _npu_add():
    op = tessera.npu_ops.add(C=16, H=2, W=3)
    return tessera.build(op.schedule, op.args, target="npu", name="add")


def test_big_endian_input_is_refused_by_the_cpu_module():
    f = _double_cpu()
    with pytest.raises(tessera.ArgumentError,
                       match=r"dbl: argument 0 'A': the array's dtype '>f4' is not in the "
                             r"machine's byte order; pass x.astype\(x.dtype.newbyteorder\('='\)\)"):
        f(np.arange(4, dtype=">f4"), np.zeros(4, "float32"))


def test_big_endian_array_converted_as_the_message_says_gives_the_right_result():
    f = _double_cpu()
    a = np.arange(4, dtype=">f4")
    b = np.zeros(4, "float32")
    f(a.astype(a.dtype.newbyteorder("=")), b)
    np.testing.assert_array_equal(b, [0, 2, 4, 6])


def test_big_endian_array_is_refused_by_the_npu_module():
    f = _npu_add()
    a = np.zeros((1, 2, 3, 16), np.int8)
    with pytest.raises(tessera.ArgumentError, match=r"add: argument 0 'A': the array's dtype "
                                                    r"'>i4' is not in the machine's byte order"):
        f(a.astype(">i4"), a, np.zeros_like(a))


def test_big_endian_input_to_npu_run_is_refused():
    from tessera import npu
    asm = npu.Assembler(npu.default_target(), "copy32")
    X = asm.buffer("X", [16], npu.DType.INT32, npu.BufferRole.INPUT)
    Y = asm.buffer("Y", [16], npu.DType.INT32, npu.BufferRole.OUTPUT)
    asm.load(npu.Mem.ACC, 0, 1, X, 64, 1, 1, npu.PUSH_NEXT)
    asm.sync(npu.Queue.COMPUTE, npu.POP_PREV | npu.PUSH_NEXT)
    asm.store(npu.Mem.ACC, 0, 1, Y, 64, 1, 1, npu.POP_PREV)
    k = asm.finish()
    with pytest.raises(tessera.ArgumentError, match=r"buffer 'X' is int32 but the array is >i4"):
        npu.run(k, {"X": np.arange(16, dtype=">i4")})
    out, _ = npu.run(k, {"X": np.arange(16, dtype="int32")})
    np.testing.assert_array_equal(out["Y"], np.arange(16))


def _read_only(a):
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("output", [
    lambda: _read_only(np.zeros(4, "float32")),
    lambda: np.frombuffer(bytes(16), dtype="float32"),
], ids=["writeable-False", "frombuffer-bytes"])
def test_read_only_output_is_refused_by_the_cpu_module_and_left_unchanged(output):
    f = _double_cpu()
    out = output()
    with pytest.raises(tessera.ArgumentError,
                       match=r"argument 1 'B': function 'dbl' writes it, but the array is "
                             r"read-only; pass a writeable array"):
        f(np.ones(4, "float32"), out)
    np.testing.assert_array_equal(out, np.zeros(4))


def test_read_only_input_is_accepted_by_the_cpu_module():
    f = _double_cpu()
    b = np.zeros(4, "float32")
    f(np.frombuffer(np.arange(4, dtype="float32").tobytes(), dtype="float32"), b)
    np.testing.assert_array_equal(b, [0, 2, 4, 6])


def test_read_only_output_is_refused_by_the_npu_module_and_left_unchanged():
    f = _npu_add()
    a = np.ones((1, 2, 3, 16), np.int8)
    out = np.frombuffer(bytes(a.size), dtype=np.int8).reshape(a.shape)
    with pytest.raises(tessera.ArgumentError,
                       match=r"add: argument 2 'Y' is an output, which the kernel writes, but the "
                             r"array is read-only"):
        f(a, a, out)
    assert not out.any()
    # Read-only inputs are fine.
    y = np.zeros_like(a)
    f(_read_only(a.copy()), _read_only(a.copy()), y)
    np.testing.assert_array_equal(y, np.full(a.shape, 2, np.int8))


def _misaligned(values, dtype):
    """A view of `values` whose data starts one byte past an element boundary."""
    raw = np.zeros(values.size * np.dtype(dtype).itemsize + 1, np.uint8)
    a = raw[1:].view(dtype).reshape(values.shape)
    a[...] = values
    assert not a.flags.aligned
    return a


def test_misaligned_arrays_are_refused_by_the_cpu_module():
    f = _double_cpu()
    for args, index, name in (((_misaligned(np.arange(4.0), "float32"), np.zeros(4, "float32")),
                               0, "A"),
                              ((np.arange(4, dtype="float32"), _misaligned(np.zeros(4), "float32")),
                               1, "B")):
        with pytest.raises(tessera.ArgumentError,
                           match=rf"dbl: argument {index} '{name}': the array's data is not "
                                 r"aligned to its 4-byte elements \(as np.frombuffer with an "
                                 r"offset can make\); pass a copy: x.copy\(\)"):
            f(*args)
    a, b = _misaligned(np.arange(4.0), "float32").copy(), np.zeros(4, "float32")
    f(a, b)  # the copy the message asks for
    np.testing.assert_array_equal(b, [0, 2, 4, 6])


def test_misaligned_arrays_are_refused_by_the_npu_module():
    op = tessera.npu_ops.add(C=16, H=2, W=3)
    f = tessera.build(op.schedule, op.args, target="npu", name="add")
    x = np.ones((1, 2, 3, 16), np.int8)
    y = _misaligned(np.zeros((1, 2, 3, 16)), "int32")  # int8 is never misaligned; int32 is
    with pytest.raises(tessera.ArgumentError, match=r"add: argument 0 'A': the array's data is "
                                                    r"not aligned to its 4-byte elements"):
        f(y, x, np.zeros_like(x))


def test_exported_library_remembers_which_arguments_are_written():
    f = _double_cpu()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "dbl.so")
        f.export_library(path)
        g = tessera.load_module(path)
    with pytest.raises(tessera.ArgumentError, match=r"'B': function 'dbl' writes it"):
        g(np.ones(4, "float32"), _read_only(np.zeros(4, "float32")))


# --- index arithmetic that does not fit int32 ------------------------------------------------------

def test_reduce_axis_beyond_int32_is_an_error_not_extent_3():
    with pytest.raises(tessera.ExprError,
                       match=r"reduce_axis 'k': the range \[0, 4294967299\) does not fit the "
                             r"int32 index range"):
        te.reduce_axis((0, 2**32 + 3), name="k")


def test_reduce_axis_of_2_to_the_40_is_an_error_not_an_empty_loop():
    with pytest.raises(tessera.ExprError, match=r"reduce_axis 'k': the range \[0, 1099511627776\)"):
        te.reduce_axis((0, 2**40), name="k")


def test_tensor_with_more_elements_than_int32_is_an_error_naming_it():
    with pytest.raises(tessera.ExprError,
                       match=r"tensor 'X': shape \(65536, 65536\) has more than 2147483647 "
                             r"elements, the int32 index range"):
        te.placeholder((65536, 65536), "int8", "X")
    A = te.placeholder((4,), "float32", "A")
    with pytest.raises(tessera.ExprError, match=r"tensor 'Big': shape \(65536, 65536\)"):
        te.compute((65536, 65536), lambda i, j: A[0], name="Big")


def test_fuse_beyond_int32_is_a_schedule_error_naming_the_axes():
    A = te.placeholder((4,), "float32", "A")
    k1 = te.reduce_axis((0, 65536), name="k1")
    k2 = te.reduce_axis((0, 65536), name="k2")
    S = te.compute((4,), lambda i: te.sum(A[i], axis=[k1, k2]), name="S")
    s = te.create_schedule(S.op)
    with pytest.raises(tessera.ScheduleError,
                       match=r"stage 'S': fuse: axes 'k1' \(extent 65536\) and 'k2' \(extent "
                             r"65536\) would make a loop of 4294967296 iterations, beyond the "
                             r"int32 index range"):
        s[S].fuse(k1, k2)


@pytest.mark.parametrize("body, shown", [
    (lambda X, i: X[(i * 1000003) % 7], r"\(i \* 1000003\) takes values in \[0, 4095012285\]"),
    (lambda X, i: X[(i + 2147480000) % 7], r"\(i \+ 2147480000\) takes values in "
                                           r"\[2147480000, 2147484095\]"),
    (lambda X, i: X[(i * -1048576) % 7], r"\(i \* -1048576\) takes values in "
                                         r"\[-4293918720, 0\]"),
    (lambda X, i: i * 1000003 + X[0], r"\(i \* 1000003\) takes values in \[0, 4095012285\]"),
], ids=["index-product", "index-sum", "negative-product", "value"])
def test_index_arithmetic_beyond_int32_is_a_lower_error_not_a_wrapped_read(body, shown):
    # (i * 1000003) % 7 wrapped for i >= 2148 and read X at a negative index.
    X = te.placeholder((7,), "int32", "X")
    Y = te.compute((4096,), lambda i: body(X, i), name="Y")
    with pytest.raises(tessera.LowerError,
                       match=r"lower: compute 'Y': the index arithmetic " + shown +
                             r", beyond int32 \[-2147483648, 2147483647\], and would wrap; "
                             r"arithmetic on axes and constants is int32 and must not overflow"):
        tessera.build(te.create_schedule(Y.op), [X, Y])


def test_index_arithmetic_under_a_guard_is_proved_under_the_guard():
    # i * 1000003 fits int32 where i < 2000, the only place it is computed.
    X = te.placeholder((7,), "int32", "X")
    Y = te.compute((4096,), lambda i: te.if_then_else(i < 2000, X[(i * 1000003) % 7], -1),
                   name="Y")
    f = tessera.build(te.create_schedule(Y.op), [X, Y])
    x = np.arange(7, dtype="int32") * 10
    y = np.zeros(4096, "int32")
    f(x, y)
    k = np.arange(4096, dtype=np.int64)
    np.testing.assert_array_equal(y, np.where(k < 2000, x[(k * 1000003) % 7], -1))


def test_index_arithmetic_widened_to_int64_as_the_message_says_matches_numpy():
    X = te.placeholder((7,), "int32", "X")
    Y = te.compute((4096,), lambda i: X[((i.astype("int64") * 1000003) % 7).astype("int32")],
                   name="Y")
    Z = te.compute((4096,), lambda i: i.astype("int64") * 1000003, name="Z")
    f = tessera.build(te.create_schedule([Y.op, Z.op]), [X, Y, Z])
    x = np.arange(7, dtype="int32") * 10
    y, z = np.zeros(4096, "int32"), np.zeros(4096, "int64")
    f(x, y, z)
    k = np.arange(4096, dtype=np.int64)
    np.testing.assert_array_equal(y, x[(k * 1000003) % 7])
    np.testing.assert_array_equal(z, k * 1000003)


# --- reads outside a placeholder ------------------------------------------------------------------

def test_read_before_the_first_row_is_a_lower_error_naming_everything():
    X = te.placeholder((10, 4), "float32", "X")
    Y = te.compute((10, 4), lambda i, j: X[i - 1, j], name="Y")
    with pytest.raises(tessera.LowerError,
                       match=r"compute 'Y' reads placeholder 'X' outside its shape: dimension 0 "
                             r"index \(i - 1\) takes values in \[-1, 8\] but 'X' has shape "
                             r"\(10, 4\), so it must stay in \[0, 9\]"):
        tessera.lower(te.create_schedule(Y.op), [X, Y])


def test_index_range_larger_than_the_shape_is_a_lower_error():
    X = te.placeholder((10, 4), "float32", "X")
    Y = te.compute((12, 4), lambda i, j: X[i, j], name="Y")
    with pytest.raises(tessera.LowerError, match=r"dimension 0 index i takes values in \[0, 11\]"):
        tessera.build(te.create_schedule(Y.op), [X, Y])


def test_reduce_axis_with_negative_start_is_a_lower_error():
    X = te.placeholder((10,), "float32", "X")
    k = te.reduce_axis((-5, 5), name="k")
    Y = te.compute((1,), lambda i: te.sum(X[k], axis=k), name="Y")
    with pytest.raises(tessera.LowerError,
                       match=r"compute 'Y' reads placeholder 'X' outside its shape: dimension 0 "
                             r"index k takes values in \[-5, 4\]"):
        tessera.build(te.create_schedule(Y.op), [X, Y])


def test_read_far_outside_is_a_lower_error_not_a_segfault():
    X = te.placeholder((16,), "float32", "X")
    Y = te.compute((16,), lambda i: X[i + 100000000], name="Y")
    with pytest.raises(tessera.LowerError, match=r"index \(i \+ 100000000\) takes values in "
                                                 r"\[100000000, 100000015\]"):
        tessera.build(te.create_schedule(Y.op), [X, Y])


def test_read_outside_an_intermediate_compute_is_a_lower_error():
    X = te.placeholder((8,), "float32", "X")
    P = te.compute((8,), lambda i: X[i] + 1.0, name="P")
    Y = te.compute((8,), lambda i: P[i + 1], name="Y")
    s = te.create_schedule(Y.op)
    s[P].compute_inline()
    with pytest.raises(tessera.LowerError, match=r"compute 'Y' reads tensor 'P' outside its shape: "
                                                 r"dimension 0 index \(i \+ 1\)"):
        tessera.build(s, [X, Y])


def test_a_data_dependent_index_needs_a_guard():
    X = te.placeholder((8,), "float32", "X")
    I = te.placeholder((8,), "int32", "I")
    Y = te.compute((8,), lambda i: X[I[i]], name="Y")
    with pytest.raises(tessera.LowerError, match=r"index I\[i\] has no provable bound"):
        tessera.build(te.create_schedule(Y.op), [X, I, Y])


def test_reads_guarded_with_if_then_else_build_and_match_numpy():
    X = te.placeholder((10, 4), "float32", "X")
    I = te.placeholder((10,), "int32", "I")
    Y = te.compute((10, 4), lambda i, j: te.if_then_else(i >= 1, X[i - 1, j], 0.0), name="Y")
    Z = te.compute((10, 4), lambda i, j: te.if_then_else(
        te.all(I[i] >= 0, I[i] < 10), X[I[i], j], -1.0), name="Z")
    W = te.compute((10, 4), lambda i, j: Y[i, j] + Z[i, j], name="W")
    s = te.create_schedule(W.op)
    f = tessera.build(s, [X, I, W])
    x = np.random.default_rng(0).standard_normal((10, 4)).astype("float32")
    idx = np.array([3, -1, 9, 10, 0, 5, 100, 2, 7, -50], "int32")
    w = np.zeros((10, 4), "float32")
    f(x, idx, w)
    y = np.vstack([np.zeros((1, 4), "float32"), x[:-1]])
    z = np.where(((idx >= 0) & (idx < 10))[:, None], x[np.clip(idx, 0, 9)], -1.0)
    np.testing.assert_allclose(w, y + z, rtol=1e-6)


def test_a_reduction_guarded_with_where_builds_and_matches_numpy():
    X = te.placeholder((12,), "int32", "X")
    k = te.reduce_axis((-2, 5), name="k")
    Y = te.compute((12,), lambda i: te.sum(X[i + k], axis=k,
                                           where=te.all(i + k >= 0, i + k < 12)), name="Y")
    f = tessera.build(te.create_schedule(Y.op), [X, Y])
    x = np.arange(12, dtype="int32") * 3 - 7
    y = np.zeros(12, "int32")
    f(x, y)
    want = [sum(x[j] for j in range(i - 2, i + 5) if 0 <= j < 12) for i in range(12)]
    np.testing.assert_array_equal(y, want)


# --- extents that are not integers ----------------------------------------------------------------

def test_compute_with_a_float_extent_is_an_error_not_a_truncation():
    A = te.placeholder((4,), "float32", "A")
    with pytest.raises(tessera.ExprError,
                       match=r"te.compute 'C': shape\[0\] must be an integer, got float 2.5"):
        te.compute((2.5,), lambda i: A[i], name="C")


def test_numpy_integer_extents_are_integers():
    A = te.placeholder((np.int64(4),), "float32", "A")
    C = te.compute((np.int32(4),), lambda i: A[i] + 1.0, name="C")
    assert C.shape == (4,)
    M = te.placeholder(np.array([3, 5]), "float32", "M")  # a shape given as a numpy array
    N = te.compute(np.array([3, 5]), lambda i, j: M[i, j], name="N")
    assert M.shape == N.shape == (3, 5)
    with pytest.raises(tessera.ExprError, match=r"shape\[0\] must be an integer, got float64"):
        te.compute(np.array([4.5]), lambda i: A[0], name="F")


# --- requantize on the C target -------------------------------------------------------------------

@pytest.mark.parametrize("multiplier, shift, zero_point", [
    (1 << 14, 22, 0), (-5, 3, 7), (1, 0, -128), (2**31 - 1, 62, 0), (-2**31, 31, 127), (3, 1, 0),
])
def test_requantize_on_the_c_target_matches_an_exact_reference(multiplier, shift, zero_point):
    # It was an InternalError ("codegen_c ... calls requantize"): C had no requantize.
    X = te.placeholder((64,), "int32", "X")
    Y = te.compute((64,), lambda i: te.requantize(X[i], multiplier, shift, zero_point), name="Y")
    f = tessera.build(te.create_schedule(Y.op), [X, Y])
    rng = np.random.default_rng(shift)
    x = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    x[:6] = [0, 1, -1, 2**31 - 1, -2**31, 1 << 20]
    y = np.zeros(64, np.int8)
    f(x, y)
    # docs/npu_isa.md: clamp(((a * m + 2^(shift-1)) >> shift) + zero_point, -128, 127), exactly.
    want = []
    for a in x.tolist():
        v = a * multiplier
        if shift > 0:
            v = (v + (1 << (shift - 1))) >> shift
        want.append(min(127, max(-128, v + zero_point)))
    np.testing.assert_array_equal(y, np.array(want, np.int8))
