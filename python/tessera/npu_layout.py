"""Host-side layout helpers for the NPU operator library, and the integer reference arithmetic.

The packed layouts follow the target's MAC array: B = target.block (its side; every
function takes `target`, default None = the built-in npu-v1). Channels are padded with zeros to a
multiple of B:
    activation  (C, H, W)        <-> [C/B, H, W, B]          (NCHWc{B}, batch 1)
    dense input (M, K)           <-> [M, K/B, B]
    dense weight (N, K)          ->  [N/B, K/B, B (out), B (in)]
    conv weight  (K, C, R, S)    ->  [K/B, C/B, R, S, B (out), B (in)]
    depthwise weight (C, R, S)   ->  [C/B, R, S, B]
"""
import numpy as np

from . import npu as _npu


def block(target=None):
    """The channel block B of the packed layouts on `target` (None: npu-v1)."""
    return (_npu.default_target() if target is None else target).block


def _blocks(n, b):
    return (n + b - 1) // b


def _pad_axis(x, axis, to):
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, to - x.shape[axis])
    return np.pad(x, pad)


def pack_activation(x, target=None):
    """(C, H, W) int8 -> [C/B, H, W, B]."""
    b = block(target)
    C, H, W = x.shape
    xp = _pad_axis(x, 0, _blocks(C, b) * b)
    return np.ascontiguousarray(xp.reshape(_blocks(C, b), b, H, W).transpose(0, 2, 3, 1))


def unpack_activation(xp, C):
    """[C/B, H, W, B] -> (C, H, W) (B is the array's last dimension)."""
    CB, H, W, b = xp.shape
    return np.ascontiguousarray(xp.transpose(0, 3, 1, 2).reshape(CB * b, H, W)[:C])


def activation_shape(C, H, W, target=None):
    """The packed shape of a (C, H, W) activation: (C/B, H, W, B)."""
    b = block(target)
    return (_blocks(C, b), H, W, b)


def pack_dense_input(x, target=None):
    """(M, K) -> [M, K/B, B]."""
    b = block(target)
    M, K = x.shape
    return np.ascontiguousarray(_pad_axis(x, 1, _blocks(K, b) * b).reshape(M, _blocks(K, b), b))


def unpack_dense_output(yp, N):
    """[M, N/B, B] -> (M, N)."""
    M = yp.shape[0]
    return np.ascontiguousarray(yp.reshape(M, -1)[:, :N])


def dense_output_shape(M, N, target=None):
    """The packed shape of an (M, N) dense output: (M, N/B, B)."""
    b = block(target)
    return (M, _blocks(N, b), b)


def pack_dense_weight(w, target=None):
    """(N, K) -> [N/B, K/B, B, B] with tile[o, i] = w[B nb + o, B kb + i]."""
    b = block(target)
    N, K = w.shape
    wp = _pad_axis(_pad_axis(w, 0, _blocks(N, b) * b), 1, _blocks(K, b) * b)
    return np.ascontiguousarray(
        wp.reshape(_blocks(N, b), b, _blocks(K, b), b).transpose(0, 2, 1, 3))


def pack_conv_weight(w, target=None):
    """(K, C, R, S) -> [K/B, C/B, R, S, B (out), B (in)]."""
    b = block(target)
    K, C, R, S = w.shape
    wp = _pad_axis(_pad_axis(w, 0, _blocks(K, b) * b), 1, _blocks(C, b) * b)
    return np.ascontiguousarray(
        wp.reshape(_blocks(K, b), b, _blocks(C, b), b, R, S).transpose(0, 2, 4, 5, 1, 3))


def pack_depthwise_weight(w, target=None):
    """(C, R, S) -> [C/B, R, S, B]."""
    b = block(target)
    C, R, S = w.shape
    wp = _pad_axis(w, 0, _blocks(C, b) * b)
    return np.ascontiguousarray(wp.reshape(_blocks(C, b), b, R, S).transpose(0, 2, 3, 1))


def requantize(acc, multiplier, shift, zero_point=0, relu=False):
    """The NPU's int32 -> int8 requantization (docs/npu_isa.md), exact in 64-bit integers."""
    v = acc.astype(np.int64) * int(multiplier)
    if shift > 0:
        v = (v + (1 << (shift - 1))) >> shift
    v = np.clip(v + int(zero_point), -128, 127)
    if relu:
        v = np.maximum(v, 0)
    return v.astype(np.int8)


def pack_depthwise_weight_diagonal(w, target=None):
    """(C, R, S) -> [C/B, R, S, B (out), B (in)] diagonal tiles for the depthwise conv2d
    template's GEMM mapping: tile[o, i] = w[B cb + o, r, s] if o == i else 0, so that the GEMM
    intrinsic computes a depthwise convolution (one input block per output block)."""
    b = block(target)
    d = pack_depthwise_weight(w, target)  # [C/B, R, S, B]
    out = np.zeros(d.shape + (b,), dtype=w.dtype)
    lanes = np.arange(b)
    out[..., lanes, lanes] = d
    return out


def im2col(x, R, S, stride, pad):
    """(C, H, W) -> (OH * OW, C * R * S): each output pixel's zero-padded window as one row, the
    window's elements in (c, r, s) order (the order of a (K, C, R, S) weight's last three axes)."""
    C, H, W = x.shape
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    cols = np.empty((C, R, S, OH, OW), x.dtype)
    for r in range(R):
        for s in range(S):
            cols[:, r, s] = xp[:, r:r + stride * (OH - 1) + 1:stride, s:s + stride * (OW - 1) + 1:stride]
    return np.ascontiguousarray(cols.reshape(C * R * S, OH * OW).T)


def pack_im2col_input(x, R, S, stride, pad, target=None):
    """(C, H, W) -> the conv2d_im2col template's input [OH*OW, C*R*S/B, B]."""
    return pack_dense_input(im2col(x, R, S, stride, pad), target)


def pack_im2col_weight(w, target=None):
    """(K, C, R, S) -> the conv2d_im2col template's weight [K/B, C*R*S/B, B, B]."""
    return pack_dense_weight(w.reshape(w.shape[0], -1), target)


def unpack_im2col_output(yp, K, OH, OW):
    """The conv2d_im2col template's output [OH*OW, K/B, B] -> (K, OH, OW)."""
    return np.ascontiguousarray(unpack_dense_output(yp, K).T.reshape(K, OH, OW))
