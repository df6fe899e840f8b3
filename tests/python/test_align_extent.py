"""align_extent (as Halide's Func::align_extent): a compute_at stage computes a region whose extent
along one of its axes is rounded up to a multiple of a factor, capped at the axis's extent. The
result must not change, the buffer grows, and the misuses are ScheduleErrors naming the stage."""
import re

import numpy as np
import pytest

import tessera
from tessera import te


def producer_consumer(n=30, m=13):
    A = te.placeholder((n, m), dtype="int32", name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 3 + 1, name="B")
    # C reads every other column of B: the region of B per row of C is 2 * (m // 2) - 1 wide.
    C = te.compute((n, m // 2), lambda i, j: B[i, 2 * j] - B[i, 2 * j + 1], name="C")
    return A, B, C


def run(s, A, C, a):
    f = tessera.build(s, [A, C], target="c")
    c = np.zeros(C.shape, np.int32)
    f(a, c)
    return c


def allocation_of(text, name):
    m = re.search(r"allocate " + name + r"\[int32 \* ([0-9 *]+)\]", text)
    assert m, text
    return [int(x) for x in m.group(1).split("*")]


@pytest.mark.parametrize("factor", [1, 4, 5, 16])
def test_aligned_region_gives_the_same_result_and_a_rounded_buffer(factor):
    A, B, C = producer_consumer()
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].align_extent(B.op.axis[1], factor)
    text = str(tessera.lower(s, [A, C]))
    rows, cols = allocation_of(text, "B")
    assert rows == 4
    need = 12  # columns 0 .. 11 are read
    assert cols == min(-(-need // factor) * factor, 13)
    a = np.random.default_rng(factor).integers(-1000, 1000, (30, 13)).astype(np.int32)
    b = a * 3 + 1
    np.testing.assert_array_equal(run(s, A, C, a), b[:, 0:12:2] - b[:, 1:13:2])


def test_aligned_rows_past_a_tail_are_not_computed_outside_the_tensor():
    # Rows split by 4 over 30 (a tail of 2), the row region aligned to 8: the stage's buffer has 8
    # rows but only rows inside the tensor are computed, and the result is unchanged.
    A, B, C = producer_consumer()
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].align_extent(B.op.axis[0], 8)
    assert allocation_of(str(tessera.lower(s, [A, C])), "B")[0] == 8
    a = np.arange(30 * 13, dtype=np.int32).reshape(30, 13)
    b = a * 3 + 1
    np.testing.assert_array_equal(run(s, A, C, a), b[:, 0:12:2] - b[:, 1:13:2])


def test_align_extent_is_shown_by_the_schedule():
    A, B, C = producer_consumer()
    s = te.create_schedule(C.op)
    s[B].align_extent(B.op.axis[1], 2)
    assert "stage B (global) align_extent(j, 2)" in str(s)


def test_align_extent_on_an_axis_of_another_stage_is_rejected():
    A, B, C = producer_consumer()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError,
                       match=r"stage 'B': align_extent: axis 'i' is not one of the stage's own "
                             r"axes \(i, j\)"):
        s[B].align_extent(C.op.axis[0], 2)


def test_align_extent_with_factor_zero_is_rejected():
    A, B, C = producer_consumer()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError,
                       match=r"stage 'B': align_extent: factor 0 on axis 'j' must be at least 1"):
        s[B].align_extent(B.op.axis[1], 0)
