"""float16, uint32 and uint64 on the C target, as a TVM user expects them (issue 13), checked
against numpy bit for bit: every float16 operation rounds its exact result to float16 (numpy's
float16 arithmetic), unsigned integers wrap modulo 2^32 / 2^64 and divide, compare and shift as
unsigned; the simplifier folds constant unsigned expressions with unsigned semantics."""
import numpy as np
import pytest

import tessera
from tessera import te, tir

U32_MAX = 0xFFFFFFFF
U64_MAX = 0xFFFFFFFFFFFFFFFF


def run(s, args, inputs):
    """Builds for C, runs on `inputs` (numpy arrays for the leading args), returns the outputs."""
    f = tessera.build(s, args, target="c")
    outs = [np.zeros(t.shape, dtype=t.dtype) for t in args[len(inputs):]]
    f(*inputs, *outs)
    return outs


def compute1(inputs, out_fn, name="C"):
    """An elementwise compute over 1-D `inputs` (placeholders); returns its output array."""
    arrays = [a for _, a in inputs]
    phs = [p for p, _ in inputs]
    C = te.compute(phs[0].shape, lambda i: out_fn(*[p[i] for p in phs]), name=name)
    (c,) = run(te.create_schedule(C.op), [*phs, C], arrays)
    return c


def assert_same_f16(got, want):
    """Equal float16 bits, NaN where numpy has NaN (NaN payloads are not compared)."""
    assert got.dtype == np.float16 and want.dtype == np.float16
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got.view(np.uint16)[~nan], want.view(np.uint16)[~nan])


def f16_values():
    """float16 values covering normals, subnormals, zeros, the largest finite, inf and NaN."""
    rng = np.random.default_rng(13)
    special = np.array([0.0, -0.0, 1.0, -1.0, 65504, -65504, 6.1e-5, 6e-8, -6e-8, 2049, 0.1,
                        np.inf, -np.inf, np.nan, 1000, 3.14, 1e-4, 300, -0.5, 2.0],
                       dtype=np.float16)
    bits = rng.integers(0, 0x10000, 200, dtype=np.uint32).astype(np.uint16)
    return np.concatenate([special, bits.view(np.float16)])


# ---- float16 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_float16_arithmetic_rounds_each_operation_as_numpy(op):
    a = f16_values()
    b = np.roll(f16_values(), 7)
    A = te.placeholder(a.shape, dtype="float16", name="A")
    B = te.placeholder(b.shape, dtype="float16", name="B")
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y,
          "mul": lambda x, y: x * y, "div": lambda x, y: x / y}[op]
    C = te.compute(a.shape, lambda i: fn(A[i], B[i]), name="C")
    assert C.dtype == "float16"
    (c,) = run(te.create_schedule(C.op), [A, B, C], [a, b])
    with np.errstate(all="ignore"):
        assert_same_f16(c, fn(a, b))


def test_float16_expression_rounds_after_every_operation():
    # (a * b + c) * 0.1 - a: four roundings; float32 evaluation rounded once at the end differs.
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-300, 300, 500).astype(np.float16) for _ in range(3))
    A, B, Cc = (te.placeholder((500,), dtype="float16", name=n) for n in "ABC")
    D = te.compute((500,), lambda i: (A[i] * B[i] + Cc[i]) * 0.1 - A[i], name="D")
    (d,) = run(te.create_schedule(D.op), [A, B, Cc, D], [a, b, c])
    with np.errstate(all="ignore"):
        want = (a * b + c) * np.float16(0.1) - a
        once = ((a.astype(np.float32) * b + c) * np.float32(np.float16(0.1)) - a).astype(np.float16)
    assert_same_f16(d, want)
    assert not np.array_equal(want.view(np.uint16), once.view(np.uint16))  # the test can tell


def test_float32_and_float64_to_float16_round_to_nearest_even():
    rng = np.random.default_rng(5)
    tricky = [1 + 2.0**-11, 1 + 3 * 2.0**-11, 65504, 65519.99, 65520, 1e6, -1e6, 2.0**-24,
              2.0**-25, 3 * 2.0**-26, 2.0**-26, 5.9604645e-08, 6.1035156e-05, 6.1e-5, -0.0,
              np.inf, -np.inf, np.nan, 0.1, 1 / 3, 2049, 2051, 4097]
    f32 = np.concatenate([np.array(tricky, dtype=np.float32),
                          rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
                          .view(np.float32)])
    # A double just above a float16 tie that float rounds onto the tie: only a direct rounding
    # from double gets it right (numpy's float64 -> float16 is direct).
    f64 = np.concatenate([np.array(tricky + [1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11 - 2.0**-40,
                                             2049 + 2.0**-30], dtype=np.float64),
                          rng.standard_normal(2000) * 10.0**rng.integers(-9, 6, 2000)])
    for src in (f32, f64):
        A = te.placeholder(src.shape, dtype=str(src.dtype), name="A")
        B = te.compute(src.shape, lambda i: A[i].astype("float16"), name="B")
        (b,) = run(te.create_schedule(B.op), [A, B], [src])
        with np.errstate(all="ignore"):
            want = src.astype(np.float16)
        assert_same_f16(b, want)
        # Quiet NaNs keep their sign and payload as numpy keeps them (a signaling NaN comes out
        # quiet: converting it to double, as the generated C does, quiets it).
        wb = want.view(np.uint16)
        quiet = ~np.isnan(want) | ((wb & 0x200) != 0)
        np.testing.assert_array_equal(b.view(np.uint16)[quiet], wb[quiet])


def test_float16_widens_exactly_and_converts_to_and_from_integers():
    h = f16_values()
    finite = h[np.isfinite(h)]
    A = te.placeholder(h.shape, dtype="float16", name="A")
    B32 = te.compute(h.shape, lambda i: A[i].astype("float32"), name="B32")
    B64 = te.compute(h.shape, lambda i: A[i].astype("float64"), name="B64")
    (b32,) = run(te.create_schedule(B32.op), [A, B32], [h])
    (b64,) = run(te.create_schedule(B64.op), [A, B64], [h])
    np.testing.assert_array_equal(b32.view(np.uint32), h.astype(np.float32).view(np.uint32))
    # (a signaling NaN widened to float64 comes out quiet, as float -> double makes it)
    quiet = ~np.isnan(h) | ((h.view(np.uint16) & 0x200) != 0)
    np.testing.assert_array_equal(b64.view(np.uint64)[quiet],
                                  h.astype(np.float64).view(np.uint64)[quiet])
    # float16 -> int32 truncates toward zero (finite values: out of range is undefined in C)
    F = te.placeholder(finite.shape, dtype="float16", name="F")
    I = te.compute(finite.shape, lambda i: F[i].astype("int32"), name="I")
    (ii,) = run(te.create_schedule(I.op), [F, I], [finite])
    np.testing.assert_array_equal(ii, finite.astype(np.int32))
    # int32 / uint32 / int64 / uint8 -> float16: one rounding, overflow to inf
    ints = np.array([0, 1, -1, 2047, 2049, 2051, 4097, 65504, 65519, 65520, 70000, -70000,
                     123456789, -2**31, 2**31 - 1], dtype=np.int64)
    for dt, vals in [("int32", ints.astype(np.int32)), ("int64", ints * 3),
                     ("uint32", (ints & 0xFFFFFFFF).astype(np.uint32)),
                     ("uint8", np.arange(0, 256, dtype=np.uint8))]:
        X = te.placeholder(vals.shape, dtype=dt, name="X")
        Y = te.compute(vals.shape, lambda i: X[i].astype("float16"), name="Y")
        (y,) = run(te.create_schedule(Y.op), [X, Y], [vals])
        with np.errstate(all="ignore"):
            assert_same_f16(y, vals.astype(np.float16))


def test_float16_nan_and_inf_propagate():
    a = np.array([np.nan, np.inf, -np.inf, np.inf, 1.0, 0.0], dtype=np.float16)
    b = np.array([1.0, -np.inf, -np.inf, 1.0, np.nan, 0.0], dtype=np.float16)
    A = te.placeholder((6,), dtype="float16", name="A")
    B = te.placeholder((6,), dtype="float16", name="B")
    for fn in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x / y):
        C = te.compute((6,), lambda i: fn(A[i], B[i]), name="C")
        (c,) = run(te.create_schedule(C.op), [A, B, C], [a, b])
        with np.errstate(all="ignore"):
            assert_same_f16(c, fn(a, b))


def test_float16_sum_rounds_after_each_accumulation_step():
    rng = np.random.default_rng(7)
    n, k = 6, 700
    a = rng.uniform(0, 1, (n, k)).astype(np.float16)
    A = te.placeholder((n, k), dtype="float16", name="A")
    r = te.reduce_axis((0, k), name="r")
    S = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), name="S")
    want = np.zeros(n, dtype=np.float16)
    for i in range(n):
        acc = np.float16(0)
        for j in range(k):
            acc = np.float16(acc + a[i, j])
        want[i] = acc
    assert not np.array_equal(want, a.astype(np.float32).sum(axis=1).astype(np.float16))
    (s_plain,) = run(te.create_schedule(S.op), [A, S], [a])
    assert_same_f16(s_plain, want)
    sch = te.create_schedule(S.op)  # a split of the reduction keeps the loop order
    ro, ri = sch[S].split(S.op.reduce_axis[0], factor=64)
    (s_split,) = run(sch, [A, S], [a])
    assert_same_f16(s_split, want)


def test_float16_max_min_reductions_and_tensor_arithmetic():
    rng = np.random.default_rng(8)
    a = rng.uniform(-100, 100, (5, 33)).astype(np.float16)
    b = rng.uniform(-100, 100, (5, 33)).astype(np.float16)
    A = te.placeholder((5, 33), dtype="float16", name="A")
    B = te.placeholder((5, 33), dtype="float16", name="B")
    r = te.reduce_axis((0, 33), name="r")
    M = te.compute((5,), lambda i: te.max(A[i, r], axis=r), name="M")
    N = te.compute((5,), lambda i: te.min(A[i, r], axis=r), name="N")
    (m,) = run(te.create_schedule(M.op), [A, M], [a])
    (mn,) = run(te.create_schedule(N.op), [A, N], [a])
    assert_same_f16(m, a.max(axis=1))
    assert_same_f16(mn, a.min(axis=1))
    T = (A + B) * 2 - 1
    assert T.dtype == "float16"
    (t,) = run(te.create_schedule(T.op), [A, B, T], [a, b])
    with np.errstate(all="ignore"):
        assert_same_f16(t, (a + b) * np.float16(2) - np.float16(1))


def test_float16_constants_round_and_fold_as_numpy():
    c = te.const(0.1, "float16")
    assert c.dtype == "float16"
    A = te.placeholder((3,), dtype="float16", name="A")
    # constants only: the simplifier folds them in float16
    C = te.compute((3,), lambda i: te.const(0.1, "float16") + te.const(0.2, "float16")
                   + A[i] * 0, name="C")
    text = str(tessera.lower(te.create_schedule(C.op), [A, C], target="c"))
    assert "float16(0.1" not in text or "0.2" not in text  # 0.1 + 0.2 folded into one constant
    a = np.array([1, 2, 3], dtype=np.float16)
    (got,) = run(te.create_schedule(C.op), [A, C], [a])
    want = np.float16(0.1) + np.float16(0.2) + a * np.float16(0)
    assert_same_f16(got, want)
    D = te.compute((3,), lambda i: A[i] + tir.const(65519.0, "float16"), name="D")
    (d,) = run(te.create_schedule(D.op), [A, D], [a])  # 65519 rounds to 65504 first
    assert_same_f16(d, a + np.float16(65519.0))


def test_float16_promotes_with_float32_and_narrow_integers():
    H = te.placeholder((4,), dtype="float16", name="H")
    F = te.placeholder((4,), dtype="float32", name="F")
    I8 = te.placeholder((4,), dtype="int8", name="I8")
    I16 = te.placeholder((4,), dtype="int16", name="I16")
    assert (H[0] + F[0]).dtype == "float32"
    assert (H[0] + I8[0]).dtype == "float16"
    with pytest.raises(tessera.ExprError, match="mixes float16 and int16"):
        H[0] + I16[0]


# ---- uint32 / uint64 --------------------------------------------------------------------------

def test_uint32_arithmetic_wraps_modulo_2_32():
    a = np.array([U32_MAX, 0, 1, 0x80000000, 0xDEADBEEF, 65536, 123], dtype=np.uint32)
    b = np.array([1, 1, U32_MAX, 0x80000000, 0xCAFEBABE, 65536, 7], dtype=np.uint32)
    A = te.placeholder(a.shape, dtype="uint32", name="A")
    B = te.placeholder(b.shape, dtype="uint32", name="B")
    for fn in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
               lambda x, y: x * y + x * 3 - y):
        c = compute1([(A, a), (B, b)], fn)
        assert c.dtype == np.uint32
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(c, fn(a, b))
    C = A + 1  # tensor arithmetic: 0xFFFFFFFF + 1 == 0
    assert C.dtype == "uint32"
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, a + np.uint32(1))
    assert c[0] == 0


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_unsigned_division_modulo_comparison_and_min_max_above_the_signed_range(dtype):
    big = 2**31 if dtype == "uint32" else 2**63
    top = U32_MAX if dtype == "uint32" else U64_MAX
    a = np.array([top, big, big + 5, 7, top - 1, 0, big - 1, 3 * (big // 4), 100, top],
                 dtype=dtype)
    b = np.array([3, big, 2, big + 1, top, 5, big, 7, 0, 1], dtype=dtype)
    A = te.placeholder(a.shape, dtype=dtype, name="A")
    B = te.placeholder(b.shape, dtype=dtype, name="B")
    with np.errstate(all="ignore"):
        cases = [(lambda x, y: x // y, a // b), (lambda x, y: x % y, a % b),
                 (lambda x, y: te.max(x, y), np.maximum(a, b)),
                 (lambda x, y: te.min(x, y), np.minimum(a, b)),
                 (lambda x, y: x < y, a < b), (lambda x, y: x >= y, a >= b),
                 (lambda x, y: x // 3, a // np.array(3, dtype=dtype)),
                 (lambda x, y: x % 1000, a % np.array(1000, dtype=dtype))]
    for fn, want in cases:
        got = compute1([(A, a), (B, b)], fn)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_uint64_constants_above_int64_max():
    a = np.array([0, 1, 2**63, U64_MAX, 12345], dtype=np.uint64)
    A = te.placeholder(a.shape, dtype="uint64", name="A")
    k = 0xFFFFFFFFFFFFFFF0
    c = te.const(k, "uint64")
    assert "18446744073709551600" in str(c)
    cases = [(lambda x: x + k, a + np.uint64(k)), (lambda x: x * k, a * np.uint64(k)),
             (lambda x: x > 0x8000000000000000, a > np.uint64(2**63)),
             (lambda x: x // tir.const(2**63 + 1, "uint64"), a // np.uint64(2**63 + 1)),
             (lambda x: te.max(x, tir.const(2**63, "uint64")), np.maximum(a, np.uint64(2**63))),
             (lambda x: x - U64_MAX, a - np.uint64(U64_MAX))]
    for fn, want in cases:
        with np.errstate(all="ignore"):
            got = compute1([(A, a)], fn)
        np.testing.assert_array_equal(got, want)
    with pytest.raises(tessera.ExprError, match="does not fit in uint64"):
        te.const(2**64, "uint64")
    with pytest.raises(tessera.ExprError, match="does not fit in uint64"):
        te.const(-1, "uint64")
    with pytest.raises(tessera.ExprError, match="does not fit in uint32"):
        te.const(2**32, "uint32")


@pytest.mark.parametrize("dtype", ["uint32", "uint64", "int32"])
def test_shifts_and_bitwise_operators_match_numpy(dtype):
    bits = np.iinfo(dtype).bits
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 50, dtype=dtype, endpoint=True)
    a[:3] = [info.max, info.min, 1]
    s = rng.integers(0, bits, 50).astype(dtype)
    s[:6] = [0, 1, bits - 1, 3, bits - 1, 5]
    A = te.placeholder(a.shape, dtype=dtype, name="A")
    S = te.placeholder(s.shape, dtype=dtype, name="S")
    cases = [(lambda x, y: x >> y, np.right_shift(a, s)), (lambda x, y: x << y, np.left_shift(a, s)),
             (lambda x, y: x >> 3, np.right_shift(a, np.array(3, dtype=dtype))),
             (lambda x, y: tir.shift_left(x, 4), np.left_shift(a, np.array(4, dtype=dtype))),
             (lambda x, y: x & y, a & s), (lambda x, y: x | 0x0F0F, a | np.array(0x0F0F, dtype)),
             (lambda x, y: x ^ y, a ^ s), (lambda x, y: ~x, ~a)]
    for fn, want in cases:
        got = compute1([(A, a), (S, s)], fn)
        np.testing.assert_array_equal(got, want)
    # amounts outside [0, bits) shift every bit out, as numpy
    far = np.full(a.shape, bits + 3, dtype=dtype)
    F = te.placeholder(a.shape, dtype=dtype, name="F")
    for fn, want in [(lambda x, y: x << y, np.left_shift(a, far)),
                     (lambda x, y: x >> y, np.right_shift(a, far))]:
        np.testing.assert_array_equal(compute1([(A, a), (F, far)], fn), want)


def test_logical_and_or_on_bools_still_work():
    A = te.placeholder((6,), dtype="int32", name="A")
    a = np.arange(-3, 3, dtype=np.int32)
    C = te.compute((6,), lambda i: te.if_then_else((A[i] > -2) & (A[i] < 2) | (A[i] == 2), 1, 0),
                   name="C")
    (c,) = run(te.create_schedule(C.op), [A, C], [a])
    np.testing.assert_array_equal(c, (((a > -2) & (a < 2)) | (a == 2)).astype(np.int32))


def test_constant_unsigned_expressions_fold_with_unsigned_semantics():
    """Expressions of constants only: the simplifier folds them; the compiled result is numpy's."""
    u32 = lambda v: tir.const(v, "uint32")  # noqa: E731
    u64 = lambda v: tir.const(v, "uint64")  # noqa: E731
    cases = [
        (lambda: u32(U32_MAX) + u32(1), np.uint32(0)),
        (lambda: u32(0) - u32(1), np.uint32(U32_MAX)),
        (lambda: u32(0x80000000) * u32(2), np.uint32(0)),
        (lambda: u32(0xFFFFFFF0) // u32(16), np.uint32(0x0FFFFFFF)),
        (lambda: u32(0xFFFFFFF0) % u32(7), np.uint32(0xFFFFFFF0 % 7)),
        (lambda: te.max(u32(0x80000000), u32(5)), np.uint32(0x80000000)),
        (lambda: te.min(u64(2**63), u64(5)), np.uint64(5)),
        (lambda: u64(U64_MAX) // u64(3), np.uint64(U64_MAX // 3)),
        (lambda: u64(U64_MAX) % u64(10), np.uint64(U64_MAX % 10)),
        (lambda: u64(2**63) + u64(2**63), np.uint64(0)),
        (lambda: u64(3) - u64(5), np.uint64(U64_MAX - 1)),
        (lambda: (u64(2**63) > u64(1)).astype("int32"), np.int32(1)),
        (lambda: (u32(0x80000000) > u32(1)).astype("int32"), np.int32(1)),
        (lambda: u64(U64_MAX).astype("float64"), np.float64(U64_MAX)),
        (lambda: u64(U64_MAX).astype("uint32"), np.uint32(U32_MAX)),
        (lambda: u32(U32_MAX).astype("int32"), np.int32(-1)),
        (lambda: tir.const(-1, "int32").astype("uint64"), np.uint64(U64_MAX)),
        (lambda: tir.const(3e9, "float64").astype("uint32"), np.uint32(3000000000)),
        (lambda: tir.const(1.5e19, "float64").astype("uint64"), np.uint64(15000000000000000000)),
    ]
    for make, want in cases:
        C = te.compute((1,), lambda i: make(), name="C")
        s = te.create_schedule(C.op)
        text = str(tessera.lower(s, [C], target="c"))
        (got,) = run(s, [C], [])
        assert got.dtype == want.dtype, text
        np.testing.assert_array_equal(got[0], want, err_msg=text)


def test_simplifier_keeps_unsigned_wraparound_of_data():
    """Rewrites that hold for unbounded integers but not modulo 2^n must not apply."""
    a = np.array([U32_MAX, 0, 5, 0x80000000], dtype=np.uint32)
    A = te.placeholder(a.shape, dtype="uint32", name="A")
    cases = [(lambda x: (x + 1) > x, (a + np.uint32(1)) > a),
             (lambda x: (x - 1) < x, (a - np.uint32(1)) < a),
             (lambda x: te.max(x - 1, tir.const(0, "uint32")), np.maximum(a - np.uint32(1), 0)),
             (lambda x: (x * 2) // 2, (a * np.uint32(2)) // np.uint32(2)),
             (lambda x: (x + 4) % 4, (a + np.uint32(4)) % np.uint32(4)),
             (lambda x: x - x + (x * 0) + x // 1 + x % 1, a),
             (lambda x: (x + 0x80000000) >= 0x80000000, (a + np.uint32(0x80000000)) >= 0x80000000)]
    for fn, want in cases:
        with np.errstate(all="ignore"):
            got = compute1([(A, a)], fn)
        np.testing.assert_array_equal(got, want)


def test_unsigned_reductions_and_comm_reducer():
    rng = np.random.default_rng(21)
    a32 = rng.integers(2**31, 2**32, (4, 50), dtype=np.uint64).astype(np.uint32)
    a64 = rng.integers(0, 2**64, (4, 50), dtype=np.uint64, endpoint=False)
    a64[:, 0] = [2**63, U64_MAX, 1, 0]
    A32 = te.placeholder(a32.shape, dtype="uint32", name="A32")
    A64 = te.placeholder(a64.shape, dtype="uint64", name="A64")
    r = te.reduce_axis((0, 50), name="r")
    S = te.compute((4,), lambda i: te.sum(A32[i, r], axis=r), name="S")  # wraps
    (s,) = run(te.create_schedule(S.op), [A32, S], [a32])
    np.testing.assert_array_equal(s, a32.sum(axis=1, dtype=np.uint32))
    r2 = te.reduce_axis((0, 50), name="r2")
    M = te.compute((4,), lambda i: te.max(A64[i, r2], axis=r2), name="M")
    (m,) = run(te.create_schedule(M.op), [A64, M], [a64])
    np.testing.assert_array_equal(m, a64.max(axis=1))
    r3 = te.reduce_axis((0, 50), name="r3")
    N = te.compute((4,), lambda i: te.min(A64[i, r3], axis=r3), name="N")  # identity 2^64 - 1
    (n,) = run(te.create_schedule(N.op), [A64, N], [a64])
    np.testing.assert_array_equal(n, a64.min(axis=1))
    xor = te.comm_reducer(lambda x, y: x ^ y, lambda t: tir.const(0, t), name="xor")
    r4 = te.reduce_axis((0, 50), name="r4")
    X = te.compute((4,), lambda i: xor(A64[i, r4], axis=r4), name="X")
    (x,) = run(te.create_schedule(X.op), [A64, X], [a64])
    np.testing.assert_array_equal(x, np.bitwise_xor.reduce(a64, axis=1))


def test_new_dtypes_in_multi_output_and_symbolic_shapes():
    n = te.var("n")
    A = te.placeholder((n,), dtype="float16", name="A")
    U = te.placeholder((n,), dtype="uint32", name="U")
    P, Q = te.compute((n,), lambda i: (A[i] * A[i], U[i] * 3), name="PQ")
    s = te.create_schedule(P.op)
    xo, xi = s[P].split(P.op.axis[0], factor=8)
    f = tessera.build(s, [A, U, P, Q], target="c")
    for size in (5, 17, 32):
        rng = np.random.default_rng(size)
        a = rng.uniform(-300, 300, size).astype(np.float16)
        u = rng.integers(0, 2**32, size, dtype=np.uint64).astype(np.uint32)
        p = np.zeros(size, np.float16)
        q = np.zeros(size, np.uint32)
        f(a, u, p, q)
        with np.errstate(all="ignore"):
            assert_same_f16(p, a * a)
        np.testing.assert_array_equal(q, u * np.uint32(3))


def test_nd_arrays_hold_the_new_dtypes():
    for dt, vals in [("float16", np.array([0.1, 65504, -np.inf, 6e-8], dtype=np.float16)),
                     ("uint32", np.array([0, U32_MAX, 2**31], dtype=np.uint32)),
                     ("uint64", np.array([0, U64_MAX, 2**63], dtype=np.uint64))]:
        x = tessera.nd.array(vals, tessera.cpu(0))
        assert x.numpy().dtype == np.dtype(dt)
        np.testing.assert_array_equal(x.numpy().view(np.uint8), vals.view(np.uint8))
        e = tessera.nd.empty(vals.shape, dt, tessera.cpu(0))
        assert e.numpy().dtype == np.dtype(dt)
    A = te.placeholder((3,), dtype="uint64", name="A")
    B = te.compute((3,), lambda i: A[i] + 1, name="B")
    f = tessera.build(te.create_schedule(B.op), [A, B], target="c")
    a = tessera.nd.array(np.array([U64_MAX, 2**63, 0], dtype=np.uint64))
    b = tessera.nd.empty((3,), "uint64")
    f(a, b)
    np.testing.assert_array_equal(b.numpy(), np.array([0, 2**63 + 1, 1], dtype=np.uint64))


def test_generated_c_uses_unsigned_types_and_literals():
    A = te.placeholder((4,), dtype="uint64", name="A")
    B = te.compute((4,), lambda i: A[i] * 0xFFFFFFFFFFFFFFF0, name="B")
    src = tessera.build(te.create_schedule(B.op), [A, B], target="c").source
    assert "uint64_t" in src and "UINT64_C(18446744073709551600)" in src
    H = te.placeholder((4,), dtype="float16", name="H")
    G = te.compute((4,), lambda i: H[i] + H[i], name="G")
    src = tessera.build(te.create_schedule(G.op), [H, G], target="c").source
    assert "uint16_t" in src and "tsr_f16_round" in src and "_Float16" not in src


# ---- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "uint32", "uint64"])
def test_npu_target_rejects_the_new_dtypes_naming_the_tensor(dtype):
    A = te.placeholder((16, 16), dtype=dtype, name="Ahalf")
    B = te.compute((16, 16), lambda i, j: A[i, j], name="B")
    with pytest.raises(tessera.TargetError, match=f"tensor 'Ahalf' has dtype {dtype}.*target c"):
        tessera.build(te.create_schedule(B.op), [A, B], target="npu")


def test_unknown_dtype_error_lists_the_known_ones():
    known = ("known: bool, int8, int16, int32, int64, uint8, uint32, uint64, float16, float32, "
             "float64")
    with pytest.raises(tessera.ExprError) as e:
        te.placeholder((4,), dtype="bfloat16", name="A")
    assert "unknown dtype 'bfloat16'" in str(e.value) and known in str(e.value)
    with pytest.raises(tessera.ExprError, match="known: bool, .*float16"):
        te.const(1, "uint16")


def test_mixing_uint64_with_signed_types_is_an_error():
    U = te.placeholder((4,), dtype="uint64", name="U")
    I = te.placeholder((4,), dtype="int32", name="I")
    V = te.placeholder((4,), dtype="uint32", name="V")
    with pytest.raises(tessera.ExprError, match="mixes uint64 and int32"):
        U[0] + I[0]
    assert (V[0] + I[0]).dtype == "int64"
    assert (V[0] + U[0]).dtype == "uint64"
    with pytest.raises(tessera.ExprError, match="unary minus on uint32"):
        -V[0]
