"""Tuners against exhaustive ground truth, and transfer learning (issue 11, acceptance 1 and 3).

    PYTHONPATH=python .venv/bin/python benchmarks/tuner/run.py

1. Ground truth. Each of ResNet-18's 12 workloads (benchmarks/workloads/resnet18.json) becomes an
   NPU template task with the 'factors' split policy (every split knob over the divisors of its
   extent, as AutoTVM's default; the policy is in the task key). Its valid configs are counted and
   the cost of sweeping them is estimated from a few measurements; the workloads whose sweep fits
   the budget (--sweep-seconds each, cheapest first) are swept exhaustively: every valid config is
   built and timed once by the C++ driver (grid tuner, LocalExecutor(measure_npu), resumable log
   under --work-dir). Measurement is deterministic, so the sweep is a table keyed by config.
2. Tuners. On every swept workload, xgb, random, grid (index order: seed-independent), ga and
   Optuna's TPE sampler search the same space, their measurement a look-up of the table (the C++
   tuners through tune() with a Python measurement; TPE through optuna's ask/tell with one
   parameter per knob: integers for ordered knobs, categories otherwise). Reported: the trials each
   needs to reach within 2 % of the optimum, median over --seeds seeds. A trial is a distinct
   valid config measured: like the C++ tuners, TPE's proposals that the space's validity check
   rejects use no trial (they are told to TPE as a penalty) and a config it proposes again is
   told its earlier result without a new trial. Every search runs 128 trials, and is rerun from
   scratch 4x longer (deterministic: the same first trials) until it reaches the target: up to
   --budget trials for the model tuners (xgb, ga, tpe; "> budget" when they do not), the whole
   space for random and grid.
3. Transfer. Every workload that has mates (other workloads whose spaces have its knobs, so its
   feature vector) is held out in turn: logs of its mates (--transfer-trials random configs each,
   in their factors spaces: from the sweep's table where there is one, measured otherwise, cached
   under --work-dir) warm-start the xgb model. Reported: the pairwise rank accuracy of the
   transfer model on the held-out workload's configs (target >= 0.90; a seeded sample of its
   sweep, or --rank-sample measured random configs when it was not swept) and, for a swept
   workload, trials to within 5 % of the optimum (median over the seeds; target <= 32), without
   transfer for comparison.
Writes benchmarks/tuner/REPORT.md and benchmarks/tuner/curves.png.
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tessera import autotune as at  # noqa: E402
from tessera import npu  # noqa: E402

MULT, SHIFT = 1 << 14, 22
TUNERS = ("xgb", "random", "grid", "ga", "tpe")
PENALTY = 1e18  # what TPE is told for a config that cannot run
XGB_TRIALS_TARGET = 256  # issue 11: xgb within 2 % of the optimum in at most this many trials


def task_of_workload(wl, target, policy="factors"):
    """The template task of a workload: dense for a dense layer, the im2col dense for a conv2d
    with fewer input channels than the MAC array's block (the RGB stem), conv2d otherwise."""
    q = dict(multiplier=MULT, shift=SHIFT)
    if wl["op"] == "dense":
        return at.NpuTask("dense", dict(M=wl["M"], K=wl["K"], N=wl["N"], **q), target, policy)
    args = {k: wl[k] for k in ("C", "H", "W", "K", "R", "S", "stride", "pad")}
    tmpl = "conv2d_im2col" if wl["C"] < target.block else "conv2d"
    return at.NpuTask(tmpl, dict(args, **q), target, policy)


# ---- 1. ground truth -----------------------------------------------------------------------

def estimate(task, seed, samples):
    """Valid configs, and the mean wall time of measuring a few random ones (seconds): the mean,
    since a sweep's cost is a sum and a few configs (the smallest tiles) cost far more."""
    valid = task.count_valid()
    configs = at.make_tuner("random", task.tuning, seed=seed).propose(samples)
    times = []
    for c in configs:
        t = time.perf_counter()
        task.measure(c)
        times.append(time.perf_counter() - t)
    return valid, statistics.fmean(times) if times else 0.0


def sweep(task, valid, log_path, workers):
    """Every valid config measured once (the grid tuner visits them in index order): a dict
    index -> (status, cycles, fingerprint), and the wall time."""
    t = time.perf_counter()
    ex = at.LocalExecutor(at.measure_npu, workers=workers)
    rep = at.tune(task.tuning, at.make_tuner("grid", task.tuning, seed=0), ex,
                  target=task.target, trials=valid, batch_size=64, log=log_path)
    table = {}
    for tr in rep.trials:
        r = tr.result
        table[task.index_of(tr.config)] = (r.status, r.cycles if r.ok else 0, r.fingerprint)
    assert len(table) == valid, (task.key_text, len(table), valid)
    return table, time.perf_counter() - t, rep.resumed


def table_measure(task, table):
    """A measurement function that reads the sweep's table."""
    space = task.space

    def measure(inp, ctx):
        status, cycles, fp = table[space.index_of(inp.config)]
        if status == "ok":
            return at.MeasureResult.success(cycles, fp)
        return at.MeasureResult.failure(status, "from the sweep", fp)
    return measure


# ---- 2. tuners -----------------------------------------------------------------------------

def run_cpp_tuner(kind, task, table, seed, trials, transfer=None):
    """Best cycles after each trial (0 while nothing ran) of a C++ tuner on the table."""
    tuner = at.make_tuner(kind, task.tuning, seed=seed, transfer=transfer)
    ex = at.LocalExecutor(table_measure(task, table), workers=1)
    rep = at.tune(task.tuning, tuner, ex, target=task.target, trials=trials, batch_size=32)
    curve, best = [], 0
    for tr in rep.trials:
        if tr.result.ok and (best == 0 or tr.result.cycles < best):
            best = tr.result.cycles
        curve.append(best)
    return curve


def run_tpe(task, table, seed, trials):
    """Optuna's TPE sampler on the same space and table (see the module docstring)."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = task.space
    knobs = space.knobs
    study = optuna.create_study(direction="minimize",
                                sampler=optuna.samplers.TPESampler(seed=seed))
    seen, curve, best = {}, [], 0
    for _ in range(50 * trials):
        if len(curve) >= trials or len(seen) >= len(table):
            break
        t = study.ask()
        values = []
        for k in knobs:
            d = k.describe()
            n = len(k)
            ordered = d["kind"] == "split" or d.get("ordered", False)
            if n == 1:
                values.append(0)
            elif ordered:
                values.append(t.suggest_int(k.name, 0, n - 1))
            else:
                values.append(t.suggest_categorical(k.name, list(range(n))))
        c = at.Config(values)
        i = space.index_of(c)
        if i in seen:
            study.tell(t, seen[i])
            continue
        if not space.is_valid(c):
            study.tell(t, PENALTY)
            continue
        status, cycles, _ = table[i]
        value = float(cycles) if status == "ok" else PENALTY
        seen[i] = value
        study.tell(t, value)
        if status == "ok" and (best == 0 or cycles < best):
            best = cycles
        curve.append(best)
    return curve


def trials_to(curve, optimum, within):
    """The first trial (1-based) whose best is within `within` of the optimum, or None."""
    for n, b in enumerate(curve, 1):
        if b and b <= optimum * (1 + within):
            return n
    return None


def median_trials(values, cap):
    """Median of trial counts where None (not reached within `cap`) counts as above every
    number; text for the report."""
    vals = sorted(v if v is not None else math.inf for v in values)
    m = statistics.median_low(vals) if len(vals) % 2 else statistics.median(vals)
    return m


def fmt_trials(m, cap):
    return f"> {cap}" if m == math.inf else (f"{m:.0f}" if m == int(m) else f"{m:.1f}")


CURVE_TRIALS = 128  # every search runs at least this long (the curves' common part)


def run_tuners(task, table, seeds, budget, optimum):
    """Each tuner's best-so-far curves, one per seed (grid: one, repeated). A search is run for
    CURVE_TRIALS trials, then, from scratch (it is deterministic, so its first trials are the
    same), 4x longer until it reaches the 2 % target: up to `budget` for the model tuners, the
    whole space for random and grid."""
    valid = len(table)
    out = {}
    for kind in TUNERS:
        curves = []
        cap = valid if kind in ("random", "grid") else min(budget, valid)
        for seed in (seeds if kind != "grid" else seeds[:1]):
            n = min(CURVE_TRIALS, cap)
            while True:
                if kind == "tpe":
                    cur = run_tpe(task, table, seed, n)
                else:
                    cur = run_cpp_tuner(kind, task, table, seed, n)
                if trials_to(cur, optimum, 0.02) or n >= cap:
                    break
                n = min(cap, 4 * n)
            curves.append(cur)
        if kind == "grid":
            curves = curves * len(seeds)
        out[kind] = curves
    return out


# ---- 3. transfer ---------------------------------------------------------------------------

def workload_log(wid, task, tables, target, trials, seed, path, workers):
    """`trials` random configs of one workload (its factors space), seeded: read from its sweep's
    table when there is one, measured otherwise; the log is resumed when a run left it."""
    if wid in tables:
        if os.path.exists(path):
            os.remove(path)
        ex = at.LocalExecutor(table_measure(task, tables[wid]), workers=1)
    else:
        ex = at.LocalExecutor(at.measure_npu, workers=workers)
    at.tune(task.tuning, at.make_tuner("random", task.tuning, seed=seed), ex,
            target=target, trials=trials, batch_size=trials, log=path)
    return at.read_tuning_log(path)


def fit_model(groups, seed):
    o = at.CostModelOptions()
    o.seed = seed
    model = at.CostModel(o)
    model.fit(groups)
    return model


def rank_accuracy(model, task, table, seed, sample):
    """On a seeded sample of the swept table's configs that ran."""
    ok = sorted(i for i, (s, _, _) in table.items() if s == "ok")
    rng = random.Random(seed)
    pick = sorted(rng.sample(ok, min(sample, len(ok))))
    space = task.space
    feats = [task.tuning.features(space.at(i)) for i in pick]
    best = min(table[i][1] for i in ok)
    labels = [best / table[i][1] for i in pick]
    return at.pairwise_rank_accuracy(model.predict(feats), labels)


def rank_accuracy_records(model, task, records):
    """On measured records of the held-out task (the configs that ran)."""
    ok = [r for r in records if r["result"]["status"] == "ok"]
    feats = [task.tuning.features(task.config_from_json(r["config"])) for r in ok]
    best = min(r["result"]["cycles"] for r in ok)
    labels = [best / r["result"]["cycles"] for r in ok]
    return at.pairwise_rank_accuracy(model.predict(feats), labels), len(ok)


# ---- report --------------------------------------------------------------------------------

def plot(results, optima, names, path, budget):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(results)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for ax, (wid, curves) in zip(axes.flat, results.items()):
        opt = optima[wid]
        for kind in TUNERS:
            cs = curves[kind]
            length = min(budget, max(len(c) for c in cs))
            ys = []
            for t in range(length):
                vals = [c[min(t, len(c) - 1)] / opt if c[min(t, len(c) - 1)] else math.nan
                        for c in cs]
                ys.append(statistics.median(vals))
            ax.plot(range(1, length + 1), ys, label=kind)
        ax.axhline(1.02, color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.set_ylim(0.98, 1.6)
        ax.set_title(f"{wid} ({names[wid]})", fontsize=9)
        ax.set_xlabel("trials")
        ax.set_ylabel("best cycles / optimum (median of seeds)")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default=os.path.join(ROOT, "runtime/npu/targets/npu-v1.json"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=512, help="trials of xgb, ga and tpe")
    ap.add_argument("--sweep-seconds", type=float, default=240,
                    help="sweep a workload when its estimated sweep takes at most this")
    ap.add_argument("--max-workloads", type=int, default=6)
    ap.add_argument("--transfer-trials", type=int, default=48)
    ap.add_argument("--rank-sample", type=int, default=96,
                    help="measured configs of a held-out workload that was not swept, for the "
                         "transfer model's rank accuracy")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--work-dir", default=os.path.join(ROOT, "build", "tuner_bench"))
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--sweep-only", action="store_true",
                    help="stop after the sweeps (their logs under --work-dir are resumed by a "
                         "later run); writes no report")
    a = ap.parse_args()
    t_start = time.time()
    os.makedirs(a.work_dir, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    with open(a.target) as f:
        target = npu.parse_target(f.read(), a.target)
    wls = json.load(open(os.path.join(ROOT, "benchmarks/workloads/resnet18.json")))["workloads"]
    seeds = list(range(1, a.seeds + 1))
    tasks = {w["id"]: task_of_workload(w, target) for w in wls}
    names = {w["id"]: tasks[w["id"]].template for w in wls}

    est = {}
    for w in wls:
        t = tasks[w["id"]]
        valid, sec = estimate(t, 2026, 5)
        est[w["id"]] = dict(space=t.space_size, valid=valid, sec=sec,
                            sweep=valid * sec / max(1, a.workers))
        print(f"{w['id']}: factors space {t.space_size}, valid {valid}, "
              f"{1e3 * sec:.1f} ms/config, sweep ~{est[w['id']]['sweep']:.0f} s", flush=True)
    chosen = sorted((i for i in est if est[i]["sweep"] <= a.sweep_seconds),
                    key=lambda i: est[i]["sweep"])[:a.max_workloads]
    chosen = [w["id"] for w in wls if w["id"] in chosen]  # workload order

    tables, sweep_info, optima = {}, {}, {}
    for wid in chosen:
        t = tasks[wid]
        table, sec, resumed = sweep(t, est[wid]["valid"], os.path.join(a.work_dir, f"sweep_{wid}.jsonl"),
                                    a.workers)
        tables[wid] = table
        ok = [c for s, c, _ in table.values() if s == "ok"]
        optima[wid] = min(ok)
        d = t.measure(t.default_config())
        sweep_info[wid] = dict(sec=sec, resumed=resumed, ok=len(ok), default=d.get("cycles"),
                               bound=d["bound"], fps=len({fp for _, _, fp in table.values()}))
        print(f"{wid}: swept {len(table)} configs in {sec:.0f} s ({resumed} from the log), "
              f"optimum {optima[wid]}", flush=True)
    if a.sweep_only:
        return

    results = {}
    for wid in chosen:
        t0 = time.time()
        results[wid] = run_tuners(tasks[wid], tables[wid], seeds, a.budget, optima[wid])
        print(f"{wid}: tuners in {time.time() - t0:.0f} s", flush=True)

    # transfer: every workload with mates (other workloads whose spaces have the same knobs, so
    # the same feature vector) held out in turn, warm-started from the mates' logs
    def knob_sig(wid):
        return [(k["name"], k["kind"]) for k in tasks[wid].knobs]
    transfers = []
    logs = {}
    for held in [w["id"] for w in wls]:
        mates = [w["id"] for w in wls if w["id"] != held and knob_sig(w["id"]) == knob_sig(held)]
        if not mates:
            continue
        t0 = time.time()
        for m in mates + [held]:
            if m not in logs:
                logs[m] = workload_log(m, tasks[m], tables, target, a.transfer_trials, 7,
                                       os.path.join(a.work_dir, f"transfer_{m}.jsonl"), a.workers)
        records = [r for m in mates for r in logs[m]]
        log = os.path.join(a.work_dir, f"transfer_without_{held}.jsonl")
        if os.path.exists(log):
            os.remove(log)
        at.append_tuning_log(log, records)
        groups = at.transfer_groups(records, lambda key: at.npu_tuning_task(key, target),
                                    tasks[held].key_text, log)
        models = [fit_model(groups, s) for s in seeds]
        tr = dict(held=held, mates=mates, records=len(records),
                  incompatible=len(wls) - 1 - len(mates))
        if held in tables:
            opt = optima[held]
            tr["with_t"] = [trials_to(run_cpp_tuner("xgb", tasks[held], tables[held], s, 64,
                                                    groups), opt, 0.05) for s in seeds]
            tr["without"] = [trials_to(run_cpp_tuner("xgb", tasks[held], tables[held], s, 64),
                                       opt, 0.05) for s in seeds]
            tr["acc"] = [rank_accuracy(m, tasks[held], tables[held], s, 1500)
                         for m, s in zip(models, seeds)]
            tr["sample"] = "1500 sampled configs of the sweep that ran (a sample per seed)"
        else:
            sample = workload_log(held, tasks[held], tables, target, a.rank_sample, 1001,
                                  os.path.join(a.work_dir, f"rank_sample_{held}.jsonl"),
                                  a.workers)
            accs = [rank_accuracy_records(m, tasks[held], sample) for m in models]
            tr["acc"] = [x for x, _ in accs]
            tr["sample"] = f"{accs[0][1]} measured random configs that ran"
        tr["sec"] = time.time() - t0
        transfers.append(tr)
        print(f"transfer to {held} from {len(mates)} workloads: {tr.get('with_t')} (without "
              f"{tr.get('without')}), rank accuracy {[round(x, 3) for x in tr['acc']]}",
              flush=True)

    plot(results, optima, names, os.path.join(a.out, "curves.png"), a.budget)
    write_report(a, est, chosen, sweep_info, optima, results, transfers, names, seeds,
                 time.time() - t_start, tables)


def sweep_cell(s):
    if s["resumed"]:
        return f"{s['sec']:.0f} ({s['resumed']} configs read from an earlier run's log)"
    return f"{s['sec']:.0f}"


def write_report(a, est, chosen, sweep_info, optima, results, transfers, names, seeds, elapsed,
                 tables):
    cmd = " ".join(["PYTHONPATH=python .venv/bin/python benchmarks/tuner/run.py"] + sys.argv[1:])
    L = ["# Tuners against exhaustive ground truth, and transfer", "",
         f"Written by `{cmd}` in {elapsed / 60:.1f} min on a shared 2-core machine "
         f"(target {os.path.basename(a.target)}, seeds {seeds[0]}..{seeds[-1]}, model tuners' "
         f"budget {a.budget} trials, sweep budget {a.sweep_seconds:.0f} s per workload). "
         f"Tuning curves: `curves.png` (median over seeds of best cycles / optimum; a search "
         f"runs {CURVE_TRIALS} trials, longer only until it reaches the target, and a curve that "
         "ended is drawn flat after its end).", "",
         "## Ground truth: 'factors' spaces (divisors only), swept exhaustively", "",
         "Every valid config of a swept workload was built and timed once (grid tuner through "
         "`tune()`, `measure_npu`, "
         f"{a.workers} workers). Measurement is deterministic, so every tuner below reads that "
         "table (keyed by config) instead of measuring again.", "",
         "| workload | template | factors space | valid | est. ms / config | swept | sweep s | "
         "distinct kernels | optimum cycles | default cycles | optimum / bound |",
         "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for wid, e in est.items():
        if wid in chosen:
            s = sweep_info[wid]
            frac = s["bound"] / optima[wid] if s["bound"] else float("nan")
            L.append(f"| {wid} | {names[wid]} | {e['space']} | {e['valid']} | "
                     f"{1e3 * e['sec']:.1f} | yes | {sweep_cell(s)} | {s['fps']} | {optima[wid]} | "
                     f"{s['default']} | {frac:.3f} |")
        else:
            L.append(f"| {wid} | {names[wid]} | {e['space']} | {e['valid']} | "
                     f"{1e3 * e['sec']:.1f} | no (~{e['sweep'] / 60:.0f} min) | | | | | |")
    L += ["", "## Trials to within 2 % of the optimum (median over seeds, [min, max])", "",
          "| workload | valid | " + " | ".join(TUNERS) + " | random / xgb |",
          "| --- | ---: |" + " ---: |" * (len(TUNERS) + 1)]
    verdicts = []
    for wid in chosen:
        cells, med = [], {}
        for kind in TUNERS:
            cap = a.budget if kind in ("xgb", "ga", "tpe") else len(results[wid][kind][0])
            n = [trials_to(c, optima[wid], 0.02) for c in results[wid][kind]]
            med[kind] = median_trials(n, cap)
            lo = min(v if v is not None else math.inf for v in n)
            hi = max(v if v is not None else math.inf for v in n)
            cells.append(f"{fmt_trials(med[kind], cap)} [{fmt_trials(lo, cap)}, "
                         f"{fmt_trials(hi, cap)}]" if kind != "grid" else fmt_trials(med[kind], cap))
        ratio = med["random"] / med["xgb"] if med["xgb"] not in (0, math.inf) else math.nan
        L.append(f"| {wid} | {est[wid]['valid']} | " + " | ".join(cells) + f" | {ratio:.1f} |")
        verdicts.append((wid, med["xgb"] <= XGB_TRIALS_TARGET, ratio >= 4, med["xgb"] <= med["tpe"]))
    L += ["", f"Targets per workload (xgb <= {XGB_TRIALS_TARGET} trials; random >= 4x xgb; xgb no "
          "worse than TPE):",
          ""]
    for wid, a1, a2, a3 in verdicts:
        L.append(f"- {wid}: xgb <= {XGB_TRIALS_TARGET} {'met' if a1 else 'NOT met'}; random >= 4x "
                 f"{'met' if a2 else 'NOT met'}; xgb <= TPE {'met' if a3 else 'NOT met'}")
    if transfers:
        L += ["", "## Transfer: each workload held out in turn", "",
              f"For a held-out workload, the xgb model is trained on the logs of the other "
              f"workloads whose spaces have its knobs (so its feature vector; the others have "
              f"another template and are left out): {a.transfer_trials} random configs each, in "
              "their factors spaces (seed 7; read from a sweep's table where there is one, "
              "measured otherwise). Trials to within 5 % of the optimum need the optimum, so "
              "only swept workloads have them (target <= 32, median over seeds); rank accuracy "
              "is the transfer model's pairwise rank accuracy on held-out configs (target >= "
              "0.90; median over the seeds, which seed the model, and for a swept workload the "
              f"sample of its configs; otherwise {a.rank_sample} random configs of the held-out "
              "workload, seed 1001, measured once). Every pair of configs with different cycles "
              "counts, near-ties included.", "",
              "| held out | template | trained on | rank accuracy per seed | median | >= 0.90 | "
              "trials to 5 % with transfer | median | without transfer | median | <= 32 |",
              "| --- | --- | ---: | --- | ---: | --- | --- | ---: | --- | ---: | --- |"]
        for tr in transfers:
            med = statistics.median(tr["acc"])
            row = (f"| {tr['held']} | {names[tr['held']]} | {len(tr['mates'])} workloads, "
                   f"{tr['records']} records | {[round(x, 3) for x in tr['acc']]} "
                   f"({tr['sample']}) | {med:.3f} | {'met' if med >= 0.90 else 'NOT met'} |")
            if "with_t" in tr:
                mw = median_trials(tr["with_t"], 64)
                mo = median_trials(tr["without"], 64)
                row += (f" {tr['with_t']} | {fmt_trials(mw, 64)} | {tr['without']} | "
                        f"{fmt_trials(mo, 64)} | {'met' if mw <= 32 else 'NOT met'} |")
            else:
                row += " not swept | | | | |"
            L.append(row)
        conv = [tr for tr in transfers if names[tr["held"]] == "conv2d"]
        if conv:
            meds = [statistics.median(tr["acc"]) for tr in conv]
            L += ["", f"conv2d layers held out: rank accuracy >= 0.90 on "
                  f"{sum(m >= 0.90 for m in meds)} of {len(meds)} (median of the layers' "
                  f"medians {statistics.median(meds):.3f}, lowest {min(meds):.3f})."]
    fast = sorted((w for w in est if w not in chosen), key=lambda w: est[w]["sweep"])
    text = (f"{len(chosen)} of the 12 workloads could be swept within the budget "
            f"({', '.join(chosen) or 'none'}); the issue asks for at least 4. What stops the "
            "others is the cost of a measurement on this machine (column 'est. ms / config': the "
            "mean over 5 random configs, measured while other jobs shared the 2 cores; the mean, "
            "because a sweep's cost is a sum and the configs of the smallest tiles take seconds) "
            "times the size of their factors spaces: the categorical knobs (loop order, fold, "
            "input load, weights placement, four double-buffer flags) multiply every tile choice "
            "by up to 1728. At those rates the cheapest unswept would take " + ", ".join(
                f"{w} ~{est[w]['sweep'] / 60:.0f} min" for w in fast[:4])
            + f" with {a.workers} workers; a larger --sweep-seconds picks them up (the sweep "
            "logs under --work-dir are resumed; nothing here names a workload or a knob). ")
    for wid in chosen:
        ok = [c for st, c, _ in tables[wid].values() if st == "ok"]
        near = sum(1 for c in ok if c <= optima[wid] * 1.02)
        text += (f"On {wid}, {near} of the {len(ok)} configs that run are within 2 % of the "
                 f"optimum, so random search alone expects about {len(ok) / (near + 1):.0f} "
                 "trials. ")
    text += ("xgb, random and ga propose the same first batch of 32 for a seed (random configs "
             "from the same seeded draw: the model has no data yet), so where random reaches the "
             "target inside that batch no tuner can be 4x faster than it: the 'random >= 4x' and "
             "'xgb <= TPE' targets discriminate only on spaces where near-optimal configs are "
             "rare, which are the conv2d spaces that could not be swept here. Transfer acts from "
             "the first batch, which is where its gain shows; its rank accuracy counts every pair "
             "of held-out configs with different cycles, near-ties included. The features "
             "behind it (docs/tuner_features.md, 'Template features'): the knob values, and "
             "the template's analytic estimate of the config in parts over the layer's roofline "
             "bound, with its on-chip footprint over the target's capacities, which mean the "
             "same on every shape.")
    L += ["", "## Reading", "", text]
    with open(os.path.join(a.out, "REPORT.md"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
