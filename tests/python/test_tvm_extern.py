"""te.extern (issue 13): a C function the user writes is a stage between tensor-expression stages,
as TVM's te.extern with tir.call_extern. Results against numpy (integers bit-exact); errors name
the user's stage, function and tensors."""
import numpy as np
import pytest

import tessera
from tessera import te, tir

# A running sum along a row: the kind of sequential work TE cannot say and te.extern is for.
CUMSUM_C = r"""
#include <stdint.h>
int32_t my_cumsum(const int32_t* in, int32_t* out, int32_t rows, int32_t cols) {
  for (int32_t r = 0; r < rows; ++r) {
    int32_t acc = 0;
    for (int32_t c = 0; c < cols; ++c) {
      acc = (int32_t)((uint32_t)acc + (uint32_t)in[r * cols + c]);
      out[r * cols + c] = acc;
    }
  }
  return 0;
}
"""

TRANSPOSE_C = r"""
#include <stdint.h>
void my_transpose(const float* a, float* out, int32_t rows, int32_t cols, float scale) {
  for (int32_t i = 0; i < rows; ++i)
    for (int32_t j = 0; j < cols; ++j) out[j * rows + i] = a[i * cols + j] * scale;
}
"""

FAILING_C = r"""
#include <stdint.h>
int32_t my_check(const int32_t* in, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (in[i] < 0) return 7;
    out[i] = in[i];
  }
  return 0;
}
"""


def cumsum_stage(B, name="E"):
    return te.extern(B.shape, [B], lambda ins, outs: tir.call_extern(
        "int32", "my_cumsum", ins[0], outs[0], ins[0].shape[0], ins[0].shape[1]),
        name=name, c_source=CUMSUM_C)


def three_stages(m=6, n=10):
    """A -> B (te.compute) -> E (extern: row cumsum in C) -> C (te.compute)."""
    A = te.placeholder((m, n), dtype="int32", name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 3 - 1, name="B")
    E = cumsum_stage(B)
    C = te.compute((m, n), lambda i, j: E[i, j] + A[i, j], name="C")
    return A, B, E, C


def expected(a):
    b = (a.astype(np.int64) * 3 - 1)
    return (np.cumsum(b, axis=1) + a).astype(np.int32)


def test_extern_stage_between_two_te_stages_runs_the_users_c_function():
    A, B, E, C = three_stages()
    assert E.shape == (6, 10) and E.dtype == "int32" and E.name == "E"
    assert E.op.input_tensors == [B] and E.op.axis == [] and E.op.body == []
    s = te.create_schedule(C.op)
    f = tessera.build(s, [A, C], target="c")
    a = np.random.default_rng(0).integers(-50, 50, (6, 10)).astype("int32")
    c = np.zeros((6, 10), dtype="int32")
    f(a, c)
    np.testing.assert_array_equal(c, expected(a))


def test_extern_stage_is_a_call_in_the_lowered_program_and_the_source_is_compiled_in():
    A, B, E, C = three_stages()
    s = te.create_schedule(C.op)
    text = str(tessera.lower(s, [A, C]))
    assert "call_extern int32 my_cumsum(B, E, 6, 10)" in text
    assert text.index("produce B") < text.index("my_cumsum") < text.index("produce C")
    f = tessera.build(s, [A, C], target="c")
    assert "int32_t my_cumsum(const int32_t* in" in f.source  # the user's code, as given


def test_stages_around_an_extern_stage_can_be_scheduled():
    A, B, E, C = three_stages(7, 13)
    D = te.compute((7, 13), lambda i, j: E[i, j] * 2, name="D")
    F = te.compute((7, 13), lambda i, j: D[i, j] + C[i, j], name="F")
    s = te.create_schedule(F.op)
    xo, xi = s[F].split(F.op.axis[1], factor=4)   # 13 does not divide: a guarded tail
    s[F].parallel(F.op.axis[0])
    s[F].vectorize(xi)
    s[D].compute_at(s[F], xo)                     # a consumer of the extern, at a loop of F
    s[C].compute_inline()                         # another consumer, inlined
    bo, bi = s[B].split(B.op.axis[1], factor=5)   # the producer, split and unrolled
    s[B].unroll(bi)
    f = tessera.build(s, [A, F], target="c")
    a = np.random.default_rng(1).integers(-50, 50, (7, 13)).astype("int32")
    out = np.zeros((7, 13), dtype="int32")
    f(a, out)
    b = a.astype(np.int64) * 3 - 1
    e = np.cumsum(b, axis=1)
    np.testing.assert_array_equal(out, (e * 2 + e + a).astype(np.int32))


def test_extern_stage_as_the_output_with_scalar_and_float_arguments():
    A = te.placeholder((5, 3), name="A")
    B = te.compute((5, 3), lambda i, j: A[i, j] + 1.0, name="B")
    T = te.extern((3, 5), [B], lambda ins, outs: tir.call_extern(
        "void", "my_transpose", ins[0].data, outs[0].data, 5, 3, 0.5),
        name="T", c_source=TRANSPOSE_C)
    s = te.create_schedule(T.op)
    f = tessera.build(s, [A, T], target="c")
    a = np.random.default_rng(2).standard_normal((5, 3)).astype("float32")
    t = np.zeros((3, 5), dtype="float32")
    f(a, t)
    np.testing.assert_array_equal(t, ((a + np.float32(1.0)) * np.float32(0.5)).T)


def test_extern_reading_a_placeholder_and_cache_read_of_its_output():
    A = te.placeholder((4, 8), dtype="int32", name="A")
    E = cumsum_stage(A)
    C = te.compute((4, 8), lambda i, j: E[i, j] * 5, name="C")
    s = te.create_schedule(C.op)
    EL = s.cache_read(E, "local", [C])
    s[EL].compute_at(s[C], C.op.axis[0])
    f = tessera.build(s, [A, C], target="c")
    a = np.random.default_rng(3).integers(-9, 9, (4, 8)).astype("int32")
    c = np.zeros((4, 8), dtype="int32")
    f(a, c)
    np.testing.assert_array_equal(c, np.cumsum(a, axis=1).astype(np.int32) * 5)


def test_extern_with_symbolic_shapes_runs_at_several_sizes():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), dtype="int32", name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 3 - 1, name="B")
    E = cumsum_stage(B)
    C = te.compute((m, n), lambda i, j: E[i, j] + A[i, j], name="C")
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[1], factor=4)
    f = tessera.build(s, [A, C], target="c")
    rng = np.random.default_rng(4)
    for shape in [(3, 8), (5, 7), (1, 1)]:
        a = rng.integers(-50, 50, shape).astype("int32")
        c = np.zeros(shape, dtype="int32")
        f(a, c)
        np.testing.assert_array_equal(c, expected(a))


def test_build_of_lower_and_export_keep_the_extern_code(tmp_path):
    A, B, E, C = three_stages()
    s = te.create_schedule(C.op)
    f = tessera.build(tessera.lower(s, [A, C]), target="c")
    path = str(tmp_path / "ext.so")
    f.export_library(path)
    g = tessera.load_module(path)
    a = np.random.default_rng(5).integers(-50, 50, (6, 10)).astype("int32")
    c = np.zeros((6, 10), dtype="int32")
    g(a, c)
    np.testing.assert_array_equal(c, expected(a))


def test_extern_c_function_returning_nonzero_fails_the_call():
    A = te.placeholder((6,), dtype="int32", name="A")
    E = te.extern((6,), [A], lambda ins, outs: tir.call_extern(
        "int32", "my_check", ins[0], outs[0], 6), name="E", c_source=FAILING_C)
    f = tessera.build(te.create_schedule(E.op), [A, E], target="c")
    out = np.zeros(6, dtype="int32")
    f(np.arange(6, dtype="int32"), out)
    np.testing.assert_array_equal(out, np.arange(6))
    with pytest.raises(tessera.RuntimeError,
                       match="the C function 'my_check' of te.extern stage 'E' returned a nonzero"):
        f(np.array([1, 2, -3, 4, 5, 6], dtype="int32"), out)


POSITIVE_C = r"""
#include <stdint.h>
int32_t my_positive(const int32_t* in, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (in[i] <= 0) return 1;
    out[i] = in[i];
  }
  return 0;
}
"""


def test_the_failing_one_of_two_extern_calls_is_named_also_after_export(tmp_path):
    # first accepts non-negative values, second only positive ones: zeros pass the first and fail
    # the second; a negative input fails the first.
    A = te.placeholder((5,), dtype="int32", name="A")
    E1 = te.extern((5,), [A], lambda ins, outs: tir.call_extern(
        "int32", "my_check", ins[0], outs[0], 5), name="first", c_source=FAILING_C)
    E2 = te.extern((5,), [E1], lambda ins, outs: tir.call_extern(
        "int32", "my_positive", ins[0], outs[0], 5), name="second", c_source=POSITIVE_C)
    f = tessera.build(te.create_schedule(E2.op), [A, E2], target="c")
    path = str(tmp_path / "two_externs.so")
    f.export_library(path)
    g = tessera.load_module(path)
    for mod in (f, g):
        out = np.zeros(5, dtype="int32")
        mod(np.arange(1, 6, dtype="int32"), out)
        np.testing.assert_array_equal(out, np.arange(1, 6))
        with pytest.raises(tessera.RuntimeError, match="'my_positive' of te.extern stage 'second'"):
            mod(np.zeros(5, dtype="int32"), out)
        with pytest.raises(tessera.RuntimeError, match="'my_check' of te.extern stage 'first'"):
            mod(np.full(5, -1, dtype="int32"), out)


# ---- mistakes, each named ---------------------------------------------------------------------

def test_unknown_extern_function_is_rejected_naming_it_and_the_stage():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="te.extern 'E'.*unknown function 'my_cumsun'"):
        te.extern((4,), [A], lambda ins, outs: tir.call_extern(
            "int32", "my_cumsun", ins[0], outs[0], 1, 4), name="E", c_source=CUMSUM_C)


def test_extern_without_c_source_says_to_pass_it():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="te.extern 'E'.*no C source for 'my_cumsum'.*c_source="):
        te.extern((4,), [A], lambda ins, outs: tir.call_extern(
            "int32", "my_cumsum", ins[0], outs[0]), name="E")


def test_extern_indexing_a_missing_buffer_names_the_stage_and_its_buffers():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match=r"te.extern 'E'.*1 input buffer\(s\) \(ins: A\)"):
        te.extern((4,), [A], lambda ins, outs: tir.call_extern(
            "int32", "my_cumsum", ins[0], ins[1], outs[0]), name="E", c_source=CUMSUM_C)


def test_extern_call_without_the_output_buffer_is_rejected():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="te.extern 'E'.*not passed the output buffer"):
        te.extern((4,), [A], lambda ins, outs: tir.call_extern(
            "int32", "my_cumsum", ins[0], 1, 4), name="E", c_source=CUMSUM_C)


def test_extern_fcompute_must_return_a_call():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="te.extern 'E': fcompute returned .*call_extern"):
        te.extern((4,), [A], lambda ins, outs: 0, name="E", c_source=CUMSUM_C)


def test_call_packed_says_to_use_call_extern():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="call_packed\\('tvm.contrib.my'.*call_extern"):
        te.extern((4,), [A], lambda ins, outs: tir.call_packed(
            "tvm.contrib.my", ins[0], outs[0]), name="E")


def test_extern_with_two_outputs_is_rejected():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="te.extern 'E': 2 output shapes"):
        te.extern([(4,), (4,)], [A], lambda ins, outs: None, name="E", c_source=CUMSUM_C)


def test_extern_passing_a_tensor_instead_of_its_buffer_names_it():
    A = te.placeholder((4,), dtype="int32", name="A")
    with pytest.raises(tessera.ExprError, match="argument 0 of 'my_cumsum' is the tensor 'A'"):
        te.extern((4,), [A], lambda ins, outs: tir.call_extern(
            "int32", "my_cumsum", A, outs[0]), name="E", c_source=CUMSUM_C)


def test_loop_primitives_on_an_extern_stage_name_it():
    A, B, E, C = three_stages()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match="stage 'E': split: 'E' is an extern stage "
                                                    r"\(te.extern calling 'my_cumsum'\)"):
        s[E].split(C.op.axis[0], factor=2)
    with pytest.raises(tessera.ScheduleError, match="stage 'E': parallel: 'E' is an extern"):
        s[E].parallel(C.op.axis[0])
    with pytest.raises(tessera.ScheduleError, match="stage 'E': compute_at: 'E' is an extern"):
        s[E].compute_at(s[C], C.op.axis[0])
    with pytest.raises(tessera.ScheduleError, match="stage 'E': compute_inline: 'E' is an extern"):
        s[E].compute_inline()
    with pytest.raises(tessera.ScheduleError, match="cache_write of 'E'.*extern stage"):
        s.cache_write(E, "local")


def test_compute_at_into_an_extern_stage_is_rejected():
    A, B, E, C = three_stages()
    D = te.compute((6, 10), lambda i, j: A[i, j] + 1, name="D")
    E2 = te.extern((6, 10), [D], lambda ins, outs: tir.call_extern(
        "int32", "my_cumsum", ins[0], outs[0], 6, 10), name="E2", c_source=CUMSUM_C)
    s = te.create_schedule(E2.op)
    with pytest.raises(tessera.ScheduleError, match="stage 'D': compute_at: 'E2' is an extern "
                                                    "stage.*no loops to compute 'D' at"):
        s[D].compute_at(s[E2], D.op.axis[0])


def test_producer_of_an_extern_stage_stays_at_the_root():
    A, B, E, C = three_stages()
    s = te.create_schedule(C.op)
    with pytest.raises(tessera.ScheduleError, match="stage 'B': compute_inline: 'B' is read by "
                                                    "extern stage 'E'"):
        s[B].compute_inline()
    with pytest.raises(tessera.ScheduleError, match="stage 'B': compute_at: 'B' is read by "
                                                    "extern stage 'E'.*keep 'B' at the root"):
        s[B].compute_at(s[C], C.op.axis[0])


def test_extern_stage_on_the_npu_is_a_target_error_naming_it():
    A = te.placeholder((16, 16), dtype="int32", name="A")
    E = cumsum_stage(A)
    s = te.create_schedule(E.op)
    with pytest.raises(tessera.TargetError, match="stage 'E' is an extern stage.*'my_cumsum'.*"
                                                  "target c"):
        tessera.lower(s, [A, E], target="npu")


def test_extern_function_with_a_mismatched_c_type_fails_to_compile():
    A = te.placeholder((4,), name="A")   # float32, but the C function takes int32_t*
    E = te.extern((4,), [A], lambda ins, outs: tir.call_extern(
        "int32", "my_check", ins[0], outs[0], 4), name="E", dtype="int32", c_source=FAILING_C)
    with pytest.raises(tessera.RuntimeError, match="my_check"):
        tessera.build(te.create_schedule(E.op), [A, E], target="c")


def test_extern_function_named_like_a_c_library_function_is_rejected():
    A = te.placeholder((4,), name="A")
    src = "float expf(float x);\nvoid exp(const float* a, float* b) { b[0] = a[0]; }\n"
    E = te.extern((4,), [A], lambda ins, outs: tir.call_extern("void", "exp", ins[0], outs[0]),
                  name="E", c_source=src)
    with pytest.raises(tessera.LowerError, match="extern function 'exp' clashes"):
        tessera.build(te.create_schedule(E.op), [A, E], target="c")
