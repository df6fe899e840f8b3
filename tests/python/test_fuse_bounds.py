"""Bound inference after fuse + split (issue 13): a producer computed at the outer part of a
split of a fused loop computes only what one outer iteration reads, as TVM infers it (a factor
that divides the inner extent keeps each outer iteration within one row), and stays correct when
the factor does not divide (then whole rows, as TVM)."""
import itertools
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import te


def _pipeline(rows, cols, factor, dtype="int32", fuse_first=True):
    A = te.placeholder((rows, cols), name="A", dtype=dtype)
    B = te.compute((rows, cols), lambda i, j: A[i, j] * 3 + 1, name="B")
    C = te.compute((rows, cols), lambda i, j: B[i, j] - A[i, j] // 2, name="C")
    s = te.create_schedule(C.op)
    f = s[C].fuse(*C.op.axis)
    o, _ = s[C].split(f, factor=factor)
    s[B].compute_at(s[C], o)
    return s, A, B, C


def _allocation(text, name):
    m = re.search(r"allocate %s\[\w+ \* ([\d\s*]+)\]" % name, text)
    assert m, text
    return [int(x) for x in m.group(1).split("*")]


def _run(s, A, C, rows, cols):
    f = tvm.build(s, [A, C], target="c")
    rng = np.random.default_rng(rows * 100 + cols)
    a = rng.integers(-1000, 1000, size=(rows, cols), dtype=np.int32)
    c = tvm.nd.array(np.zeros((rows, cols), np.int32))
    f(tvm.nd.array(a), c)
    return a, c.numpy()


def test_a_factor_dividing_the_row_computes_only_that_part_of_the_row():
    s, A, B, C = _pipeline(8, 12, 3)
    text = str(tvm.lower(s, [A, C]))
    assert _allocation(text, "B") == [1, 3]  # TVM: 1 x 3 (was 1 x 12)
    a, c = _run(s, A, C, 8, 12)
    np.testing.assert_array_equal(c, (a * 3 + 1) - np.floor_divide(a, 2))


def test_a_factor_that_is_a_multiple_of_the_row_computes_whole_rows():
    s, A, B, C = _pipeline(8, 12, 24)
    assert _allocation(str(tvm.lower(s, [A, C])), "B") == [2, 12]


@pytest.mark.parametrize("rows,cols,factor", [(8, 12, 5), (7, 10, 4), (6, 9, 7), (5, 12, 8)])
def test_a_factor_that_crosses_rows_stays_correct(rows, cols, factor):
    s, A, B, C = _pipeline(rows, cols, factor)
    a, c = _run(s, A, C, rows, cols)
    np.testing.assert_array_equal(c, (a * 3 + 1) - np.floor_divide(a, 2))


@pytest.mark.parametrize("rows,cols,factor",
                         list(itertools.product([3, 4, 6], [4, 6, 12], [1, 2, 3, 4, 6])))
def test_every_small_fuse_split_is_bit_exact_and_no_wider_than_the_rows_it_touches(rows, cols,
                                                                                    factor):
    s, A, B, C = _pipeline(rows, cols, factor)
    alloc = _allocation(str(tvm.lower(s, [A, C])), "B")
    if cols % factor == 0:
        assert alloc == [1, factor]
    elif factor % cols == 0:
        assert alloc == [factor // cols, cols]
    a, c = _run(s, A, C, rows, cols)
    np.testing.assert_array_equal(c, (a * 3 + 1) - np.floor_divide(a, 2))


def test_three_fused_axes_with_a_producer_at_the_outer_part():
    A = te.placeholder((4, 6, 8), name="A", dtype="int32")
    B = te.compute((4, 6, 8), lambda i, j, k: A[i, j, k] + i * 100 + j * 10 + k, name="B")
    C = te.compute((4, 6, 8), lambda i, j, k: B[i, j, k] * 2, name="C")
    s = te.create_schedule(C.op)
    f = s[C].fuse(*C.op.axis)
    o, _ = s[C].split(f, factor=4)
    s[B].compute_at(s[C], o)
    assert _allocation(str(tvm.lower(s, [A, C])), "B") == [1, 1, 4]
    f = tvm.build(s, [A, C], target="c")
    a = np.arange(4 * 6 * 8, dtype=np.int32).reshape(4, 6, 8) * 7 - 500
    c = tvm.nd.array(np.zeros((4, 6, 8), np.int32))
    f(tvm.nd.array(a), c)
    i, j, k = np.meshgrid(np.arange(4), np.arange(6), np.arange(8), indexing="ij")
    np.testing.assert_array_equal(c.numpy(), (a + i * 100 + j * 10 + k) * 2)


def test_a_stencil_producer_at_a_fused_split_reads_its_halo():
    A = te.placeholder((6, 14), name="A", dtype="int32")
    B = te.compute((6, 14), lambda i, j: A[i, j] * 5, name="B")
    C = te.compute((6, 12), lambda i, j: B[i, j] + B[i, j + 1] + B[i, j + 2], name="C")
    s = te.create_schedule(C.op)
    f = s[C].fuse(*C.op.axis)
    o, _ = s[C].split(f, factor=4)
    s[B].compute_at(s[C], o)
    assert _allocation(str(tvm.lower(s, [A, C])), "B") == [1, 6]
    f = tvm.build(s, [A, C], target="c")
    a = (np.arange(6 * 14, dtype=np.int32).reshape(6, 14) * 37) % 101 - 50
    c = tvm.nd.array(np.zeros((6, 12), np.int32))
    f(tvm.nd.array(a), c)
    b = a * 5
    np.testing.assert_array_equal(c.numpy(), b[:, :12] + b[:, 1:13] + b[:, 2:14])
