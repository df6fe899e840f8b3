"""The config spaces of the NPU templates on ResNet-18's 12 workloads: how large they are, how much
of them fits, how good the shape-aware default is, how good the space's best config found is, and
what one measurement (build + timing simulation, the auto-tuner's unit of work) costs.

    PYTHONPATH=python .venv/bin/python benchmarks/npu_space/run.py \\
        [--target runtime/npu/targets/npu-v1.json --target ...] [--samples 48] [--seed 2026]

Default targets: npu-v1 and npu-8x8. Per workload and target:
  * space size, and the valid configs (those passing the cheap validity check), counted exactly
    by visiting every index;
  * the default config's cycles and true-work fraction (bound / cycles; the roofline bound of the
    layer's true work as the template declares it at the logical shape, as in
    benchmarks/npu_resnet18: max(MACs / MACs per cycle, minimum DDR bytes / DDR bytes per cycle,
    vector ops / vector lanes) on the target);
  * the best config found, and its fraction. An exhaustive sweep is over budget (spaces of 10^5 to
    10^7 configs at 10-1000 ms a measurement), so the search is stated: a seeded uniform random
    sample of --samples distinct valid configs, plus coordinate descent from the best of the
    default and the sample (every one-knob change of the current best that passes the check,
    measured; repeated while it improves, at most --rounds rounds);
  * the time of one measurement over the random sample (the configs a tuner starts from): median
    and 90th percentile, and the median of each phase apart (construct: the template builds the
    schedule; lower; codegen; timing: the timing simulation). The summary's figure for issue 10
    is the median over every layer's sampled measurements pooled (with the median of the layers'
    medians beside it).
Writes benchmarks/npu_space/REPORT.md.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time
import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

from tessera import npu  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "npu_resnet18_run", os.path.join(HERE, "..", "npu_resnet18", "run.py"))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)

PHASES = ("construct_us", "lower_us", "codegen_us", "timing_us")


def total_ms(m):
    return sum(m[p] for p in PHASES) / 1000.0


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def random_valid(task, n, rng, limit=200000):
    """n distinct valid configs drawn uniformly (by index) from the space."""
    seen, out = set(), []
    while len(out) < n and len(seen) < min(limit, task.space_size):
        i = rng.randrange(task.space_size)
        if i in seen:
            continue
        seen.add(i)
        c = task.config(i)
        if task.is_valid(c):
            out.append(c)
    return out


def coordinate_descent(task, start, start_cycles, measured, rounds):
    """Every one-knob change of the current best that passes the check, measured (once each);
    move to the best; repeat while it improves. Returns (best config, cycles, measured count)."""
    best, best_cycles, n = start, start_cycles, 0
    for _ in range(rounds):
        base = task.values(best)
        improved = False
        for k in task.knobs:
            for v in k["domain"]:
                vals = dict(base)
                vals[k["name"]] = v
                c = task.config_from_json(vals)
                key = task.to_json(c)
                if key in measured or not task.is_valid(c):
                    continue
                m = task.measure(c)
                measured[key] = m
                n += 1
                if m["status"] == "ok" and m["cycles"] < best_cycles:
                    best, best_cycles, improved = c, m["cycles"], True
        if not improved:
            break
    return best, best_cycles, n


def layer_row(wl, target, samples, seed, rounds):
    task = R.task_of(wl, target)
    t0 = time.time()
    valid = task.count_valid()
    count_s = time.time() - t0
    d = task.default_config()
    dm = task.measure(d)
    assert dm["status"] == "ok", (wl["id"], dm)
    bound = dm["bound"]  # the roofline bound of the layer's true work (declared by the template)
    measured = {task.to_json(d): dm}
    rng = random.Random(f"{seed}/{target.name}/{wl['id']}")
    sample = random_valid(task, samples, rng)
    sample_results = []
    for c in sample:
        m = task.measure(c)
        measured[task.to_json(c)] = m
        sample_results.append(m)
    errors = sum(m["status"] != "ok" for m in sample_results)
    best_key, best_cycles = task.to_json(d), dm["cycles"]
    for key, m in measured.items():
        if m["status"] == "ok" and m["cycles"] < best_cycles:
            best_key, best_cycles = key, m["cycles"]
    sample_best = min((m["cycles"] for m in sample_results if m["status"] == "ok"),
                      default=None)
    best, best_cycles, descent_n = coordinate_descent(
        task, task.config_from_json(best_key), best_cycles, measured, rounds)
    times = [total_ms(m) for m in sample_results] or [total_ms(dm)]
    phase = {p: statistics.median(m[p] for m in sample_results) / 1000.0 if sample_results else 0
             for p in PHASES}
    return dict(id=wl["id"], template=task.template, size=task.space_size, valid=valid,
                count_s=count_s, bound=bound, default_cycles=dm["cycles"],
                default_frac=bound / dm["cycles"], sample=len(sample), sample_errors=errors,
                sample_best_frac=bound / sample_best if sample_best else 0.0,
                descent=descent_n, best_cycles=best_cycles, best_frac=bound / best_cycles,
                best=task.to_json(best), default=task.to_json(d), ms_median=statistics.median(times),
                ms_p90=p90(times), times=times, phase=phase,
                insns_median=statistics.median(m["insns"] for m in sample_results)
                if sample_results else dm["insns"])


def target_section(target, wls, args):
    t0 = time.time()
    rows = []
    for wl in wls:
        row = layer_row(wl, target, args.samples, args.seed, args.rounds)
        rows.append(row)
        print(f"{target.name} {row['id']}: default {row['default_frac']:.3f} best "
              f"{row['best_frac']:.3f}, {row['ms_median']:.1f} ms median", flush=True)
    elapsed = time.time() - t0
    b = target.block
    lines = [f"## {target.name}: {b} x {b} MAC array, {target.sram_bytes // 1024} KiB SRAM, "
             f"{target.acc_bytes // 1024} KiB accumulator", "",
             f"Ran in {elapsed:.0f} s. Random sample: {args.samples} valid configs per layer (seed "
             f"{args.seed}); coordinate descent: at most {args.rounds} rounds.", "",
             "| layer | template | space | valid | default cycles | default fraction | "
             "sample best | best found | best cycles | measured (sample + descent) | "
             "ms / measurement median | p90 | construct | lower | codegen | timing | "
             "insns (median) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        ph = r["phase"]
        lines.append(
            f"| {r['id']} | {r['template']} | {r['size']} | {r['valid']} | {r['default_cycles']} | "
            f"{r['default_frac']:.3f} | {r['sample_best_frac']:.3f} | **{r['best_frac']:.3f}** | "
            f"{r['best_cycles']} | {r['sample']} + {r['descent']} | {r['ms_median']:.1f} | "
            f"{r['ms_p90']:.1f} | {ph['construct_us']:.2f} | {ph['lower_us']:.2f} | "
            f"{ph['codegen_us']:.1f} | {ph['timing_us']:.2f} | {r['insns_median']:.0f} |")
    lines += ["", "Best configs found:", ""]
    lines += [f"- {r['id']}: `{r['best']}`" for r in rows]
    lines += ["", "Defaults:", ""]
    lines += [f"- {r['id']}: `{r['default']}`" for r in rows]
    lines.append("")
    return lines, rows


def main():
    parser = argparse.ArgumentParser(description="NPU template config spaces on ResNet-18")
    parser.add_argument("--target", action="append", default=[],
                        help="NPU target description (JSON); repeat; default npu-v1 and npu-8x8")
    parser.add_argument("--samples", type=int, default=48,
                        help="valid configs drawn at random per layer (default 48)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="coordinate-descent rounds at most (default 3)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", action="append", default=[], help="a workload id; repeat")
    args = parser.parse_args()
    paths = args.target or [os.path.join(ROOT, "runtime", "npu", "targets", n + ".json")
                            for n in ("npu-v1", "npu-8x8")]
    targets = [npu.load_target(p) for p in paths]
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    if args.only:
        wls = [w for w in wls if w["id"] in args.only]
    flags = " ".join(f"--target {os.path.relpath(p, ROOT)}" for p in args.target)
    extra = f" --samples {args.samples} --rounds {args.rounds} --seed {args.seed}"
    lines = ["# NPU template config spaces on ResNet-18", "",
             "Written by `PYTHONPATH=python .venv/bin/python benchmarks/npu_space/run.py"
             f"{' ' + flags if flags else ''}{extra}` (see the docstring for every column). "
             "Fractions are of the roofline bound of the layer's true work (1.0 is the physical "
             "limit). Times are wall-clock on a shared 2-core machine, one measurement at a time.",
             ""]
    summary = []
    for t in targets:
        tl, rows = target_section(t, wls, args)
        lines += tl
        summary.append((t, rows))
    lines += ["## Targets of issue 10", "",
              "| target | median ms / measurement (all layers' samples pooled) | p90 | median of "
              "the layers' medians | 1x1 stride-2 layers: best fraction found (target >= 0.80) | "
              "median best fraction over the 12 (target >= 0.90) | median default fraction |",
              "| --- | ---: | ---: | ---: | --- | ---: | ---: |"]
    for t, rows in summary:
        pooled = [x for r in rows for x in r["times"]]
        ms = statistics.median(pooled)
        of_medians = statistics.median(r["ms_median"] for r in rows)
        s2 = ", ".join(f"{r['id']} {r['best_frac']:.3f}" for r in rows
                       if r["id"].endswith("1x1_s2"))
        lines.append(f"| {t.name} | {ms:.1f} (target <= 5) | {p90(pooled):.1f} | "
                     f"{of_medians:.1f} | {s2} | "
                     f"{statistics.median(r['best_frac'] for r in rows):.3f} | "
                     f"{statistics.median(r['default_frac'] for r in rows):.3f} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if not args.only:
        with open(os.path.join(HERE, "REPORT.md"), "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
