"""Host-side layout helpers for the NPU operator library, and the integer reference arithmetic.

Packed layouts (channels padded with zeros to a multiple of 16):
    activation  (C, H, W)        <-> [C/16, H, W, 16]          (NCHWc16, batch 1)
    dense input (M, K)           <-> [M, K/16, 16]
    dense weight (N, K)          ->  [N/16, K/16, 16 (out), 16 (in)]
    conv weight (K, C, R, S)     ->  [K/16, C/16, R, S, 16 (out), 16 (in)]
    depthwise weight (C, R, S)   ->  [C/16, R, S, 16]
"""
import numpy as np

LANES = 16


def _blocks(n):
    return (n + LANES - 1) // LANES


def _pad_axis(x, axis, to):
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, to - x.shape[axis])
    return np.pad(x, pad)


def pack_activation(x):
    """(C, H, W) int8 -> [C/16, H, W, 16]."""
    C, H, W = x.shape
    xp = _pad_axis(x, 0, _blocks(C) * LANES)
    return np.ascontiguousarray(xp.reshape(_blocks(C), LANES, H, W).transpose(0, 2, 3, 1))


def unpack_activation(xp, C):
    """[C/16, H, W, 16] -> (C, H, W)."""
    CB, H, W, _ = xp.shape
    return np.ascontiguousarray(xp.transpose(0, 3, 1, 2).reshape(CB * LANES, H, W)[:C])


def pack_dense_input(x):
    """(M, K) -> [M, K/16, 16]."""
    M, K = x.shape
    return np.ascontiguousarray(_pad_axis(x, 1, _blocks(K) * LANES).reshape(M, _blocks(K), LANES))


def unpack_dense_output(yp, N):
    """[M, N/16, 16] -> (M, N)."""
    M = yp.shape[0]
    return np.ascontiguousarray(yp.reshape(M, -1)[:, :N])


def pack_dense_weight(w):
    """(N, K) -> [N/16, K/16, 16, 16] with tile[o, i] = w[16 nb + o, 16 kb + i]."""
    N, K = w.shape
    wp = _pad_axis(_pad_axis(w, 0, _blocks(N) * LANES), 1, _blocks(K) * LANES)
    return np.ascontiguousarray(
        wp.reshape(_blocks(N), LANES, _blocks(K), LANES).transpose(0, 2, 1, 3))


def pack_conv_weight(w):
    """(K, C, R, S) -> [K/16, C/16, R, S, 16 (out), 16 (in)]."""
    K, C, R, S = w.shape
    wp = _pad_axis(_pad_axis(w, 0, _blocks(K) * LANES), 1, _blocks(C) * LANES)
    return np.ascontiguousarray(
        wp.reshape(_blocks(K), LANES, _blocks(C), LANES, R, S).transpose(0, 2, 4, 5, 1, 3))


def pack_depthwise_weight(w):
    """(C, R, S) -> [C/16, R, S, 16]."""
    C, R, S = w.shape
    wp = _pad_axis(w, 0, _blocks(C) * LANES)
    return np.ascontiguousarray(wp.reshape(_blocks(C), LANES, R, S).transpose(0, 2, 3, 1))


def requantize(acc, multiplier, shift, zero_point=0, relu=False):
    """The NPU's int32 -> int8 requantization (docs/npu_isa.md), exact in 64-bit integers."""
    v = acc.astype(np.int64) * int(multiplier)
    if shift > 0:
        v = (v + (1 << (shift - 1))) >> shift
    v = np.clip(v + int(zero_point), -128, 127)
    if relu:
        v = np.maximum(v, 0)
    return v.astype(np.int8)


def pack_depthwise_weight_diagonal(w):
    """(C, R, S) -> [C/16, R, S, 16 (out), 16 (in)] diagonal tiles for the depthwise conv2d
    template: tile[o, i] = w[16 cb + o, r, s] if o == i else 0, so that the GEMM intrinsic computes
    a depthwise convolution (one input block per output block)."""
    C, R, S = w.shape
    d = pack_depthwise_weight(w)  # [C/16, R, S, 16]
    out = np.zeros(d.shape + (LANES,), dtype=w.dtype)
    lanes = np.arange(LANES)
    out[..., lanes, lanes] = d
    return out
