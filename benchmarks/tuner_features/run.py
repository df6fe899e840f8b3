"""What the cost model's program features cost and what they are worth.

    PYTHONPATH=python .venv/bin/python benchmarks/tuner_features/run.py

1. Cost: on ResNet-18's 12 workloads built with the operator library's default schedules (conv1
   as the im2col dense of benchmarks/npu_resnet18), the time of each phase of a measurement --
   lower, codegen, timing simulation -- and of the features (loop IR, kernel, both), median of
   several runs. Target: features <= 10 % of a measurement.
2. Worth, and what simulated annealing can afford: on four ResNet-18 conv layers, each a space
   over the library's conv2d parameters (tile_oh, tile_kb, double buffering, fold) swept
   exhaustively, the pairwise rank accuracy on held-out configs of XGBoost rank:pairwise models
   trained on 32 random configs, with knob features only, knob + loop-IR features, and knob +
   loop-IR + kernel features (median of 5 seeds), and across layers (trained on the other three,
   tested on all configs of the held-out one); next to the per-candidate cost of each feature set.
Writes benchmarks/tuner_features/REPORT.md.
"""
import itertools
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tessera  # noqa: E402
from tessera import autotune as at  # noqa: E402
from tessera import npu  # noqa: E402
from tessera._tessera.npu import build_npu  # noqa: E402

MULT, SHIFT = 1 << 14, 22
REPS = 5


def median_time(fn, reps=REPS):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def default_op(wl):
    if wl["op"] == "dense":
        return tessera.npu_ops.dense(M=wl["M"], K=wl["K"], N=wl["N"], multiplier=MULT, shift=SHIFT)
    if wl["id"] == "conv1":  # im2col: one row per output pixel, the window folded into K
        return tessera.npu_ops.dense(M=wl["OH"] * wl["OW"], K=wl["C"] * wl["R"] * wl["S"],
                                     N=wl["K"], multiplier=MULT, shift=SHIFT)
    return tessera.npu_ops.conv2d(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"],
                                  S=wl["S"], stride=wl["stride"], pad=wl["pad"],
                                  multiplier=MULT, shift=SHIFT)


def cost_row(wl):
    op = default_op(wl)
    t_lower, f = median_time(lambda: tessera.lower(op.schedule, op.args, wl["id"], "npu"))
    t_codegen, mod = median_time(lambda: build_npu(f), reps=3)
    k = mod.kernel
    t_sim, _ = median_time(lambda: npu.run_timing(k))
    t_loop, _ = median_time(lambda: at.loop_features(f))
    t_kernel, _ = median_time(lambda: at.kernel_features(k))
    t_feat, _ = median_time(lambda: at.program_features(f, k))
    measure = t_lower + t_codegen + t_sim
    return dict(id=wl["id"], insns=len(k), lower=t_lower, codegen=t_codegen, sim=t_sim,
                loop=t_loop, kernel=t_kernel, features=t_feat, measure=measure,
                ratio=t_feat / measure)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def conv_space(wl):
    oh = wl["OH"]
    block = npu.default_target().mac_in  # the packed layouts' channel block
    kb = (wl["K"] + block - 1) // block
    space = at.ConfigSpace()
    space.add(at.Knob.split("tile_oh", oh, divisors(oh)))
    space.add(at.Knob.split("tile_kb", kb, divisors(kb)))
    space.add(at.Knob.flag("double_buffer"))
    space.add(at.Knob.choice("fold", ["rows", "channels"]))
    return space


def sweep(wl):
    """Every config of the layer's space: knob features, loop features, program features, cycles
    (None when it does not build)."""
    space = conv_space(wl)
    rows = []
    for i in range(space.size):
        c = space.at(i)
        v = space.to_json(c)
        op = tessera.npu_ops.conv2d(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"],
                                    S=wl["S"], stride=wl["stride"], pad=wl["pad"],
                                    multiplier=MULT, shift=SHIFT, tile_oh=v["tile_oh"],
                                    tile_kb=v["tile_kb"], fold=v["fold"], tile_ow=wl["OW"],
                                    tile_cb=-(-wl["C"] // npu.default_target().block), order=["kb", "oh", "ow"],
                                    weights_at="tile", input_load="window",
                                    db_input=v["double_buffer"], db_weights=v["double_buffer"],
                                    db_output=False)
        knob = at.knob_features(space, c)
        try:
            f = tessera.lower(op.schedule, op.args, "main", "npu")
            k = build_npu(f).kernel
            cycles = npu.run_timing(k)["cycles"]
            loop, prog = at.loop_features(f), at.program_features(f, k)
        except tessera.LowerError:
            cycles, loop, prog = None, None, None
        rows.append(dict(knob=knob, loop=loop, prog=prog, cycles=cycles))
    return space, rows


def labels_of(rows):
    best = min(r["cycles"] for r in rows if r["cycles"])
    return [best / r["cycles"] if r["cycles"] else 0.0 for r in rows]


def features_of(r, kind):
    nan = float("nan")
    n_loop = len(at.loop_feature_names())
    n_prog = len(at.program_feature_names())
    if kind == "knob":
        return list(r["knob"])
    if kind == "loop":
        return list(r["knob"]) + (list(r["loop"]) if r["loop"] else [nan] * n_loop)
    return list(r["knob"]) + (list(r["prog"]) if r["prog"] else [nan] * n_prog)


def accuracy(train_rows, test_rows, kind, seed):
    o = at.CostModelOptions()
    o.seed = seed
    m = at.CostModel(o)
    groups = [at.TrainingGroup([features_of(r, kind) for r in g], labels_of(g)) for g in train_rows]
    m.fit(groups)
    ok = [r for r in test_rows if r["cycles"]]
    scores = m.predict([features_of(r, kind) for r in ok])
    best = min(r["cycles"] for r in ok)
    return at.pairwise_rank_accuracy(scores, [best / r["cycles"] for r in ok])


def main():
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    t0 = time.time()
    rows = [cost_row(w) for w in wls]
    study_ids = ["l2_3x3", "l3_3x3_s2", "l3_3x3", "l4_1x1_s2"]
    sweeps = {w["id"]: sweep(w) for w in wls if w["id"] in study_ids}
    kinds = ["knob", "loop", "prog"]
    within = {k: [] for k in kinds}
    for wid, (space, srows) in sweeps.items():
        for seed in range(5):
            rng = random.Random(seed)
            idx = list(range(len(srows)))
            rng.shuffle(idx)
            train = [srows[i] for i in idx[:32]]
            test = [srows[i] for i in idx[32:]]
            for k in kinds:
                within[k].append((wid, accuracy([train], test, k, seed)))
    across = {k: [] for k in kinds}
    for wid in study_ids:
        train = [sweeps[o][1] for o in study_ids if o != wid]
        for k in kinds:
            across[k].append((wid, accuracy(train, sweeps[wid][1], k, 0)))
    elapsed = time.time() - t0

    ms = lambda s: f"{s * 1e3:.2f}"  # noqa: E731
    L = ["# Cost-model features: cost and worth", "",
         f"Written by `PYTHONPATH=python .venv/bin/python benchmarks/tuner_features/run.py` in "
         f"{elapsed:.0f} s (medians of {REPS} runs; codegen of 3).", "",
         "## 1. Cost against a measurement (ResNet-18, library default schedules)", "",
         "A measurement is lower + codegen + timing simulation. Features = loop-IR features + "
         "instruction-stream features (`program_features`).", "",
         "| layer | insns | lower ms | codegen ms | timing ms | measurement ms | loop feat. ms | "
         "kernel feat. ms | features ms | features / measurement |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        L.append(f"| {r['id']} | {r['insns']} | {ms(r['lower'])} | {ms(r['codegen'])} | "
                 f"{ms(r['sim'])} | {ms(r['measure'])} | {ms(r['loop'])} | {ms(r['kernel'])} | "
                 f"{ms(r['features'])} | {100 * r['ratio']:.2f} % |")
    worst = max(r["ratio"] for r in rows)
    L += ["", f"Largest share: **{100 * worst:.2f} %** of a measurement (target <= 10 %): "
          f"{'met' if worst <= 0.10 else 'NOT met'}.", ""]
    tot = {k: sum(r[k] for r in rows) for k in ("lower", "codegen", "sim", "loop", "features")}
    L += [f"Summed over the 12 layers: lower {ms(tot['lower'])} ms, codegen {ms(tot['codegen'])} "
          f"ms, timing {ms(tot['sim'])} ms; loop features {ms(tot['loop'])} ms, all features "
          f"{ms(tot['features'])} ms.", ""]
    space = sweeps[study_ids[0]][0]
    t_knob, _ = median_time(lambda: [at.knob_features(space, space.at(i % space.size))
                                     for i in range(1000)])
    L += ["## 2. Worth, and the cost per simulated-annealing candidate", "",
          f"Per candidate: knob features {t_knob:.4f} ms (1000 configs in {ms(t_knob)} ms); "
          f"loop features need lower() first: {ms(tot['lower'] / 12 + tot['loop'] / 12)} ms on "
          f"average; full features need lower + codegen: "
          f"{ms((tot['lower'] + tot['codegen'] + tot['features']) / 12)} ms on average (a "
          f"measurement: {ms(sum(r['measure'] for r in rows) / 12)} ms).", "",
          "Spaces: the library conv2d's parameters (tile_oh and tile_kb over their divisors, double "
          "buffering, fold), every config built and timed; configs that overflow the on-chip "
          "memories train with label 0 and NaN program features and are not scored.", "",
          "Pairwise rank accuracy on held-out configs (XGBoost rank:pairwise, 60 rounds):", "",
          "| layer | configs (built) | knob | knob + loop IR | knob + loop IR + kernel |",
          "| --- | ---: | ---: | ---: | ---: |"]
    for wid in study_ids:
        srows = sweeps[wid][1]
        built = sum(1 for r in srows if r["cycles"])
        med = {k: statistics.median(a for w, a in within[k] if w == wid) for k in kinds}
        L.append(f"| {wid} (32 trained, median of 5 seeds) | {len(srows)} ({built}) | "
                 f"{med['knob']:.3f} | {med['loop']:.3f} | {med['prog']:.3f} |")
    for wid in study_ids:
        a = {k: dict(across[k])[wid] for k in kinds}
        L.append(f"| {wid} held out (trained on the other 3) | {len(sweeps[wid][1])} | "
                 f"{a['knob']:.3f} | {a['loop']:.3f} | {a['prog']:.3f} |")
    L += [""]
    text = "\n".join(L)
    print(text)
    with open(os.path.join(HERE, "REPORT.md"), "w") as fh:
        fh.write(text + "\n")


if __name__ == "__main__":
    main()
