"""A seeded random-schedule generator for the NPU (used by test_npu_schedule_fuzzer).

Each case is dense or conv2d on random small shapes (channel counts, rows and image sizes that are
not multiples of 16 included), written here in the packed layouts of the operator library
(autotune/templates/npu_dense.cpp, npu_conv2d.cpp) and scheduled at random the way those templates
are: the output is tiled by random splits (divisors, non-divisors, factors larger than the extent)
and its outer tile loops reordered at random; the sram/acc cache stages are computed at random
tile loops (sometimes at an inner, illegal place); the accumulator's loops are permuted at random
and tensorized with npu.gemm16 (sometimes at a wrong axis); inputs are double-buffered at random.
A few cases are too big for SRAM or the accumulator unless the schedule tiles them.

The verdict on a case is: it builds for the NPU and the simulated result equals the int64 numpy
reference bit for bit, or build raises ScheduleError/LowerError/TargetError. Anything else
(a wrong result, InternalError, SimulationError, a crash) is a failure.
"""
import collections
import re

import numpy as np

import tessera
from tessera import te

LANES = 16
BUILD_ERRORS = (tessera.ScheduleError, tessera.LowerError, tessera.TargetError)

# There is no allowance for known bugs: a rejection without a clear message, an internal error or
# a wrong result fails the run, whatever the seed.


def blocks(n):
    return (n + LANES - 1) // LANES


def requantize_ref(acc, multiplier, shift, zero_point):
    """docs/npu_isa.md: clamp(((a*multiplier + 2^(shift-1)) >> shift) + zero_point, -128, 127),
    no rounding term when shift = 0; exact in int64."""
    v = acc.astype(np.int64) * np.int64(multiplier)
    if shift > 0:
        v = (v + (np.int64(1) << np.int64(shift - 1))) >> np.int64(shift)
    return np.clip(v + zero_point, -128, 127).astype(np.int8)


def reason_of(err):
    """A short, stable reason for a rejection: the error type, the primitive and the rule it broke,
    with names and numbers blanked."""
    msg = str(err).splitlines()[0]
    msg = re.sub(r"^stage '[^']*': ", "", msg)
    msg = re.sub(r"'[^']*'", "X", msg)
    msg = re.sub(r"\d+", "N", msg)
    parts = msg.split(": ")
    head = ": ".join(parts[:2]) if len(parts) > 1 else parts[0]
    return f"{type(err).__name__}: {' '.join(head.split()[:12])}"


class Case:
    """One operator instance: its TE, the tensors the schedule uses, inputs and reference."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.shape.items())})"


def make_quant(r):
    shift = int(r.integers(12, 22))
    mult = int(r.integers(1 << max(0, shift - 12), 1 << (shift - 6)))
    zp = int(r.integers(-4, 5)) if r.random() < 0.3 else 0
    return mult, shift, zp


def dense_case(r, big=False):
    """Y[m, nb, o] = requantize(sum_{kb, i} X[m, kb, i] * W[nb, kb, o, i]) (as npu_dense.cpp)."""
    if big == "acc":       # the accumulator (1024 rows) cannot hold M x NB rows untiled
        M, K, N = int(r.integers(1030, 1200)), int(r.integers(1, 17)), int(r.integers(1, 17))
    elif big == "sram":    # the weights (NB x KB x 16 rows) do not fit in SRAM (16384 rows) whole
        M, K, N = int(r.integers(1, 3)), int(r.integers(520, 560)), int(r.integers(520, 560))
    elif r.random() < 0.25:
        M, K, N = int(r.integers(1, 101)), int(r.integers(1, 101)), int(r.integers(1, 101))
    else:
        M, K, N = int(r.integers(1, 41)), int(r.integers(1, 65)), int(r.integers(1, 65))
    KB, NB = blocks(K), blocks(N)
    mult, shift, zp = make_quant(r)
    X = te.placeholder((M, KB, LANES), dtype="int8", name="X")
    W = te.placeholder((NB, KB, LANES, LANES), dtype="int8", name="W")
    kb = te.reduce_axis((0, KB), name="kb")
    i = te.reduce_axis((0, LANES), name="i")
    acc = te.compute((M, NB, LANES), lambda m, nb, o: te.sum(
        X[m, kb, i].astype("int32") * W[nb, kb, o, i].astype("int32"), axis=[kb, i]), name="acc")
    Y = te.compute((M, NB, LANES), lambda m, nb, o: te.requantize(acc[m, nb, o], mult, shift, zp),
                   name="Y")

    def data(rng):
        x = rng.integers(-128, 128, (M, K), dtype=np.int8)
        w = rng.integers(-128, 128, (N, K), dtype=np.int8)
        xp = np.zeros((M, KB * LANES), np.int8)
        xp[:, :K] = x
        wp = np.zeros((NB * LANES, KB * LANES), np.int8)
        wp[:N, :K] = w
        Xp = xp.reshape(M, KB, LANES)
        Wp = wp.reshape(NB, LANES, KB, LANES).transpose(0, 2, 1, 3).copy()
        a = xp.astype(np.int64) @ wp.astype(np.int64).T            # (M, NB*16), zero lanes padded
        ref = requantize_ref(a, mult, shift, zp).reshape(M, NB, LANES)
        return [Xp, Wp], np.empty((M, NB, LANES), np.int8), ref

    return Case(name="dense", shape=dict(M=M, K=K, N=N, mult=mult, shift=shift, zp=zp), X=X, W=W,
                acc=acc, Y=Y, P=None, args=[X, W, Y], data=data)


def conv2d_case(r, big=False):
    """Y[k, oh, ow, o] = requantize(sum_{rc, rr, rs, i} P[rc, oh*st+rr, ow*st+rs, i] *
    W[k, rc, rr, rs, o, i]) with P the zero-padded input in SRAM (as npu_conv2d.cpp)."""
    R = int(r.choice([1, 3]))
    stride = int(r.integers(1, 3))
    pad = int(r.integers(0, 2))
    if big == "sram":      # the padded input (CB x Hp x Wp rows) does not fit in SRAM whole
        C, K = int(r.integers(1, 17)), int(r.integers(1, 17))
        H, W_ = int(r.integers(130, 140)), int(r.integers(130, 140))
        stride = 2
    else:
        C, K = int(r.integers(1, 41)), int(r.integers(1, 41))
        hi = 19 if r.random() < 0.25 else 11
        H, W_ = int(r.integers(max(1, R - 2 * pad), hi)), int(r.integers(max(1, R - 2 * pad), hi))
    CB, KB = blocks(C), blocks(K)
    Hp, Wp = H + 2 * pad, W_ + 2 * pad
    OH, OW = (Hp - R) // stride + 1, (Wp - R) // stride + 1
    mult, shift, zp = make_quant(r)
    X = te.placeholder((CB, H, W_, LANES), dtype="int8", name="X")
    Wt = te.placeholder((KB, CB, R, R, LANES, LANES), dtype="int8", name="W")
    P = te.compute((CB, Hp, Wp, LANES), lambda c, h, w, l: te.if_then_else(
        te.all(h >= pad, h < H + pad, w >= pad, w < W_ + pad), X[c, h - pad, w - pad, l],
        te.const(0, "int8")), name="P")
    rc = te.reduce_axis((0, CB), name="rc")
    rr = te.reduce_axis((0, R), name="rr")
    rs = te.reduce_axis((0, R), name="rs")
    i = te.reduce_axis((0, LANES), name="i")
    acc = te.compute((KB, OH, OW, LANES), lambda k, oh, ow, o: te.sum(
        P[rc, oh * stride + rr, ow * stride + rs, i].astype("int32") *
        Wt[k, rc, rr, rs, o, i].astype("int32"), axis=[rc, rr, rs, i]), name="acc")
    Y = te.compute((KB, OH, OW, LANES),
                   lambda k, oh, ow, o: te.requantize(acc[k, oh, ow, o], mult, shift, zp), name="Y")

    def data(rng):
        x = rng.integers(-128, 128, (C, H, W_), dtype=np.int8)
        w = rng.integers(-128, 128, (K, C, R, R), dtype=np.int8)
        xc = np.zeros((CB * LANES, H, W_), np.int8)
        xc[:C] = x
        wc = np.zeros((KB * LANES, CB * LANES, R, R), np.int8)
        wc[:K, :C] = w
        Xp = xc.reshape(CB, LANES, H, W_).transpose(0, 2, 3, 1).copy()
        Wpk = wc.reshape(KB, LANES, CB, LANES, R, R).transpose(0, 2, 4, 5, 1, 3).copy()
        xpad = np.pad(xc.astype(np.int64), ((0, 0), (pad, pad), (pad, pad)))
        a = np.zeros((KB * LANES, OH, OW), np.int64)
        for dr in range(R):
            for ds in range(R):
                win = xpad[:, dr:dr + stride * (OH - 1) + 1:stride,
                           ds:ds + stride * (OW - 1) + 1:stride]
                a += np.einsum("chw,kc->khw", win, wc[:, :, dr, ds].astype(np.int64))
        ref = requantize_ref(a, mult, shift, zp)
        ref = ref.reshape(KB, LANES, OH, OW).transpose(0, 2, 3, 1).copy()
        return [Xp, Wpk], np.empty((KB, OH, OW, LANES), np.int8), ref

    return Case(name="conv2d", shape=dict(C=C, H=H, W=W_, K=K, R=R, stride=stride, pad=pad,
                                          mult=mult, shift=shift, zp=zp),
                X=X, W=Wt, acc=acc, Y=Y, P=P, args=[X, Wt, Y], data=data)


class Fuzzer:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.built = 0
        self.built_by_op = collections.Counter()
        self.rejected = collections.Counter()        # final verdict: rejected, by reason
        self.primitive_errors = collections.Counter()  # primitives refused while generating
        self.log = []                                  # the schedule calls of the current case

    def _try(self, what, fn):
        self.log.append(what)
        try:
            return fn()
        except tessera.ScheduleError as e:
            self.primitive_errors[reason_of(e)] += 1
            self.log[-1] += "  # refused"
            return None

    def _factor(self, extent):
        r = self.rng.random()
        if r < 0.45:
            divisors = [d for d in range(1, extent + 1) if extent % d == 0]
            return int(self.rng.choice(divisors))
        if r < 0.85:
            return int(self.rng.integers(1, extent + 2))
        return extent + int(self.rng.integers(1, 9))

    def _tile_output(self, s, tiled_axes, lane_axis):
        """Splits some of the output's axes, reorders the outer tile loops at random and returns
        (outer loops, inner loops) of the output stage."""
        r = self.rng
        y = self.y
        outer, inner = [], []
        for ax in tiled_axes:
            if r.random() < 0.75:
                f = self._factor(max(1, ax.extent))
                res = self._try(f"Y.split({ax.name}, factor={f})",
                                lambda: y.split(ax, factor=f))
                if res is not None:
                    ao, ai = res
                    if r.random() < 0.15:       # two-level tiling: the outer loop split again
                        g = self._factor(max(1, ao.extent))
                        res2 = self._try(f"Y.split({ao.name}, factor={g})",
                                         lambda: y.split(ao, factor=g))
                        if res2 is not None:
                            outer.append(res2[0])
                            ao = res2[1]
                    outer.append(ao)
                    inner.append(ai)
                    continue
            (outer if r.random() < 0.5 else inner).append(ax)
        lane = [lane_axis]
        if r.random() < 0.04:   # tiling the 16 lanes breaks every row operation
            f = int(r.choice([2, 4, 8]))
            res = self._try(f"Y.split({lane_axis.name}, factor={f})",
                            lambda: y.split(lane_axis, factor=f))
            if res is not None:
                lane = list(res)
        outer = [outer[int(j)] for j in r.permutation(len(outer))]
        if r.random() < 0.2:
            inner = [inner[int(j)] for j in r.permutation(len(inner))]
        self._try(f"Y.reorder({', '.join(a.name for a in outer + inner + lane)})",
                  lambda: y.reorder(*(outer + inner + lane)))
        if len(outer) >= 2 and r.random() < 0.08:   # fused tile loops
            j = int(r.integers(len(outer) - 1))
            fused = self._try(f"Y.fuse({outer[j].name}, {outer[j + 1].name})",
                              lambda: y.fuse(outer[j], outer[j + 1]))
            if fused is not None:
                outer[j:j + 2] = [fused]
        return outer, inner + lane

    def _place(self, stage, label, outer, inner, deepest, extra=()):
        """compute_at of a cache stage at a random tile loop of the output no deeper than
        `deepest` (the position of the loop its reader is computed at; -1 is the root), or at
        one of `extra` (the accumulator's loops), or at the root. Rarely anywhere at all,
        inner loops included (mostly illegal). Returns the position chosen."""
        r = self.rng
        x = r.random()
        if x < 0.04:
            loops = outer + inner
            ax = loops[int(r.integers(len(loops)))]
            self._try(f"{label}.compute_at(Y, {ax.name})", lambda: stage.compute_at(self.y, ax))
            return outer.index(ax) if ax in outer else len(outer)
        if extra and x < 0.25:
            ax = extra[int(r.integers(len(extra)))]
            self._try(f"{label}.compute_at(acc, {ax.name})", lambda: stage.compute_at(self.a, ax))
            return -1
        d = int(r.integers(-1, min(deepest, len(outer) - 1) + 1))
        if d >= 0:
            ax = outer[d]
            self._try(f"{label}.compute_at(Y, {ax.name})", lambda: stage.compute_at(self.y, ax))
        return d

    def _acc_loops(self, s, spatial, reduce, lane, lane_r):
        """Permutes the accumulator's outer loops (optionally splitting one reduction) and
        tensorizes; rarely at a wrong axis or with the lane loops out of place."""
        r = self.rng
        a = self.a
        loops = list(spatial) + list(reduce)
        if reduce and r.random() < 0.25:
            j = int(r.integers(len(reduce)))
            ax = reduce[j]
            f = self._factor(max(1, ax.extent))
            res = self._try(f"acc.split({ax.name}, factor={f})", lambda: a.split(ax, factor=f))
            if res is not None:
                loops = list(spatial) + [x for x in reduce if x is not ax] + list(res)
        loops = [loops[int(j)] for j in r.permutation(len(loops))]
        tail = [lane, lane_r]
        if r.random() < 0.04:
            tail = [lane_r, lane]                    # reduction lane outside the output lane
        order = loops + tail
        self._try(f"acc.reorder({', '.join(x.name for x in order)})", lambda: a.reorder(*order))
        at = lane
        x = r.random()
        if x < 0.03:
            return loops
        if x < 0.08 and loops:
            at = loops[int(r.integers(len(loops)))]  # a wrong tensorize axis
        self._try(f"acc.tensorize({at.name}, npu_gemm_intrin())",
                  lambda: a.tensorize(at, tessera._tessera.npu_gemm_intrin()))
        return loops

    def random_schedule(self, case):
        r = self.rng
        s = te.create_schedule(case.Y.op)
        self.log = []
        ys = None
        if r.random() < 0.97:
            ys = self._try('cache_write(Y, "sram")', lambda: s.cache_write(case.Y, "sram"))
        ws = self._try('cache_read(W, "sram", [acc])',
                       lambda: s.cache_read(case.W, "sram", [case.acc]))
        if case.P is None:
            xs = self._try('cache_read(X, "sram", [acc])',
                           lambda: s.cache_read(case.X, "sram", [case.acc]))
        else:
            self._try('P.set_scope("sram")', lambda: s[case.P].set_scope("sram"))
            xs = case.P
        if r.random() < 0.98:
            self._try('acc.set_scope("acc")', lambda: s[case.acc].set_scope("acc"))
        self.y, self.a = s[case.Y], s[case.acc]
        yax = list(self.y.op.axis)
        outer, inner = self._tile_output(s, yax[:-1], yax[-1])
        aax = list(self.a.op.axis)
        rax = list(self.a.op.reduce_axis)
        acc_loops = self._acc_loops(s, aax[:-1], rax[:-1], aax[-1], rax[-1])
        deepest = len(outer) - 1
        if ys is not None:
            deepest = self._place(s[ys], "Y.sram", outer, inner, deepest)
        deepest = self._place(self.a, "acc", outer, inner, deepest)
        in_stages = [("W.sram", ws), ("X.sram" if case.P is None else "P", xs)]
        for label, t in in_stages:
            if t is None:
                continue
            self._place(s[t], label, outer, inner, min(deepest, len(outer) - 1),
                        extra=acc_loops if deepest >= 0 or r.random() < 0.5 else ())
            if r.random() < 0.5:
                self._try(f"{label}.double_buffer()", lambda: s[t].double_buffer())
        if r.random() < 0.03:
            self._try("acc.double_buffer()", lambda: self.a.double_buffer())
        return s

    def one(self, index):
        r = self.rng
        big = False
        x = r.random()
        if x < 0.03:
            big = "acc" if r.random() < 0.5 else "sram"
        if index % 2 == 0:
            case = dense_case(r, big)
        else:
            case = conv2d_case(r, "sram" if big else False)
        s = self.random_schedule(case)
        where = f"case {index} {case}:\n  " + "\n  ".join(self.log)
        try:
            f = tessera.build(s, case.args, target="npu", name=f"fuzz{index}")
        except BUILD_ERRORS as e:
            msg = str(e)
            # A clear message is not an internal invariant, and names the stage it is about or,
            # for a memory overflow, what was needed and what is available.
            if "internal" in msg or not re.search(
                    r"stage '[^']+'|overflow: .* needed, .* available", msg):
                raise AssertionError(f"{where}\nrejected without a clear message: "
                                     f"{type(e).__name__}: {msg}") from None
            self.rejected[reason_of(e)] += 1
            return
        except tessera.TesseraError as e:
            raise AssertionError(f"{where}\nbuild raised {type(e).__name__}: {e}") from None
        inputs, out, ref = case.data(r)
        out[...] = np.int8(0x5A)   # elements the kernel fails to write show up
        try:
            f(*inputs, out)
        except tessera.TesseraError as e:
            raise AssertionError(f"{where}\nrunning raised {type(e).__name__}: {e}") from None
        if not np.array_equal(out, ref):
            bad = np.argwhere(out != ref)
            at = tuple(int(j) for j in bad[0])
            raise AssertionError(f"{where}\nwrong result: {len(bad)} of {out.size} elements "
                                 f"differ, "
                                 f"first at {at}: got {out[at]}, expected {ref[at]}")
        self.built += 1
        self.built_by_op[case.name] += 1

    def report(self):
        lines = [f"NPU schedule fuzzer: {self.built} built and bit-exact "
                 f"({', '.join(f'{k} {v}' for k, v in sorted(self.built_by_op.items()))}), "
                 f"{sum(self.rejected.values())} rejected before simulation"]
        for reason, n in sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  rejected {n:4d}  {reason}")
        refused = sum(self.primitive_errors.values())
        lines.append(f"  primitives refused while generating: {refused}")
        for reason, n in sorted(self.primitive_errors.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"    {n:4d}  {reason}")
        return "\n".join(lines)
