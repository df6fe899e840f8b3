"""Tunes ResNet-18's 12 workloads (benchmarks/workloads/resnet18_tasks.json) with the xgb tuner on
the NPU simulator, as one tuning job (`tessera tune`'s core), and reports the wall time and, per
layer, the default config's cycles (trial 0 of each search), the tuned cycles, both as fractions
of the roofline bound of the layer's true work, and the best that benchmarks/npu_space found by
sampling and coordinate descent when it last ran (its spaces may have changed since).

    PYTHONPATH=python .venv/bin/python benchmarks/tune_resnet18/run.py [--trials 24]
        [--workers 2] [--seed 1] [--write-log]

--write-log writes the tuning log to tuning_logs/npu-v1/resnet18.jsonl (replaced), the log the
repository commits and release builds replay; without it the log goes to a temporary file. Writes
benchmarks/tune_resnet18/REPORT.md. Issue 11's targets: the whole suite in <= 2 minutes of wall
time on 2 cores, tuned median >= 0.90 and minimum >= 0.75 of the true-work bound.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

from tessera import autotune as at  # noqa: E402

WORKLOADS = os.path.join(ROOT, "benchmarks", "workloads", "resnet18_tasks.json")
COMMITTED_LOG = os.path.join(ROOT, "tuning_logs", "npu-v1", "resnet18.jsonl")
# Defaults chosen so that the suite fits issue 11's 2 minutes on this 2-core machine.
TRIALS, BATCH, SEED, WORKERS = 24, 8, 1, 2


def space_report_best():
    """{layer: best cycles} from benchmarks/npu_space/REPORT.md's npu-v1 table, if present."""
    path = os.path.join(ROOT, "benchmarks", "npu_space", "REPORT.md")
    if not os.path.exists(path):
        return {}
    best, head = {}, None
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("## ") and head is not None:
            break  # the first (npu-v1) table only
        if cells and cells[0] == "layer" and "best cycles" in cells:
            head = cells
            continue
        if head and len(cells) == len(head) and re.fullmatch(r"\d+", cells[head.index("best cycles")]):
            best[cells[0]] = int(cells[head.index("best cycles")])
    return best


def fraction(bound, cycles):
    return f"{bound / cycles:.3f}" if cycles else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=TRIALS, help=f"per task (default {TRIALS})")
    p.add_argument("--batch-size", type=int, default=BATCH, help=f"default {BATCH}")
    p.add_argument("--workers", type=int, default=WORKERS, help=f"default {WORKERS}")
    p.add_argument("--seed", type=int, default=SEED, help=f"default {SEED}")
    p.add_argument("--write-log", action="store_true",
                   help="write tuning_logs/npu-v1/resnet18.jsonl (replacing it)")
    args = p.parse_args()

    if args.write_log:
        log = os.path.normpath(COMMITTED_LOG)
        os.makedirs(os.path.dirname(log), exist_ok=True)
        if os.path.exists(log):
            os.remove(log)
    else:
        tmp = tempfile.mkdtemp(prefix="tune_resnet18_")
        log = os.path.join(tmp, "resnet18.jsonl")
    workloads = at.load_workloads(WORKLOADS)
    t0 = time.monotonic()
    results = at.tune_workloads(workloads, trials=args.trials, tuner="xgb", seed=args.seed,
                                batch_size=args.batch_size, workers=args.workers, log=log,
                                progress=True)
    wall = time.monotonic() - t0

    known = space_report_best()
    rows = []
    for r in results:
        best = r.report.best.result.cycles
        default = r.default_result.cycles if r.default_result.ok else None
        rows.append(dict(id=r.id, default=default, tuned=best, bound=r.bound_cycles,
                         trials=len(r.report.trials), measured=r.report.measured,
                         errors=len(r.report.trials) - r.report.by_status["ok"],
                         space_best=known.get(r.id)))
    fracs = [r["bound"] / r["tuned"] for r in rows]
    dfracs = [r["bound"] / r["default"] for r in rows if r["default"]]
    med, low = statistics.median(fracs), min(fracs)
    cmd = ("PYTHONPATH=python .venv/bin/python benchmarks/tune_resnet18/run.py "
           f"--trials {args.trials} --batch-size {args.batch_size} --workers {args.workers} "
           f"--seed {args.seed}" + (" --write-log" if args.write_log else ""))
    lines = [
        "# Tuning ResNet-18 on npu-v1 with the xgb tuner", "",
        f"Written by `{cmd}` on a shared 2-core machine. One tuning job over the 12 tasks of "
        "`benchmarks/workloads/resnet18_tasks.json`: per task, trial 0 is the template's "
        f"default config, then xgb trials ({args.trials} trials per task in all, batches of "
        f"{args.batch_size}, {args.workers} measurement workers, seed {args.seed}).", "",
        f"**Wall time: {wall:.1f} s** for the whole suite (target <= 120 s): "
        f"{'met' if wall <= 120 else 'NOT met'}.", "",
        "Fractions are of the roofline bound of the layer's true work (1.0 is the physical "
        "limit). *npu_space best* is the best that `benchmarks/npu_space` found by random "
        "sampling and coordinate descent when its REPORT.md was last written (not an exhaustive "
        "sweep; the spaces may have changed since, so it is a reference, not ground truth).", "",
        "| layer | trials | measured | errors | bound | default cycles | default fraction | "
        "tuned cycles | tuned fraction | npu_space best cycles | npu_space best fraction |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        b, d, sb = r["bound"], r["default"], r["space_best"]
        lines.append(
            f"| {r['id']} | {r['trials']} | {r['measured']} | {r['errors']} | {b:.0f} | "
            f"{d or '-'} | {fraction(b, d)} | {r['tuned']} | {fraction(b, r['tuned'])} | "
            f"{sb or '-'} | {fraction(b, sb)} |")
    lines += [
        "",
        f"Tuned fraction: median **{med:.3f}** (target >= 0.90: {'met' if med >= 0.9 else 'NOT met'}),"
        f" minimum **{low:.3f}** (target >= 0.75: {'met' if low >= 0.75 else 'NOT met'}). "
        f"Default configs: median {statistics.median(dfracs):.3f}, minimum {min(dfracs):.3f}.",
        "", f"Log: `{os.path.relpath(log, ROOT) if args.write_log else 'a temporary file'}`.", ""]
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(HERE, "REPORT.md"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
