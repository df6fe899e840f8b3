"""The operators the core's tests and the schedule fuzzer use, each with a numpy reference.

Every builder returns an OpCase: the tensors to pass to lower/build (inputs first, output last),
a function making random inputs, and the numpy reference computed from them. The references are
written independently of tessera (plain numpy), so they can judge its results.
"""
from dataclasses import dataclass, field
from typing import Callable, List

import numpy as np

from tessera import te


@dataclass
class OpCase:
    name: str
    args: list                      # tensors: inputs..., output
    make_inputs: Callable           # rng -> list of numpy inputs
    reference: Callable             # inputs -> numpy output
    stages: List[str] = field(default_factory=list)  # intermediate stage names (for schedules)
    extra: dict = field(default_factory=dict)        # tensors of interest to schedules

    @property
    def output(self):
        return self.args[-1]


def _rand(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -50), min(info.max, 50)
    return rng.integers(lo, hi + 1, size=shape).astype(dtype)


def matmul(M=37, N=29, K=23, dtype="float32", acc=None):
    acc = acc or dtype
    A = te.placeholder((M, K), dtype=dtype, name="A")
    B = te.placeholder((K, N), dtype=dtype, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k].astype(acc) * B[k, j].astype(acc), axis=k),
                   name="C")
    return OpCase("matmul", [A, B, C],
                  lambda rng: [_rand(rng, (M, K), dtype), _rand(rng, (K, N), dtype)],
                  lambda a, b: (a.astype(acc) @ b.astype(acc)).astype(acc))


def batch_matmul(Bn=3, M=17, N=19, K=13, dtype="float32"):
    A = te.placeholder((Bn, M, K), dtype=dtype, name="A")
    B = te.placeholder((Bn, K, N), dtype=dtype, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((Bn, M, N), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")
    return OpCase("batch_matmul", [A, B, C],
                  lambda rng: [_rand(rng, (Bn, M, K), dtype), _rand(rng, (Bn, K, N), dtype)],
                  lambda a, b: np.matmul(a, b).astype(dtype))


def _conv_out(size, k, stride, pad, dil):
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def _np_pad(x, pad, value=0):
    return np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=value)


def conv2d(N=1, C=3, H=11, W=10, K=4, R=3, S=3, stride=2, pad=1, dil=1, dtype="float32",
           acc=None):
    """NCHW conv2d with a padding stage (so schedules can place it)."""
    acc = acc or dtype
    OH, OW = _conv_out(H, R, stride, pad, dil), _conv_out(W, S, stride, pad, dil)
    X = te.placeholder((N, C, H, W), dtype=dtype, name="X")
    Wt = te.placeholder((K, C, R, S), dtype=dtype, name="W")
    P = te.compute((N, C, H + 2 * pad, W + 2 * pad),
                   lambda n, c, h, w: te.if_then_else(
                       te.all(h >= pad, h < H + pad, w >= pad, w < W + pad),
                       X[n, c, h - pad, w - pad], te.const(0, dtype)), name="P")
    rc = te.reduce_axis((0, C), name="rc")
    rr = te.reduce_axis((0, R), name="rr")
    rs = te.reduce_axis((0, S), name="rs")
    Y = te.compute((N, K, OH, OW), lambda n, k, oh, ow: te.sum(
        P[n, rc, oh * stride + rr * dil, ow * stride + rs * dil].astype(acc) *
        Wt[k, rc, rr, rs].astype(acc), axis=[rc, rr, rs]), name="Y")

    def ref(x, w):
        xp = _np_pad(x.astype(acc), pad)
        out = np.zeros((N, K, OH, OW), dtype=acc)
        for r in range(R):
            for s_ in range(S):
                patch = xp[:, :, r * dil: r * dil + stride * (OH - 1) + 1: stride,
                           s_ * dil: s_ * dil + stride * (OW - 1) + 1: stride]
                out += np.einsum("nchw,kc->nkhw", patch, w[:, :, r, s_].astype(acc)).astype(acc)
        return out
    return OpCase("conv2d", [X, Wt, Y],
                  lambda rng: [_rand(rng, (N, C, H, W), dtype), _rand(rng, (K, C, R, S), dtype)],
                  ref, stages=["P"], extra={"P": P})


def depthwise_conv2d(N=1, C=5, H=9, W=12, R=3, S=3, stride=1, pad=1, dtype="float32"):
    OH, OW = _conv_out(H, R, stride, pad, 1), _conv_out(W, S, stride, pad, 1)
    X = te.placeholder((N, C, H, W), dtype=dtype, name="X")
    Wt = te.placeholder((C, R, S), dtype=dtype, name="W")
    P = te.compute((N, C, H + 2 * pad, W + 2 * pad),
                   lambda n, c, h, w: te.if_then_else(
                       te.all(h >= pad, h < H + pad, w >= pad, w < W + pad),
                       X[n, c, h - pad, w - pad], te.const(0, dtype)), name="P")
    rr = te.reduce_axis((0, R), name="rr")
    rs = te.reduce_axis((0, S), name="rs")
    Y = te.compute((N, C, OH, OW), lambda n, c, oh, ow: te.sum(
        P[n, c, oh * stride + rr, ow * stride + rs] * Wt[c, rr, rs], axis=[rr, rs]), name="Y")

    def ref(x, w):
        xp = _np_pad(x, pad)
        out = np.zeros((N, C, OH, OW), dtype=dtype)
        for r in range(R):
            for s_ in range(S):
                patch = xp[:, :, r: r + stride * (OH - 1) + 1: stride,
                           s_: s_ + stride * (OW - 1) + 1: stride]
                out += patch * w[None, :, r, s_, None, None]
        return out
    return OpCase("depthwise_conv2d", [X, Wt, Y],
                  lambda rng: [_rand(rng, (N, C, H, W), dtype), _rand(rng, (C, R, S), dtype)],
                  ref, stages=["P"], extra={"P": P})


def pool2d(kind="max", N=1, C=3, H=13, W=11, R=3, S=3, stride=2, pad=1, dtype="float32"):
    OH, OW = _conv_out(H, R, stride, pad, 1), _conv_out(W, S, stride, pad, 1)
    X = te.placeholder((N, C, H, W), dtype=dtype, name="X")
    rr = te.reduce_axis((0, R), name="rr")
    rs = te.reduce_axis((0, S), name="rs")
    if kind == "max":
        lowest = float("-inf") if np.dtype(dtype).kind == "f" else int(np.iinfo(dtype).min)
        P = te.compute((N, C, H + 2 * pad, W + 2 * pad),
                       lambda n, c, h, w: te.if_then_else(
                           te.all(h >= pad, h < H + pad, w >= pad, w < W + pad),
                           X[n, c, h - pad, w - pad], te.const(lowest, dtype)), name="P")
        Y = te.compute((N, C, OH, OW), lambda n, c, oh, ow: te.max(
            P[n, c, oh * stride + rr, ow * stride + rs], axis=[rr, rs]), name="Y")
        pad_value = lowest
    else:
        P = te.compute((N, C, H + 2 * pad, W + 2 * pad),
                       lambda n, c, h, w: te.if_then_else(
                           te.all(h >= pad, h < H + pad, w >= pad, w < W + pad),
                           X[n, c, h - pad, w - pad], te.const(0, dtype)), name="P")
        S_ = te.compute((N, C, OH, OW), lambda n, c, oh, ow: te.sum(
            P[n, c, oh * stride + rr, ow * stride + rs], axis=[rr, rs]), name="S")
        Y = te.compute((N, C, OH, OW), lambda n, c, oh, ow: S_[n, c, oh, ow] / float(R * S),
                       name="Y")
        pad_value = 0

    def ref(x):
        xp = _np_pad(x, pad, pad_value)
        wins = [xp[:, :, r: r + stride * (OH - 1) + 1: stride, s_: s_ + stride * (OW - 1) + 1: stride]
                for r in range(R) for s_ in range(S)]
        if kind == "max":
            return np.max(np.stack(wins), axis=0)
        acc = np.zeros_like(wins[0])
        for w in wins:
            acc = acc + w
        return (acc / np.float32(R * S)).astype(dtype)
    stages = ["P"] if kind == "max" else ["P", "S"]
    extra = {"P": P} if kind == "max" else {"P": P, "S": S_}
    return OpCase(f"{kind}_pool2d", [X, Y], lambda rng: [_rand(rng, (N, C, H, W), dtype)], ref,
                  stages=stages, extra=extra)


def dense_bias_relu(M=9, N=21, K=17, dtype="float32"):
    """dense + bias + relu: the bias/relu epilogue is inlined into one loop nest by schedules."""
    X = te.placeholder((M, K), dtype=dtype, name="X")
    Wt = te.placeholder((N, K), dtype=dtype, name="W")
    b = te.placeholder((N,), dtype=dtype, name="b")
    k = te.reduce_axis((0, K), name="k")
    D = te.compute((M, N), lambda i, j: te.sum(X[i, k] * Wt[j, k], axis=k), name="D")
    Bi = te.compute((M, N), lambda i, j: D[i, j] + b[j], name="Bias")
    Y = te.compute((M, N), lambda i, j: te.max(Bi[i, j], te.const(0, dtype)), name="Y")
    return OpCase("dense_bias_relu", [X, Wt, b, Y],
                  lambda rng: [_rand(rng, (M, K), dtype), _rand(rng, (N, K), dtype),
                               _rand(rng, (N,), dtype)],
                  lambda x, w, bb: np.maximum(x @ w.T + bb, 0).astype(dtype),
                  stages=["D", "Bias"], extra={"D": D, "Bias": Bi})


def softmax(M=7, N=33, dtype="float32"):
    X = te.placeholder((M, N), dtype=dtype, name="X")
    k1 = te.reduce_axis((0, N), name="k1")
    Mx = te.compute((M,), lambda i: te.max(X[i, k1], axis=k1), name="Mx")
    E = te.compute((M, N), lambda i, j: te.exp(X[i, j] - Mx[i]), name="E")
    k2 = te.reduce_axis((0, N), name="k2")
    Sm = te.compute((M,), lambda i: te.sum(E[i, k2], axis=k2), name="Sm")
    Y = te.compute((M, N), lambda i, j: E[i, j] / Sm[i], name="Y")

    def ref(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(dtype)
    return OpCase("softmax", [X, Y], lambda rng: [_rand(rng, (M, N), dtype)], ref,
                  stages=["Mx", "E", "Sm"], extra={"Mx": Mx, "E": E, "Sm": Sm})


def transpose(M=19, N=23, dtype="float32"):
    X = te.placeholder((M, N), dtype=dtype, name="X")
    Y = te.compute((N, M), lambda i, j: X[j, i], name="Y")
    return OpCase("transpose", [X, Y], lambda rng: [_rand(rng, (M, N), dtype)],
                  lambda x: np.ascontiguousarray(x.T))


def elementwise_chain(M=13, N=27, dtype="float32"):
    """Five elementwise ops; schedules inline the first four into one loop nest."""
    X = te.placeholder((M, N), dtype=dtype, name="X")
    Z = te.placeholder((M, N), dtype=dtype, name="Z")
    if np.dtype(dtype).kind == "f":
        E1 = te.compute((M, N), lambda i, j: X[i, j] * 2.0, name="E1")
        E2 = te.compute((M, N), lambda i, j: E1[i, j] + Z[i, j], name="E2")
        E3 = te.compute((M, N), lambda i, j: te.max(E2[i, j], 0.0), name="E3")
        E4 = te.compute((M, N), lambda i, j: E3[i, j] - 1.5, name="E4")
        Y = te.compute((M, N), lambda i, j: E4[i, j] * Z[i, j], name="Y")

        def ref(x, z):
            return ((np.maximum(x * np.float32(2.0) + z, 0) - np.float32(1.5)) * z).astype(dtype)
    else:
        E1 = te.compute((M, N), lambda i, j: X[i, j] * 3, name="E1")
        E2 = te.compute((M, N), lambda i, j: E1[i, j] + Z[i, j], name="E2")
        E3 = te.compute((M, N), lambda i, j: te.max(E2[i, j], 0), name="E3")
        E4 = te.compute((M, N), lambda i, j: E3[i, j] // 4, name="E4")
        Y = te.compute((M, N), lambda i, j: E4[i, j] % 7 - Z[i, j], name="Y")

        def ref(x, z):
            # Integer arithmetic wraps at the tensor's width after every operation.
            def wrap(v):
                return v.astype(dtype)
            x = x.astype(np.int64)
            z = z.astype(np.int64)
            e1 = wrap(x * 3).astype(np.int64)
            e2 = wrap(e1 + z).astype(np.int64)
            e3 = np.maximum(e2, 0)
            e4 = e3 // 4
            return wrap(e4 % 7 - z)
    return OpCase("elementwise_chain", [X, Z, Y],
                  lambda rng: [_rand(rng, (M, N), dtype), _rand(rng, (M, N), dtype)], ref,
                  stages=["E1", "E2", "E3", "E4"],
                  extra={"E1": E1, "E2": E2, "E3": E3, "E4": E4})


ALL_BUILDERS = {
    "matmul": matmul, "batch_matmul": batch_matmul, "conv2d": conv2d,
    "depthwise_conv2d": depthwise_conv2d, "max_pool2d": lambda **kw: pool2d("max", **kw),
    "avg_pool2d": lambda **kw: pool2d("avg", **kw), "dense_bias_relu": dense_bias_relu,
    "softmax": softmax, "transpose": transpose, "elementwise_chain": elementwise_chain,
}


def unwritten_marker(dtype):
    """The value an output starts as, so that elements a kernel fails to write show up: NaN for
    floats, a value near the type's minimum (which the small random inputs never produce) for
    signed integers, near the maximum for unsigned ones."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return np.iinfo(dtype).max - 7
    return np.nan if dtype.kind == "f" else np.iinfo(dtype).min + 7


def run_case(case, f, rng):
    """Runs built module f on random inputs; returns (tessera output, numpy reference)."""
    inputs = case.make_inputs(rng)
    out_t = case.output
    out = np.full(out_t.shape, unwritten_marker(out_t.dtype), dtype=out_t.dtype)
    f(*inputs, out)
    return out, case.reference(*inputs)


def assert_matches(out, ref, dtype):
    if np.dtype(dtype) == np.float16:  # only exact operators use float16: bit for bit
        np.testing.assert_array_equal(out.view(np.uint16), np.asarray(ref, np.float16).view(np.uint16))
    elif np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, ref)
