"""ResNet-18's 12 workloads on a simulated NPU with the operator library's default schedules: each
layer is built for the target, run functionally on random int8 data (with the simulator's hazard
check) and checked bit-exact against numpy, then timed. The report compares cycles with the
roofline bound of the layer's *true* work on that target, as NpuModule.roofline() gives it
(DESIGN.md: max(MACs / MACs per cycle, minimum DDR bytes / DDR bytes per cycle, vector ops /
vector lanes) with the operator's unpadded MACs and tensor sizes, docs/npu_isa.md section 9), so
channel padding and extra DDR traffic count against the schedule; the fraction of the
kernel-derived bound (kernel_roofline(), padded work counted as work) is shown beside it.

    PYTHONPATH=python .venv/bin/python benchmarks/npu_resnet18/run.py \\
        [--target runtime/npu/targets/npu-32x32.json ...]

Without --target: npu-v1; with several, one table per target. conv1 (3 input channels) runs as a
dense layer on an im2col layout that folds the 7x7 window and the channels into the reduction,
instead of padding 3 channels to a whole block. Writes benchmarks/npu_resnet18/REPORT.md.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tessera  # noqa: E402
from tessera import autotune, npu  # noqa: E402
from tessera import npu_layout as L  # noqa: E402

MULT, SHIFT = 1 << 14, 22   # a requantization that keeps outputs in range for random data


def conv_reference(x, w, stride, pad):
    C, H, W = x.shape
    K, _, R, S = w.shape
    OH, OW = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - S) // stride + 1
    xp = np.pad(x.astype(np.int64), ((0, 0), (pad, pad), (pad, pad)))
    acc = np.zeros((K, OH, OW), np.int64)
    for r in range(R):
        for s in range(S):
            patch = xp[:, r:r + stride * (OH - 1) + 1:stride, s:s + stride * (OW - 1) + 1:stride]
            acc += np.einsum("chw,kc->khw", patch, w[:, :, r, s].astype(np.int64), optimize=True)
    return L.requantize(acc, MULT, SHIFT)


def task_of(wl, target=None):
    """The operator library's task for a workload: dense for fc; conv2d, or conv2d_im2col (a dense
    layer over the im2col matrix) when the layer has fewer input channels than the target's block,
    as conv1's 3 RGB channels, which would otherwise be padded to a whole block."""
    target = npu.default_target() if target is None else target
    q = dict(multiplier=MULT, shift=SHIFT)
    if wl["op"] == "dense":
        return autotune.NpuTask("dense", dict(M=wl["M"], K=wl["K"], N=wl["N"], **q), target)
    args = dict(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"], S=wl["S"],
                stride=wl["stride"], pad=wl["pad"], **q)
    return autotune.NpuTask("conv2d_im2col" if wl["C"] < target.block else "conv2d", args, target)


def run_layer(wl, rng, target=None, config=None):
    """Builds, checks and times one workload on `target` (None: npu-v1) with `config` (None: the
    template's default); returns a row of figures."""
    target = npu.default_target() if target is None else target
    task = task_of(wl, target)
    config = task.default_config() if config is None else config
    op = task.build(config)
    f = tessera.build(op.schedule, op.args, target=target, name=wl["id"])
    if task.template == "dense":
        M, K, N = wl["M"], wl["K"], wl["N"]
        x = rng.integers(-128, 128, (M, K), dtype=np.int8)
        w = rng.integers(-128, 128, (N, K), dtype=np.int8)
        y = np.zeros(L.dense_output_shape(M, N, target), np.int8)
        f(L.pack_dense_input(x, target), L.pack_dense_weight(w, target), y)
        ref = L.requantize(x.astype(np.int64) @ w.astype(np.int64).T, MULT, SHIFT)
        ok = np.array_equal(L.unpack_dense_output(y, N), ref)
    else:
        C, H, W, K, R, S = wl["C"], wl["H"], wl["W"], wl["K"], wl["R"], wl["S"]
        st, pad = wl["stride"], wl["pad"]
        x = rng.integers(-128, 128, (C, H, W), dtype=np.int8)
        wt = rng.integers(-128, 128, (K, C, R, S), dtype=np.int8)
        if task.template == "conv2d_im2col":
            y = np.zeros(L.dense_output_shape(wl["OH"] * wl["OW"], K, target), np.int8)
            f(L.pack_im2col_input(x, R, S, st, pad, target), L.pack_im2col_weight(wt, target), y)
            out = L.unpack_im2col_output(y, K, wl["OH"], wl["OW"])
        else:
            y = np.zeros(L.activation_shape(K, wl["OH"], wl["OW"], target), np.int8)
            f(L.pack_activation(x, target), L.pack_conv_weight(wt, target), y)
            out = L.unpack_activation(y, K)
        ok = np.array_equal(out, conv_reference(x, wt, st, pad))
    params = task.template + " " + task.to_json(config)
    t = f.timing()
    r = f.roofline()            # against the operator's true work
    own = f.kernel_roofline()   # against the kernel's own (padded) work
    min_ddr = r["ddr_bytes"]    # the layer's minimum (for conv1, the image, not its im2col matrix)
    cycles = t["cycles"]
    ddr = t["ddr_bytes_read"] + t["ddr_bytes_written"]
    util = {u: t["units"][u]["busy_cycles"] / cycles for u in ("load", "compute", "store")}
    return dict(id=wl["id"], ok=ok, cycles=cycles, bound=r["bound"], frac=r["fraction"],
                kernel_frac=own["fraction"], true_macs=r["macs"], ddr=ddr, min_ddr=min_ddr,
                util=util, params=params, limit=r["limited_by"],
                fetch_share=t["ddr_bytes_fetched"] / max(1, ddr + t["ddr_bytes_fetched"]))


def double_buffer_row(target=None):
    """A memory-bound dense (X streamed once, as many MACs as DDR cycles on npu-v1) with and
    without double buffering."""
    target = npu.default_target() if target is None else target
    out = {}
    for db in (True, False):
        op = tessera.npu_ops.dense(M=1024, K=512, N=target.block, multiplier=MULT, shift=SHIFT,
                                    db_input=db, db_weights=db, db_output=db, target=target)
        out[db] = tessera.build(op.schedule, op.args, target=target).timing()["cycles"]
    return out


def target_report(target, wls):
    rng = np.random.default_rng(2026)
    t0 = time.time()
    rows = [run_layer(w, rng, target) for w in wls]
    db = double_buffer_row(target)
    elapsed = time.time() - t0
    b = target.block
    lines = [f"## {target.name}: {b} x {b} MAC array, {target.sram_bytes // 1024} KiB SRAM, "
             f"{target.acc_bytes // 1024} KiB accumulator, {target.ddr_bytes_per_cycle} B/cycle DDR",
             "", f"Built, run and checked in {elapsed:.0f} s.", "",
             f"Bound = max(true MACs / {target.mac_in * target.mac_out}, minimum DDR bytes / "
             f"{target.ddr_bytes_per_cycle}, vector ops / {target.vector_lanes}) cycles.", "",
             "| layer | exact | cycles | bound | limited by | fraction | kernel-derived | "
             "DDR bytes / minimum | fetch | load | compute | store | parameters |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
             "| --- |"]
    for r in rows:
        lines.append(f"| {r['id']} | {'yes' if r['ok'] else '**NO**'} | {r['cycles']} | "
                     f"{r['bound']:.0f} | {r['limit']} | {r['frac']:.3f} | "
                     f"{r['kernel_frac']:.3f} | {r['ddr'] / r['min_ddr']:.2f} | "
                     f"{r['fetch_share']:.1%} | {r['util']['load']:.2f} | "
                     f"{r['util']['compute']:.2f} | {r['util']['store']:.2f} | {r['params']} |")
    med = statistics.median(r["frac"] for r in rows)
    lines += ["", f"Median fraction of the true-work bound: **{med:.3f}** (target for the hand "
              f"schedules: >= 0.60): {'met' if med >= 0.6 else 'NOT met'}.", "",
              f"Double buffering on a memory-bound layer (dense 1024 x 512 x {b}, X streamed in "
              f"tiles): {db[True]} cycles with it, {db[False]} without: "
              f"**{db[True] / db[False]:.2f}x** (target <= 0.7x).", ""]
    return lines, rows


def main():
    parser = argparse.ArgumentParser(description="ResNet-18 on the simulated NPU")
    parser.add_argument("--target", action="append", default=[],
                        help="NPU target description (JSON); repeat for several; default npu-v1")
    args = parser.parse_args()
    targets = [npu.load_target(p) for p in args.target] or [npu.default_target()]
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    flags = " ".join(f"--target {os.path.relpath(p, os.path.join(HERE, '..', '..'))}"
                     for p in args.target)
    lines = ["# ResNet-18 on the simulated NPU, default schedules", "",
             "Written by `PYTHONPATH=python .venv/bin/python benchmarks/npu_resnet18/run.py"
             f"{' ' + flags if flags else ''}`. Every layer was also run functionally on random int8 "
             "data and compared bit-exact with numpy (column *exact*).", "",
             "Simulator model: each target as its JSON description says, with its fidelity costs "
             "(instruction fetch over the DDR port, the accumulator's read-after-write latency, "
             "padding writes; docs/npu_isa.md section 6).", "",
             "Bound = `NpuModule.roofline()`: max(true MACs / MACs per cycle, minimum DDR bytes / DDR "
             "bytes per cycle, vector ops / vector lanes) cycles on the target, with the operator's "
             "true work (unpadded MACs and tensor sizes, declared by the operator library from the "
             "layer's logical shape); *fraction* = bound / cycles (1.0 is the physical limit). "
             "*Kernel-derived* = the same fraction against `kernel_roofline()`, which counts the "
             "kernel's padded MACs and buffers as work and so flatters a padded layout. *DDR bytes "
             "/ minimum*: bytes loaded and stored over the layer's minimum (for conv1, the image, "
             "not its im2col matrix); *fetch*: share of the DDR traffic that is instruction fetch. "
             "Utilisation = busy cycles / total per unit.", ""]
    all_ok = True
    summary = []
    for t in targets:
        tl, rows = target_report(t, wls)
        lines += tl
        all_ok &= all(r["ok"] for r in rows)
        summary.append((t.name, sum(r["cycles"] for r in rows),
                        statistics.median(r["frac"] for r in rows)))
    if len(targets) > 1:
        lines += ["## Across targets", "", "| target | total cycles (12 layers) | median fraction |",
                  "| --- | ---: | ---: |"]
        lines += [f"| {n} | {c} | {m:.3f} |" for n, c, m in summary]
        lines.append("")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(HERE, "REPORT.md"), "w") as fh:
        fh.write(text)
    if not all_ok:
        sys.exit("a layer gave a wrong result")


if __name__ == "__main__":
    main()
