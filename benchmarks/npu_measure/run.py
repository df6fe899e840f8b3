"""What one measurement of an NPU template config costs (the auto-tuner's unit of work): construct
the schedule, lower, code generation, timing simulation, on ResNet-18's 12 workloads.

    PYTHONPATH=python .venv/bin/python benchmarks/npu_measure/run.py \\
        [--target runtime/npu/targets/npu-v1.json ...] [--samples 32] [--seed 2026] [--repeat 3]

Per workload and target: a seeded uniform sample of --samples distinct valid configs (those passing
the template's cheap validity check) plus the default; each is measured --repeat times (the
kernel is the same every time; the fastest run is kept, which removes other processes' noise on
a shared machine). Reported: the median and 90th percentile of the measurement time (construct +
lower + codegen + timing), the median of each phase apart, the median instruction count, codegen
microseconds per emitted instruction, and the peer ratio: measurement time over the timing
simulation time of the same kernel (the simulator is the floor a measurement cannot go below
without simulating less; 1.0 would be a measurement that costs no more than its simulation).
Writes benchmarks/npu_measure/REPORT.md (the issue's target: median <= 5 ms).
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

from tessera import autotune, npu  # noqa: E402

MARKER = "<!-- hand-written below: kept when the report is regenerated -->"
PHASES = ("construct_us", "lower_us", "codegen_us", "timing_us")
MULT, SHIFT = 1 << 14, 22  # as benchmarks/npu_resnet18 and npu_space


def task_of(wl, target):
    q = dict(multiplier=MULT, shift=SHIFT)
    if wl["op"] == "dense":
        return autotune.NpuTask("dense", dict(M=wl["M"], K=wl["K"], N=wl["N"], **q), target)
    args = dict(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"], S=wl["S"],
                stride=wl["stride"], pad=wl["pad"], **q)
    return autotune.NpuTask("conv2d_im2col" if wl["C"] < target.block else "conv2d", args, target)


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def sample(task, n, rng, limit=200000):
    out, seen = [task.default_config()], set()
    while len(out) < n + 1 and len(seen) < min(limit, task.space_size):
        i = rng.randrange(task.space_size)
        if i in seen:
            continue
        seen.add(i)
        c = task.config(i)
        if task.is_valid(c):
            out.append(c)
    return out


def measure(task, c, repeat):
    """The fastest of `repeat` measurements of one config (phases of that run)."""
    best = None
    for _ in range(repeat):
        m = task.measure(c)
        m["total_us"] = sum(m[p] for p in PHASES)
        if best is None or m["total_us"] < best["total_us"]:
            best = m
    return best


def layer_row(wl, target, args):
    task = task_of(wl, target)
    rng = random.Random(f"{args.seed}/{target.name}/{wl['id']}")
    ms = [measure(task, c, args.repeat) for c in sample(task, args.samples, rng)]
    ok = [m for m in ms if m["status"] == "ok"]
    tot = [m["total_us"] / 1000 for m in ok]
    ph = {p: statistics.median(m[p] for m in ok) / 1000 for p in PHASES}
    per_insn = statistics.median(m["codegen_us"] / max(1, m["insns"]) for m in ok)
    ratio = statistics.median(m["total_us"] / max(1e-3, m["timing_us"]) for m in ok)
    return dict(id=wl["id"], template=task.template, n=len(ms), errors=len(ms) - len(ok),
                median=statistics.median(tot), p90=p90(tot), phase=ph,
                insns=statistics.median(m["insns"] for m in ok), per_insn=per_insn, ratio=ratio,
                all=tot)


def target_section(target, wls, args):
    t0 = time.time()
    rows = []
    for wl in wls:
        r = layer_row(wl, target, args)
        rows.append(r)
        print(f"{target.name} {r['id']}: {r['median']:.2f} ms median, p90 {r['p90']:.2f}",
              flush=True)
    every = [x for r in rows for x in r["all"]]
    lines = [f"## {target.name}", "",
             f"Ran in {time.time() - t0:.0f} s: {len(every)} measurements ({args.samples} sampled "
             f"valid configs + the default per layer, fastest of {args.repeat} runs each).", "",
             f"**Over the 12 workloads: median {statistics.median(every):.2f} ms per measurement, "
             f"p90 {p90(every):.2f} ms** (target: median <= 5 ms).", "",
             "| layer | template | configs | errors | ms median | ms p90 | construct | lower | "
             "codegen | timing | insns (median) | codegen us / insn | measurement / timing |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: |"]
    for r in rows:
        ph = r["phase"]
        lines.append(
            f"| {r['id']} | {r['template']} | {r['n']} | {r['errors']} | {r['median']:.2f} | "
            f"{r['p90']:.2f} | {ph['construct_us']:.3f} | {ph['lower_us']:.3f} | "
            f"{ph['codegen_us']:.3f} | {ph['timing_us']:.3f} | {r['insns']:.0f} | "
            f"{r['per_insn']:.2f} | {r['ratio']:.1f} |")
    lines.append("")
    return lines, every


def main():
    p = argparse.ArgumentParser(description="the cost of one NPU template measurement")
    p.add_argument("--target", action="append", default=[],
                   help="NPU target description (JSON); repeat; default npu-v1")
    p.add_argument("--samples", type=int, default=32)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", action="append", default=[], help="a workload id; repeat")
    p.add_argument("--no-report", action="store_true", help="print only")
    args = p.parse_args()
    paths = args.target or [os.path.join(ROOT, "runtime", "npu", "targets", "npu-v1.json")]
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    if args.only:
        wls = [w for w in wls if w["id"] in args.only]
    flags = "".join(f" --target {os.path.relpath(x, ROOT)}" for x in args.target)
    lines = ["# The cost of one NPU measurement on ResNet-18", "",
             "Written by `PYTHONPATH=python .venv/bin/python benchmarks/npu_measure/run.py"
             f"{flags} --samples {args.samples} --seed {args.seed} --repeat {args.repeat}` (the "
             "docstring defines every column). Times are wall-clock milliseconds on a shared "
             "2-core machine, one measurement at a time.", ""]
    for path in paths:
        tl, _ = target_section(npu.load_target(path), wls, args)
        lines += tl
    if not args.no_report and not args.only:
        path = os.path.join(HERE, "REPORT.md")
        # A hand-written section (the profile of what remains) survives regeneration.
        old = open(path).read() if os.path.exists(path) else ""
        kept = old[old.index(MARKER):] if MARKER in old else ""
        with open(path, "w") as f:
            f.write("\n".join(lines) + ("\n" + kept if kept else ""))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
