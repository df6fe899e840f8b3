"""The NPU operator library (autotune/templates) end to end: each operator's default schedule is
built for the NPU, run on the simulator with packed int8 arrays, and compared bit for bit against
a numpy reference written here in plain int64 arithmetic (the requantize formula is the one of
docs/npu_isa.md, re-written below, not the library's). Every operator runs on the three committed
targets (16 x 16, 8 x 8 and 32 x 32 MAC arrays, runtime/npu/targets/), with layouts packed for
each; shapes include sizes that are not multiples of the block; non-default parameters must give
the same bits."""
import os

import numpy as np
import pytest

import tessera
from tessera import npu
from tessera import npu_layout as L
from tessera.autotune import NpuTask

ops = tessera.npu_ops


# ---- independent references ------------------------------------------------------------------

def ref_requantize(acc, multiplier, shift, zero_point=0, relu=False):
    """docs/npu_isa.md: clamp(((a*multiplier + 2^(shift-1)) >> shift) + zero_point, -128, 127),
    no rounding term when shift = 0; then max(., 0) for a fused relu."""
    v = np.asarray(acc, dtype=np.int64) * multiplier
    if shift > 0:
        v = (v + (1 << (shift - 1))) >> shift
    v = np.clip(v + zero_point, -128, 127)
    if relu:
        v = np.maximum(v, 0)
    return v.astype(np.int8)


def ref_dense(x, w):
    return x.astype(np.int64) @ w.astype(np.int64).T


def ref_conv2d(x, w, stride, pad):
    """x (C, H, W), w (K, C, R, S) -> int64 (K, OH, OW), zero padding."""
    C, H, W = x.shape
    K, _, R, S = w.shape
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    xp = np.pad(x.astype(np.int64), ((0, 0), (pad, pad), (pad, pad)))
    acc = np.zeros((K, OH, OW), np.int64)
    for r in range(R):
        for s in range(S):
            win = xp[:, r:r + stride * (OH - 1) + 1:stride, s:s + stride * (OW - 1) + 1:stride]
            acc += np.einsum("chw,kc->khw", win, w[:, :, r, s].astype(np.int64))
    return acc


def ref_depthwise(x, w, stride, pad):
    """x (C, H, W), w (C, R, S) -> int64 (C, OH, OW)."""
    C, H, W = x.shape
    _, R, S = w.shape
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    xp = np.pad(x.astype(np.int64), ((0, 0), (pad, pad), (pad, pad)))
    acc = np.zeros((C, OH, OW), np.int64)
    for c in range(C):
        for oh in range(OH):
            for ow in range(OW):
                win = xp[c, oh * stride:oh * stride + R, ow * stride:ow * stride + S]
                acc[c, oh, ow] = np.sum(win * w[c].astype(np.int64))
    return acc


def ref_max_pool(x, R, S, stride, pad):
    """Max over the window positions inside x (padding never wins)."""
    C, H, W = x.shape
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    y = np.zeros((C, OH, OW), np.int64)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * stride - pad, ow * stride - pad
            win = x[:, max(h0, 0):min(h0 + R, H), max(w0, 0):min(w0 + S, W)]
            y[:, oh, ow] = win.astype(np.int64).max(axis=(1, 2))
    return y


def rand_int8(rng, shape):
    return rng.integers(-128, 128, shape, dtype=np.int8)


def shift_for(n_products):
    """A shift that keeps requantized sums of n int8 products mostly inside int8 (with
    multiplier ~2^14), so the comparison sees real values rather than saturated ones."""
    spread = np.sqrt(n_products) * 74.0 * 74.0  # std of a sum of n products of uniform int8
    return 14 + int(np.ceil(np.log2(spread / 64.0)))


MULT = (1 << 14) + 123  # not a power of two: exercises the rounding of the product


TARGET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "npu",
                          "targets")
# The three committed targets: npu-v1 (16 x 16), an 8 x 8 array with 128 KiB of SRAM and a 32 x 32
# array with 1 MiB of SRAM and a 32 B/cycle DDR port. Every operator test runs on each.
TARGETS = {name: npu.load_target(os.path.join(TARGET_DIR, name + ".json"))
           for name in ("npu-v1", "npu-8x8", "npu-32x32")}
on_every_target = pytest.mark.parametrize("target", list(TARGETS.values()), ids=list(TARGETS))


def build(op, target):
    return tessera.build(op.schedule, op.args, target=target)


# ---- runners: build, run on the simulator, unpack ------------------------------------------

def run_dense(x, w, N, q, target, **params):
    M, K = x.shape
    op = ops.dense(M=M, K=K, N=N, **q, **params, target=target)
    y = np.zeros(L.dense_output_shape(M, N, target), np.int8)
    build(op, target)(L.pack_dense_input(x, target), L.pack_dense_weight(w, target), y)
    return L.unpack_dense_output(y, N)


def run_conv2d(x, w, stride, pad, q, target, **params):
    C, H, W = x.shape
    K, _, R, S = w.shape
    op = ops.conv2d(C=C, H=H, W=W, K=K, R=R, S=S, stride=stride, pad=pad, **q, **params,
                    target=target)
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    y = np.zeros(L.activation_shape(K, OH, OW, target), np.int8)
    build(op, target)(L.pack_activation(x, target), L.pack_conv_weight(w, target), y)
    return L.unpack_activation(y, K)


def run_depthwise(x, w, stride, pad, q, target, mapping="vector_mac", **params):
    C, H, W = x.shape
    _, R, S = w.shape
    op = ops.depthwise_conv2d(C=C, H=H, W=W, R=R, S=S, stride=stride, pad=pad, **q, **params,
                              mapping=mapping, target=target)
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    y = np.zeros(L.activation_shape(C, OH, OW, target), np.int8)
    pack = L.pack_depthwise_weight if mapping == "vector_mac" else \
        L.pack_depthwise_weight_diagonal
    build(op, target)(L.pack_activation(x, target), pack(w, target), y)
    return L.unpack_activation(y, C)


def run_max_pool(x, R, S, stride, pad, target, **params):
    C, H, W = x.shape
    op = ops.max_pool2d(C=C, H=H, W=W, R=R, S=S, stride=stride, pad=pad, **params, target=target)
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    y = np.zeros(L.activation_shape(C, OH, OW, target), np.int8)
    build(op, target)(L.pack_activation(x, target), y)
    return L.unpack_activation(y, C)


def run_add(a, b, relu, target, **params):
    C, H, W = a.shape
    op = ops.add(C=C, H=H, W=W, relu=relu, **params, target=target)
    y = np.zeros(L.activation_shape(C, H, W, target), np.int8)
    build(op, target)(L.pack_activation(a, target), L.pack_activation(b, target), y)
    return L.unpack_activation(y, C)


def assert_bits_equal(out, ref):
    assert out.dtype == np.int8 and out.shape == ref.shape
    bad = np.argwhere(out != ref)
    assert bad.size == 0, f"{len(bad)} of {ref.size} differ; first at {tuple(bad[0])}: " \
                          f"got {out[tuple(bad[0])]}, want {ref[tuple(bad[0])]}"


# ---- the reference itself ------------------------------------------------------------------

def test_reference_requantize_rounds_half_up_and_saturates():
    acc = np.array([3, 5, -3, -5, 1 << 20, -(1 << 20), 0])
    # (x * 1 + 2) >> 2: 3 -> 1, 5 -> 1 (5+2=7>>2=1), -3 -> -1 (-1>>2... = -1), -5 -> -1
    np.testing.assert_array_equal(ref_requantize(acc, 1, 2), [1, 1, -1, -1, 127, -128, 0])
    np.testing.assert_array_equal(ref_requantize(acc, 1, 2, zero_point=-1, relu=True),
                                  [0, 0, 0, 0, 127, 0, 0])


def test_diagonal_depthwise_weight_tiles_hold_each_channel_on_the_diagonal():
    w = np.arange(20 * 3 * 2, dtype=np.int64).reshape(20, 3, 2).astype(np.int8)
    t = L.pack_depthwise_weight_diagonal(w)
    assert t.shape == (2, 3, 2, 16, 16)
    for c in range(32):
        for o in range(16):
            for i in (0, 5, 15):
                want = w[16 * (c // 16) + o, 1, 1] if (o == i and 16 * (c // 16) + o < 20) else 0
                assert t[c // 16, 1, 1, o, i] == want


# ---- dense ---------------------------------------------------------------------------------

@pytest.mark.parametrize("M,K,N", [(1, 16, 16), (17, 33, 7), (100, 40, 50), (5, 70, 20), (20, 100, 70)])
@on_every_target
def test_dense_matches_numpy(M, K, N, target):
    rng = np.random.default_rng(M * 1000 + K * 10 + N)
    x, w = rand_int8(rng, (M, K)), rand_int8(rng, (N, K))
    q = dict(multiplier=MULT, shift=shift_for(K), zero_point=3)
    assert_bits_equal(run_dense(x, w, N, q, target), ref_requantize(ref_dense(x, w), MULT, q["shift"], 3))


@pytest.mark.parametrize("M,K,N,zp", [(9, 20, 18, 0), (33, 48, 40, -20), (4, 7, 3, 5)])
@on_every_target
def test_dense_with_relu_fused_into_requantize_matches_numpy(M, K, N, zp, target):
    rng = np.random.default_rng(7 + M + K + N)
    x, w = rand_int8(rng, (M, K)), rand_int8(rng, (N, K))
    q = dict(multiplier=MULT, shift=shift_for(K), zero_point=zp, relu=True)
    ref = ref_requantize(ref_dense(x, w), MULT, q["shift"], zp, relu=True)
    out = run_dense(x, w, N, q, target)
    assert (out == 0).any() and (out > 0).any()  # relu did something, and not everything
    assert_bits_equal(out, ref)


NO_DB = dict(db_input=False, db_weights=False, db_output=False)


@pytest.mark.parametrize("params", [dict(tile_m=16, tile_nb=1, **NO_DB),
                                    dict(tile_m=7, tile_nb=2, tile_kb=2, order=["nb", "m"]),
                                    dict(tile_m=30, tile_nb=2, tile_kb=1, **NO_DB)])
@on_every_target
def test_dense_gives_the_same_bits_for_any_tiling(params, target):
    rng = np.random.default_rng(11)
    M, K, N = 30, 40, 50
    x, w = rand_int8(rng, (M, K)), rand_int8(rng, (N, K))
    q = dict(multiplier=MULT, shift=shift_for(K))
    ref = ref_requantize(ref_dense(x, w), MULT, q["shift"])
    assert_bits_equal(run_dense(x, w, N, q, target, **params), ref)


# ---- conv2d --------------------------------------------------------------------------------

CONV_CASES = [
    # C, H, W, K, R, stride, pad
    (20, 6, 5, 24, 1, 1, 0),
    (16, 7, 9, 16, 1, 2, 0),
    (5, 4, 4, 33, 1, 1, 0),
    (20, 9, 8, 20, 3, 1, 1),
    (8, 11, 10, 17, 3, 2, 1),
    (3, 5, 6, 7, 3, 1, 0),
    (3, 15, 13, 16, 7, 2, 3),
    (4, 9, 9, 5, 7, 1, 3),
    (17, 8, 10, 18, 7, 1, 0),
    (40, 6, 7, 70, 3, 1, 1),  # several blocks of input and output channels on every target
]


@pytest.mark.parametrize("C,H,W,K,R,stride,pad", CONV_CASES)
@on_every_target
def test_conv2d_matches_numpy(C, H, W, K, R, stride, pad, target):
    rng = np.random.default_rng(C * 7 + H * 5 + K * 3 + R)
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (K, C, R, R))
    q = dict(multiplier=MULT, shift=shift_for(C * R * R), zero_point=-2)
    ref = ref_requantize(ref_conv2d(x, w, stride, pad), MULT, q["shift"], -2)
    assert_bits_equal(run_conv2d(x, w, stride, pad, q, target), ref)


@pytest.mark.parametrize("C,H,W,K,R,stride,pad", [(20, 9, 8, 20, 3, 1, 1), (6, 7, 7, 18, 1, 2, 0),
                                                  (3, 9, 9, 9, 7, 2, 3)])
@on_every_target
def test_conv2d_with_relu_fused_into_requantize_matches_numpy(C, H, W, K, R, stride, pad, target):
    rng = np.random.default_rng(5 + C + H + K)
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (K, C, R, R))
    q = dict(multiplier=MULT, shift=shift_for(C * R * R), zero_point=4, relu=True)
    ref = ref_requantize(ref_conv2d(x, w, stride, pad), MULT, q["shift"], 4, relu=True)
    assert_bits_equal(run_conv2d(x, w, stride, pad, q, target), ref)


@pytest.mark.parametrize("params", [dict(tile_oh=1, tile_kb=1, **NO_DB),
                                    dict(tile_oh=3, tile_kb=2, tile_ow=4, tile_cb=1,
                                         order=["oh", "ow", "kb"]),
                                    dict(tile_oh=9, tile_kb=1, fold="channels", db_output=False)])
@on_every_target
def test_conv2d_gives_the_same_bits_for_any_tiling(params, target):
    rng = np.random.default_rng(13)
    C, H, W, K = 20, 9, 7, 40
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (K, C, 3, 3))
    q = dict(multiplier=MULT, shift=shift_for(C * 9))
    ref = ref_requantize(ref_conv2d(x, w, 1, 1), MULT, q["shift"])
    assert_bits_equal(run_conv2d(x, w, 1, 1, q, target, **params), ref)


# Fold "blocks": a GEMM over output channel blocks x columns per output row, the reduction outside
# (reset at its first step). Tails in every tile, input-channel tiles, strided and padded windows,
# strided loads (rows only, rows and columns), weights per row of taps, single buffers.
@pytest.mark.parametrize("C,H,W,K,R,stride,pad,params", [
    (20, 9, 7, 40, 3, 1, 1, dict(tile_kb=2, tile_oh=4, tile_ow=5, tile_cb=1)),
    (40, 9, 8, 20, 3, 2, 1, dict(tile_kb=1, tile_oh=2, tile_ow=3, tile_cb=2,
                                 weights_at="tap_row", order=["oh", "ow", "kb"])),
    (40, 11, 10, 36, 1, 2, 0, dict(tile_kb=3, tile_oh=3, tile_ow=5, tile_cb=2,
                                   input_load="strided_rows", **NO_DB)),
    (24, 10, 12, 33, 1, 2, 0, dict(tile_kb=2, tile_oh=5, tile_ow=6, tile_cb=1,
                                   input_load="strided", order=["ow", "kb", "oh"])),
    (17, 7, 9, 18, 1, 1, 0, dict(tile_kb=2, tile_oh=7, tile_ow=9, tile_cb=2)),
    (5, 11, 9, 17, 5, 2, 2, dict(tile_kb=2, tile_oh=3, tile_ow=2, tile_cb=1, db_output=False)),
    # A tail tile of whole-width rows, more output blocks than rows (requantized rows outside).
    (40, 14, 14, 70, 1, 2, 0, dict(tile_kb=5, tile_oh=3, tile_ow=7, tile_cb=1,
                                   input_load="strided_rows")),
])
@on_every_target
def test_conv2d_fold_blocks_matches_numpy(C, H, W, K, R, stride, pad, params, target):
    rng = np.random.default_rng(C * 11 + H + K * 5 + R + stride)
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (K, C, R, R))
    q = dict(multiplier=MULT, shift=shift_for(C * R * R), zero_point=3)
    ref = ref_requantize(ref_conv2d(x, w, stride, pad), MULT, q["shift"], 3)
    blocks = {"tile_kb": -(-K // target.block), "tile_cb": -(-C // target.block)}
    params = {k: min(v, blocks[k]) if k in blocks else v for k, v in params.items()}
    assert_bits_equal(run_conv2d(x, w, stride, pad, q, target, fold="blocks", **params), ref)


# Fold "pixels" on a strided 1x1 convolution that loads only the rows it reads ("strided_rows"):
# the input rows are loaded stride x OW columns wide (align_extent), so output pixel p reads input
# column 2p of its row; an odd input width reads one zero column past the edge. Tails in the row
# and block tiles, input-channel tiles, single and double buffers (the accumulator's too where
# the target offers it).
@pytest.mark.parametrize("C,H,W,K,stride,params", [
    (40, 14, 14, 70, 2, dict(tile_kb=3, tile_oh=3, tile_cb=1)),
    (24, 13, 13, 33, 2, dict(tile_kb=2, tile_oh=2, tile_cb=2, **NO_DB)),
    (17, 11, 15, 18, 3, dict(tile_kb=1, tile_oh=4, tile_cb=1, order=["oh", "ow", "kb"])),
    (33, 9, 10, 40, 2, dict(tile_kb=3, tile_oh=5, tile_cb=3, db_output=False)),
])
@on_every_target
def test_conv2d_fold_pixels_on_strided_rows_matches_numpy(C, H, W, K, stride, params, target):
    rng = np.random.default_rng(C * 7 + H + W * 3 + K + stride)
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (K, C, 1, 1))
    q = dict(multiplier=MULT, shift=shift_for(C), zero_point=-2)
    ref = ref_requantize(ref_conv2d(x, w, stride, 0), MULT, q["shift"], -2)
    blocks = {"tile_kb": -(-K // target.block), "tile_cb": -(-C // target.block)}
    params = {k: min(v, blocks[k]) if k in blocks else v for k, v in params.items()}
    if target.compute_units == 2:
        params.setdefault("db_acc", params.get("db_output", True))
    OW = (W - 1) // stride + 1
    op = ops.conv2d(C=C, H=H, W=W, K=K, R=1, S=1, stride=stride, pad=0, **q, fold="pixels",
                    input_load="strided_rows", tile_ow=OW, **params, target=target)
    f = build(op, target)
    y = np.zeros(L.activation_shape(K, (H - 1) // stride + 1, OW, target), np.int8)
    f(L.pack_activation(x, target), L.pack_conv_weight(w, target), y)
    assert_bits_equal(L.unpack_activation(y, K), ref)
    # One GEMM per tile and input channel block: the output blocks x the tile's pixels.
    OH, KB, CB = (H - 1) // stride + 1, -(-K // target.block), -(-C // target.block)
    tiles = -(-OH // params["tile_oh"]) * -(-KB // params["tile_kb"])
    assert f.timing()["insn_count"]["gemm"] == tiles * CB


def test_db_acc_is_offered_where_the_mac_array_and_vector_unit_overlap():
    args = dict(C=64, H=28, W=28, K=128, R=1, S=1, stride=2, pad=0, multiplier=MULT, shift=14)
    for name, target in TARGETS.items():
        knobs = [k["name"] for k in NpuTask("conv2d", args, target).knobs]
        assert ("db_acc" in knobs) == (target.compute_units == 2), name
    assert TARGETS["npu-8x8"].compute_units == 1 and TARGETS["npu-v1"].compute_units == 2
    with pytest.raises(tessera.autotune.ConfigError, match="db_acc"):
        ops.conv2d(**args, db_acc=True, target=TARGETS["npu-8x8"])


def test_a_double_buffered_accumulator_overlaps_requantize_with_the_next_tiles_gemms():
    # Same tiles, the accumulator single or double: on npu-v1 (two compute units) the requantize
    # of a tile runs beside the next tile's GEMMs only with two accumulator buffers.
    t = TARGETS["npu-v1"]
    base = dict(C=64, H=28, W=28, K=128, R=1, S=1, stride=2, pad=0, multiplier=MULT, shift=14,
                tile_kb=8, tile_oh=2, tile_ow=14, tile_cb=4, fold="blocks", target=t)
    one = build(ops.conv2d(**base, db_acc=False), t).timing()
    two = build(ops.conv2d(**base, db_acc=True), t).timing()
    # 1568 requantized accumulator rows, one vector cycle each on npu-v1, in 7 tiles: all but the
    # last tile's can hide behind GEMMs, less the stalls of a tile whose GEMMs are shorter.
    rows = 8 * 14 * 14
    assert one["cycles"] - two["cycles"] >= rows // 3, (one["cycles"], two["cycles"])


@on_every_target
def test_conv2d_tiles_of_whole_rows_store_with_one_dma_each_even_with_a_tail(target):
    # 7 output rows in tiles of 3 (3, 3, 1) of every output block: each tile's rows continue
    # its columns in DDR, so the tail guard only ends the transfer early.
    op = ops.conv2d(C=16, H=14, W=14, K=4 * target.block, R=1, S=1, stride=2, pad=0,
                    multiplier=MULT, shift=8, tile_kb=4, tile_oh=3, tile_ow=7, fold="blocks",
                    input_load="strided_rows", target=target)
    assert build(op, target).timing()["insn_count"]["store"] == 3


# ---- depthwise conv2d ----------------------------------------------------------------------

@pytest.mark.parametrize("mapping", ["vector_mac", "diagonal_gemm"])
@pytest.mark.parametrize("C,H,W,R,stride,pad", [(20, 9, 9, 3, 1, 1), (16, 10, 7, 3, 2, 1),
                                                (40, 6, 5, 3, 1, 0), (7, 8, 8, 5, 1, 2)])
@on_every_target
def test_depthwise_conv2d_matches_numpy(C, H, W, R, stride, pad, mapping, target):
    rng = np.random.default_rng(C + H * W + R + stride)
    x, w = rand_int8(rng, (C, H, W)), rand_int8(rng, (C, R, R))
    q = dict(multiplier=MULT, shift=shift_for(R * R), zero_point=1)
    ref = ref_requantize(ref_depthwise(x, w, stride, pad), MULT, q["shift"], 1)
    assert_bits_equal(run_depthwise(x, w, stride, pad, q, target, mapping), ref)


@on_every_target
def test_depthwise_conv2d_with_relu_fused_into_requantize_matches_numpy(target):
    rng = np.random.default_rng(17)
    x, w = rand_int8(rng, (24, 7, 6)), rand_int8(rng, (24, 3, 3))
    q = dict(multiplier=MULT, shift=shift_for(9), zero_point=-3, relu=True)
    ref = ref_requantize(ref_depthwise(x, w, 2, 1), MULT, q["shift"], -3, relu=True)
    assert_bits_equal(run_depthwise(x, w, 2, 1, q, target), ref)


@pytest.mark.parametrize("params", [dict(tile_oh=1, tile_cb=1, **NO_DB),
                                    dict(tile_oh=3, tile_cb=2, tile_ow=5, order=["ow", "cb", "oh"]),
                                    dict(tile_oh=8, tile_cb=2, tile_ow=7, **NO_DB),
                                    dict(tile_oh=3, tile_cb=2, tile_ow=4, mapping="diagonal_gemm")])
@on_every_target
def test_depthwise_conv2d_gives_the_same_bits_for_any_tiling(params, target):
    rng = np.random.default_rng(19)
    x, w = rand_int8(rng, (40, 8, 7)), rand_int8(rng, (40, 3, 3))
    q = dict(multiplier=MULT, shift=shift_for(9))
    ref = ref_requantize(ref_depthwise(x, w, 1, 1), MULT, q["shift"])
    assert_bits_equal(run_depthwise(x, w, 1, 1, q, target, **params), ref)


@on_every_target
def test_depthwise_vector_mac_beats_the_diagonal_gemm_and_moves_fewer_weight_bytes(target):
    # Same work per step (a row of B channels per cycle), half the fixed cost per instruction and
    # weights B times smaller (benchmarks/npu_depthwise reports the figures).
    stats = {}
    for mapping in ("vector_mac", "diagonal_gemm"):
        op = ops.depthwise_conv2d(C=64, H=14, W=14, R=3, S=3, stride=1, pad=1, multiplier=1,
                                  shift=0, mapping=mapping, target=target)
        m = build(op, target)
        stats[mapping] = (m.timing()["cycles"], m.kernel.buffers[1].nbytes)
    assert stats["vector_mac"][0] < stats["diagonal_gemm"][0], stats
    assert stats["diagonal_gemm"][1] == target.block * stats["vector_mac"][1]


def test_unknown_depthwise_mapping_is_rejected_listing_the_mappings():
    with pytest.raises(tessera.ArgumentError, match=r"depthwise_conv2d: argument 'mapping' = \"simd\" is not one of 'vector_mac', 'diagonal_gemm'"):
        ops.depthwise_conv2d(C=16, H=4, W=4, R=3, S=3, stride=1, pad=1, multiplier=1, shift=0,
                             mapping="simd")


# ---- max pooling ---------------------------------------------------------------------------

@pytest.mark.parametrize("C,H,W,R,stride", [(20, 8, 8, 2, 2), (16, 9, 11, 3, 2), (5, 7, 6, 3, 1),
                                            (33, 5, 5, 5, 1)])
@on_every_target
def test_max_pool2d_without_padding_matches_numpy(C, H, W, R, stride, target):
    rng = np.random.default_rng(C + H + W + R)
    x = rand_int8(rng, (C, H, W))
    assert_bits_equal(run_max_pool(x, R, R, stride, 0, target), ref_max_pool(x, R, R, stride, 0).astype(np.int8))


@on_every_target
def test_max_pool2d_of_all_negative_inputs_is_negative(target):
    # -128 is the identity: an all-negative window must not come out as 0.
    x = np.full((20, 6, 6), -100, np.int8)
    x[3, 2, 2] = -7
    out = run_max_pool(x, 3, 3, 1, 0, target)
    assert out.max() == -7 and out.min() == -100
    assert_bits_equal(out, ref_max_pool(x, 3, 3, 1, 0).astype(np.int8))


@pytest.mark.parametrize("C,H,W,R,stride,pad", [(20, 9, 9, 3, 2, 1), (16, 8, 7, 3, 1, 1),
                                                (5, 10, 10, 2, 2, 1)])
@on_every_target
def test_max_pool2d_with_padding_ignores_the_padding(C, H, W, R, stride, pad, target):
    rng = np.random.default_rng(C + H + W + R + pad)
    x = rand_int8(rng, (C, H, W))
    x[:, 0, :] = -120  # border windows whose inside is all negative: zero padding would win
    x[:, :, 0] = -120
    assert_bits_equal(run_max_pool(x, R, R, stride, pad, target),
                      ref_max_pool(x, R, R, stride, pad).astype(np.int8))


@pytest.mark.parametrize("params", [dict(tile_oh=1, tile_cb=1, db_input=False, db_output=False),
                                    dict(tile_oh=2, tile_cb=2, tile_ow=3, order=["oh", "cb", "ow"]),
                                    dict(tile_oh=5, tile_cb=1, db_input=False)])
@on_every_target
def test_max_pool2d_gives_the_same_bits_for_any_tiling(params, target):
    rng = np.random.default_rng(23)
    x = rand_int8(rng, (40, 11, 9))
    ref = ref_max_pool(x, 3, 3, 2, 0).astype(np.int8)
    assert_bits_equal(run_max_pool(x, 3, 3, 2, 0, target, **params), ref)


def test_max_pool2d_with_padding_as_large_as_the_window_is_rejected():
    with pytest.raises(tessera.UserError, match="pad = 2 must be smaller than the window 2x2"):
        ops.max_pool2d(C=16, H=8, W=8, R=2, S=2, stride=2, pad=2)


# ---- elementwise add -----------------------------------------------------------------------

@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("C,H,W", [(16, 4, 4), (20, 5, 7), (40, 9, 3)])
@on_every_target
def test_add_saturates_like_numpy(C, H, W, relu, target):
    rng = np.random.default_rng(C * H * W + relu)
    a, b = rand_int8(rng, (C, H, W)), rand_int8(rng, (C, H, W))
    ref = np.clip(a.astype(np.int64) + b.astype(np.int64), -128, 127)
    if relu:
        ref = np.maximum(ref, 0)
    out = run_add(a, b, relu, target)
    assert (out == 127).any() and (out == (0 if relu else -128)).any()  # saturation was exercised
    assert_bits_equal(out, ref.astype(np.int8))


@pytest.mark.parametrize("params", [dict(tile_h=1, tile_cb=1, db_input=False, db_output=False),
                                    dict(tile_h=3, tile_cb=2, tile_w=2, order=["w", "h", "cb"]),
                                    dict(tile_h=9, tile_cb=2, db_output=False)])
@on_every_target
def test_add_gives_the_same_bits_for_any_tiling(params, target):
    rng = np.random.default_rng(29)
    a, b = rand_int8(rng, (40, 9, 5)), rand_int8(rng, (40, 9, 5))
    ref = np.maximum(np.clip(a.astype(np.int64) + b.astype(np.int64), -128, 127), 0)
    assert_bits_equal(run_add(a, b, True, target, **params), ref.astype(np.int8))
