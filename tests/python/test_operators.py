"""Every core operator, under its default schedule and at least three non-trivial schedules,
checked against numpy: integers bit-exact, float32 within 1e-5 relative."""
import numpy as np
import pytest

import tessera
from tessera import te

import op_defs


def check(case, s, seed=0):
    f = tessera.build(s, case.args, target="c")
    out, ref = op_defs.run_case(case, f, np.random.default_rng(seed))
    op_defs.assert_matches(out, ref, case.output.dtype)
    return str(tessera.lower(s, case.args))


def default(case):
    return te.create_schedule(case.output.op)


# ---- schedules, one function per (operator, idea) ------------------------------------------------

def matmul_tiled(case):
    s = default(case)
    C = case.output
    i, j = s[C].op.axis
    io, jo, ii, ji = s[C].tile(i, j, 8, 8)
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=4)
    s[C].reorder(io, jo, ko, ii, ki, ji)
    s[C].vectorize(ji)
    s[C].parallel(io)
    return s


def matmul_packed(case):
    s = default(case)
    C = case.output
    A, B = case.args[:2]
    i, j = s[C].op.axis
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=5)   # does not divide
    s[C].reorder(i, ko, j, ki)
    BB = s.cache_read(B, "local", [C])
    s[BB].compute_at(s[C], ko)
    s[C].unroll(ki)
    return s


def matmul_cache_write(case):
    s = default(case)
    C = case.output
    CL = s.cache_write(C, "local")
    i, j = s[C].op.axis
    io, ii = s[C].split(i, factor=6)
    jo, ji = s[C].split(j, factor=7)
    s[C].reorder(io, jo, ii, ji)
    fused = s[C].fuse(io, jo)
    s[CL].compute_at(s[C], fused)
    s[C].parallel(fused)
    return s


def batch_fused_parallel(case):
    s = default(case)
    C = case.output
    b, i, j = s[C].op.axis
    s[C].parallel(s[C].fuse(b, i))
    return s


def batch_reduce_outside(case):
    s = default(case)
    C = case.output
    b, i, j = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    jo, ji = s[C].split(j, factor=4)
    s[C].reorder(b, k, i, jo, ji)
    s[C].vectorize(ji)
    return s


def batch_nparts(case):
    s = default(case)
    C = case.output
    b, i, j = s[C].op.axis
    io, ii = s[C].split(i, nparts=3)
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=100)  # larger than the extent
    s[C].reorder(io, b, ko, ii, j, ki)
    return s


def conv_inline_pad(case):
    s = default(case)
    s[case.extra["P"]].compute_inline()
    Y = case.output
    n, k, oh, ow = s[Y].op.axis
    s[Y].parallel(k)
    return s


def conv_pad_at_row(case):
    s = default(case)
    Y = case.output
    n, k, oh, ow = s[Y].op.axis
    oho, ohi = s[Y].split(oh, factor=2)
    s[case.extra["P"]].compute_at(s[Y], oho)
    return s


def conv_tiled_reduce_reordered(case):
    s = default(case)
    Y = case.output
    n, k, oh, ow = s[Y].op.axis
    red = list(s[Y].op.reduce_axis)     # (rc, rr, rs) for conv2d, (rr, rs) for depthwise
    owo, owi = s[Y].split(ow, factor=3)
    s[Y].reorder(n, k, *red[-2:], oh, owo, *red[:-2], owi)
    s[Y].vectorize(owi)
    s[case.extra["P"]].compute_at(s[Y], red[-1])
    return s


def pool_inline(case):
    s = default(case)
    s[case.extra["P"]].compute_inline()
    return s


def pool_pad_at_channel(case):
    s = default(case)
    Y = case.output
    reader = case.extra.get("S", Y)     # the stage that reads the padded input
    n, c, oh, ow = s[reader].op.axis
    s[case.extra["P"]].compute_at(s[reader], c)
    s[reader].parallel(c)
    return s


def pool_split_fused(case):
    s = default(case)
    Y = case.output
    s[case.extra["P"]].compute_inline()
    n, c, oh, ow = s[Y].op.axis
    f = s[Y].fuse(oh, ow)
    fo, fi = s[Y].split(f, factor=5)
    s[Y].parallel(fo)
    if "S" in case.extra:
        s[case.extra["S"]].compute_at(s[Y], fi)
    return s


def dense_one_nest(case):
    """bias and relu inlined, the reduction computed inside the output's loop: one loop nest."""
    s = default(case)
    Y = case.output
    s[case.extra["Bias"]].compute_inline()
    i, j = s[Y].op.axis
    s[case.extra["D"]].compute_at(s[Y], j)
    return s


def dense_row_vectorized(case):
    s = default(case)
    Y = case.output
    D = case.extra["D"]
    s[case.extra["Bias"]].compute_inline()
    i, j = s[Y].op.axis
    jo, ji = s[Y].split(j, factor=8)
    s[D].compute_at(s[Y], i)
    di, dj = s[D].op.axis
    s[D].reorder(di, s[D].op.reduce_axis[0], dj)
    s[D].vectorize(dj)
    s[Y].vectorize(ji)
    return s


def dense_tiled_parallel(case):
    s = default(case)
    Y = case.output
    D = case.extra["D"]
    s[case.extra["Bias"]].compute_inline()
    i, j = s[Y].op.axis
    io, jo, ii, ji = s[Y].tile(i, j, 4, 5)
    s[D].compute_at(s[Y], jo)
    s[Y].parallel(io)
    return s


def softmax_inline_exp(case):
    s = default(case)
    s[case.extra["E"]].compute_inline()
    return s


def softmax_per_row(case):
    s = default(case)
    Y = case.output
    s[case.extra["E"]].compute_inline()
    i, j = s[Y].op.axis
    s[case.extra["Mx"]].compute_at(s[Y], i)
    s[case.extra["Sm"]].compute_at(s[Y], i)
    s[Y].parallel(i)
    return s


def softmax_split(case):
    s = default(case)
    Y = case.output
    Sm = case.extra["Sm"]
    i, j = s[Y].op.axis
    jo, ji = s[Y].split(j, factor=8)
    s[Y].vectorize(ji)
    ko, ki = s[Sm].split(s[Sm].op.reduce_axis[0], factor=3)
    s[Sm].unroll(ki)
    return s


def transpose_tiled(case):
    s = default(case)
    Y = case.output
    i, j = s[Y].op.axis
    s[Y].tile(i, j, 4, 8)
    return s


def transpose_staged(case):
    s = default(case)
    Y = case.output
    X = case.args[0]
    i, j = s[Y].op.axis
    io, jo, ii, ji = s[Y].tile(i, j, 8, 8)
    XL = s.cache_read(X, "local", [Y])
    s[XL].compute_at(s[Y], jo)
    s[Y].parallel(io)
    return s


def transpose_fused_vector(case):
    s = default(case)
    Y = case.output
    i, j = s[Y].op.axis
    f = s[Y].fuse(i, j)
    fo, fi = s[Y].split(f, factor=16)
    s[Y].vectorize(fi)
    return s


def chain_inlined(case):
    s = default(case)
    for n in ("E1", "E2", "E3", "E4"):
        s[case.extra[n]].compute_inline()
    return s


def chain_inlined_vector_parallel(case):
    s = chain_inlined(case)
    Y = case.output
    i, j = s[Y].op.axis
    jo, ji = s[Y].split(j, factor=8)
    s[Y].vectorize(ji)
    s[Y].parallel(i)
    return s


def chain_compute_at(case):
    s = default(case)
    Y = case.output
    i, j = s[Y].op.axis
    s[case.extra["E4"]].compute_at(s[Y], i)
    s[case.extra["E3"]].compute_inline()
    e4 = case.extra["E4"]
    s[case.extra["E2"]].compute_at(s[e4], s[e4].op.axis[1])
    return s


SCHEDULES = {
    "matmul": [matmul_tiled, matmul_packed, matmul_cache_write],
    "batch_matmul": [batch_fused_parallel, batch_reduce_outside, batch_nparts],
    "conv2d": [conv_inline_pad, conv_pad_at_row, conv_tiled_reduce_reordered],
    "depthwise_conv2d": [conv_inline_pad, conv_pad_at_row, conv_tiled_reduce_reordered],
    "max_pool2d": [pool_inline, pool_pad_at_channel, pool_split_fused],
    "avg_pool2d": [pool_inline, pool_pad_at_channel, pool_split_fused],
    "dense_bias_relu": [dense_one_nest, dense_row_vectorized, dense_tiled_parallel],
    "softmax": [softmax_inline_exp, softmax_per_row, softmax_split],
    "transpose": [transpose_tiled, transpose_staged, transpose_fused_vector],
    "elementwise_chain": [chain_inlined, chain_inlined_vector_parallel, chain_compute_at],
}

DTYPES = {
    "matmul": [dict(dtype="float32"), dict(dtype="int32"), dict(dtype="int8", acc="int32")],
    "batch_matmul": [dict(dtype="float32"), dict(dtype="int32")],
    "conv2d": [dict(dtype="float32"), dict(dtype="int8", acc="int32"),
               dict(dtype="float32", stride=1, pad=2, dil=2)],
    "depthwise_conv2d": [dict(dtype="float32"), dict(dtype="int32", stride=2)],
    "max_pool2d": [dict(dtype="float32"), dict(dtype="int8")],
    "avg_pool2d": [dict(dtype="float32")],
    "dense_bias_relu": [dict(dtype="float32"), dict(dtype="int32")],
    "softmax": [dict(dtype="float32")],
    "transpose": [dict(dtype="float32"), dict(dtype="int8")],
    "elementwise_chain": [dict(dtype="float32"), dict(dtype="int8"), dict(dtype="int32")],
}

PARAMS = [(op, kw, sched) for op, scheds in SCHEDULES.items() for kw in DTYPES[op]
          for sched in [default] + scheds]


@pytest.mark.parametrize("op,kw,sched", PARAMS,
                         ids=[f"{op}-{'-'.join(str(v) for v in kw.values())}-{sc.__name__}"
                              for op, kw, sc in PARAMS])
def test_operator_matches_numpy(op, kw, sched):
    case = op_defs.ALL_BUILDERS[op](**kw)
    check(case, sched(case))


def top_level_produces(ir):
    """The stages produced at the top level of the function body (indented one level)."""
    return [l.strip() for l in ir.splitlines() if l.startswith("  // produce")]


def test_dense_bias_relu_fuses_into_one_loop_nest():
    case = op_defs.dense_bias_relu()
    ir = check(case, dense_one_nest(case))
    assert top_level_produces(ir) == ["// produce Y"]
    assert "    // produce D" in ir        # the reduction lives inside Y's loops
    assert "Bias" not in ir                # the bias add is inlined


def test_elementwise_chain_fuses_into_one_loop():
    case = op_defs.elementwise_chain()
    ir = check(case, chain_inlined(case))
    assert top_level_produces(ir) == ["// produce Y"]
    assert "allocate" not in ir
    assert ir.count("for (") == 2


def test_compute_at_computes_only_the_region_the_loop_needs():
    """The padded input computed at a row block of the output holds only the rows it needs."""
    case = op_defs.conv2d(C=2, H=11, W=10, K=3, R=3, S=3, stride=2, pad=1)
    ir = check(case, conv_pad_at_row(case))
    # Two output rows at stride 2 with a 3-row window need 5 padded rows, not all 13; the five
    # output columns at stride 2 read padded columns 0..10, so 11 of the 12.
    assert "allocate P[float32 * 1 * 2 * 5 * 11] in local" in ir
