"""Illegal schedules and malformed expressions: each raises the right exception type with a
message that names the user's object and says what is legal."""
import numpy as np
import pytest

import tessera
from tessera import te


def matmul(M=16, N=16, K=8):
    A = te.placeholder((M, K), dtype="float32", name="A")
    B = te.placeholder((K, N), dtype="float32", name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def two_stage():
    A = te.placeholder((8, 8), dtype="float32", name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name="C")
    return A, B, C


def test_split_with_zero_factor_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': split: factor 0 for axis 'i' must be a positive integer"):
        s[C].split(C.op.axis[0], factor=0)


def test_split_with_negative_nparts_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"nparts -2 for axis 'j' must be a positive"):
        s[C].split(C.op.axis[1], nparts=-2)


def test_schedule_error_is_also_a_value_error():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError):
        s[C].split(C.op.axis[0], factor=-1)


def test_split_of_an_axis_of_another_stage_is_rejected():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': split: axis 'i' is an axis of stage 'B', not of this stage"):
        s[C].split(B.op.axis[0], factor=2)


def test_reorder_of_an_axis_consumed_by_fuse_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[C].fuse(i, j)
    with pytest.raises(tessera.ScheduleError, match=r"reorder: axis 'i' was already consumed by fuse; use the axes it produced"):
        s[C].reorder(i, j)


def test_split_of_an_axis_already_split_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    with pytest.raises(tessera.ScheduleError, match=r"split: axis 'i' was already consumed by split"):
        s[C].split(C.op.axis[0], factor=2)


def test_fuse_of_non_adjacent_axes_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    with pytest.raises(tessera.ScheduleError, match=r"fuse: axes 'j' and 'i' must be adjacent loops with the outer one first"):
        s[C].fuse(j, i)


def test_fuse_of_spatial_and_reduction_axes_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"cannot fuse data-parallel and reduction axes \('j', 'k'\); TVM builds one loop over both.*rfactor"):
        s[C].fuse(C.op.axis[1], C.op.reduce_axis[0])


def test_reorder_listing_an_axis_twice_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    with pytest.raises(tessera.ScheduleError, match=r"reorder: axis 'i' appears twice"):
        s[C].reorder(i, j, i)


def test_parallel_on_a_reduction_axis_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"parallel: axis 'k' is a reduction axis"):
        s[C].parallel(C.op.reduce_axis[0])


def test_vectorize_on_a_reduction_axis_is_rejected():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"vectorize: axis 'k' is a reduction axis"):
        s[C].vectorize(C.op.reduce_axis[0])


def test_vectorize_with_a_stage_computed_inside_is_rejected_at_lowering():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[C].vectorize(i)
    s[B].compute_at(s[C], j)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': vectorize: stage 'B' is computed inside vectorized axis 'i'; compute it at a loop outside that axis"):
        tessera.lower(s, [A, C])


def test_compute_at_into_a_stage_that_does_not_consume_is_rejected():
    A = te.placeholder((8,), dtype="float32", name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    D = te.compute((8,), lambda i: A[i] * 3.0, name="D")
    C = te.compute((8,), lambda i: B[i] + D[i], name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[D], D.op.axis[0])
    with pytest.raises(tessera.ScheduleError, match=r"stage 'B': compute_at 'D': stage 'D' does not read 'B' and its reader 'C' is not computed inside loop 'i'; compute_at must target a loop of a stage that consumes it"):
        tessera.lower(s, [A, C])


def test_compute_at_a_loop_of_the_wrong_stage_is_rejected():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"compute_at target: axis 'i' is an axis of stage 'B', not of this stage"):
        s[B].compute_at(s[C], B.op.axis[0])


def test_compute_inline_of_a_reduction_is_rejected():
    A, B, C = matmul()
    D = te.compute((16, 16), lambda i, j: C[i, j] * 2.0, name="D")
    s = te.create_schedule(D.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': compute_inline: a reduction cannot be inlined"):
        s[C].compute_inline()


def test_compute_inline_of_an_output_is_rejected():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'C': compute_inline: an output of the schedule cannot be inlined"):
        s[C].compute_inline()


def test_cache_read_for_a_stage_that_does_not_read_the_tensor_is_rejected():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"cache_read of 'A': stage 'C' does not read 'A'"):
        s.cache_read(A, "local", [C])


def test_cache_read_into_an_unknown_scope_is_rejected():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match=r"unknown scope 'shared'; known scopes: global, local"):
        s.cache_read(A, "shared", [B])


def test_cache_write_after_split_of_a_reduction_loop_is_rejected():
    # A split of a data axis is laid out as TVM does (test_tvm_schedule_compat.py); a split
    # reduction loop cannot be, in TVM either.
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    s[C].split(C.op.reduce_axis[0], factor=4)
    with pytest.raises(tessera.ScheduleError, match=r"cache_write of 'C': the reduction loop 'k.outer'.*Can only relayout"):
        s.cache_write(C, "local")


def test_compute_at_target_split_after_attaching_moves_to_the_inner_loop():
    # Legalized as TVM does (it was an error before issue 13): the attach point follows the split.
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].split(C.op.axis[0], factor=2)
    assert "at C.i.inner" in str(s)
    a = np.random.default_rng(0).standard_normal((8, 8)).astype("float32")
    c = np.zeros((8, 8), "float32")
    tessera.build(s, [A, C], target="c")(a, c)
    np.testing.assert_array_equal(c, (a + np.float32(1.0)) * np.float32(2.0))



def test_mixing_int32_and_float32_is_rejected():
    A = te.placeholder((4,), dtype="int32", name="A")
    B = te.placeholder((4,), dtype="float32", name="B")
    with pytest.raises(tessera.ExprError, match=r"operator \+ mixes int32 and float32, which would lose information; cast one side"):
        te.compute((4,), lambda i: A[i] + B[i], name="C")


def test_integer_literal_out_of_range_is_rejected():
    A = te.placeholder((4,), dtype="int8", name="A")
    with pytest.raises(tessera.ExprError, match=r"integer literal 300 does not fit in int8"):
        te.compute((4,), lambda i: A[i] + 300, name="C")


def test_wrong_number_of_indices_is_rejected():
    A = te.placeholder((4, 4), dtype="float32", name="A")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A' has 2 dimension\(s\) but is indexed with 1"):
        te.compute((4,), lambda i: A[i], name="C")


def test_float_index_is_rejected():
    A = te.placeholder((4,), dtype="float32", name="A")
    with pytest.raises(tessera.ExprError, match=r"tensor 'A': index 0 has type float32; indices must be integers"):
        te.compute((4,), lambda i: A[i.astype("float32")], name="C")


def test_reduction_nested_in_arithmetic_is_rejected():
    A = te.placeholder((4, 4), dtype="float32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(tessera.ExprError, match=r"compute 'C': a reduction \(sum\) must be the whole body"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1.0, name="C")


def test_undeclared_reduce_variable_is_rejected():
    A = te.placeholder((4, 4), dtype="float32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(tessera.ExprError, match=r"compute 'C': variable 'k' is neither an axis of this compute nor a reduce axis"):
        te.compute((4,), lambda i: A[i, k], name="C")


def test_non_positive_shape_is_rejected():
    with pytest.raises(tessera.ExprError, match=r"tensor 'A': dimension 1 has extent 0; extents must be positive"):
        te.placeholder((4, 0), dtype="float32", name="A")


def test_python_and_on_expressions_is_rejected():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match=r"has no truth value; use te.all/te.any"):
        te.compute((4,), lambda i: te.if_then_else((i > 0) and (i < 3), A[i], 0), name="C")


def test_missing_input_argument_is_a_lower_error():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.LowerError, match=r"stage 'C' reads input 'B', which is not in the argument list"):
        tessera.lower(s, [A, C])


def test_missing_output_argument_is_a_lower_error():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.LowerError, match=r"output 'C' is not in the argument list"):
        tessera.lower(s, [A, B])


def test_unknown_target_is_a_target_error():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.TargetError, match=r"unknown target 'gpu'; known shorthands: c \(the host CPU\), npu \(the built-in npu-v1\)"):
        tessera.build(s, [A, B, C], target="gpu")
    with pytest.raises(tessera.TargetError, match=r"unknown target 'npu-v2'"):
        tessera.lower(s, [A, B, C], target="npu-v2")


def test_call_with_wrong_shape_names_the_argument():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    f = tessera.build(s, [A, B, C], target="c")
    a = np.zeros((16, 8), np.float32)
    b = np.zeros((8, 16), np.float32)
    with pytest.raises(tessera.ArgumentError, match=r"'C'"):
        f(a, b, np.zeros((16, 15), np.float32))


def test_call_with_wrong_dtype_names_the_argument():
    A, B, C = matmul()
    s = te.create_schedule(C.op)
    f = tessera.build(s, [A, B, C], target="c")
    with pytest.raises(tessera.ArgumentError, match=r"'A'"):
        f(np.zeros((16, 8), np.float64), np.zeros((8, 16), np.float32), np.zeros((16, 16), np.float32))
