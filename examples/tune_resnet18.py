"""The main job, tuning part: tunes one ResNet-18 layer for a short budget with the xgb tuner
(a progress bar per task on stderr), then builds all 12 ResNet-18 layers from the committed
tuning log (tuning_logs/npu-v1/resnet18.jsonl, strict replay through apply_history_best) and
prints each layer's cycles and fraction of its true-work bound against its default config.

    python examples/tune_resnet18.py [--layer l2_1x1_s2] [--trials 24]
"""
import argparse
import json
import os
import statistics
import tempfile
import time
import warnings

import tessera
from tessera import autotune as at

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
WORKLOADS = os.path.join(ROOT, "benchmarks", "workloads", "resnet18_tasks.json")
LOG = os.path.join(ROOT, "tuning_logs", "npu-v1", "resnet18.jsonl")
OPS = {"conv2d": tessera.npu_ops.conv2d, "conv2d_im2col": tessera.npu_ops.conv2d_im2col,
       "dense": tessera.npu_ops.dense}

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--layer", default="l2_1x1_s2", help="the layer to tune (default l2_1x1_s2)")
parser.add_argument("--trials", type=int, default=24, help="its budget (default 24)")
args = parser.parse_args()

# 1. Tune one layer: a workloads file of that one task, a fresh log, two measurement workers.
with open(WORKLOADS) as fh:
    spec = json.load(fh)
spec["tasks"] = [t for t in spec["tasks"] if t["id"] == args.layer]
if not spec["tasks"]:
    raise SystemExit(f"no layer '{args.layer}' in {WORKLOADS}")
tmp = tempfile.mkdtemp(prefix="tessera_tune_")
one = os.path.join(tmp, "one_layer.json")
with open(one, "w") as fh:
    json.dump(spec, fh)
t0 = time.monotonic()
(r,) = at.tune_workloads(one, trials=args.trials, tuner="xgb", seed=1, batch_size=8, workers=2,
                         log=os.path.join(tmp, "tuning.jsonl"), progress=True)
best = r.report.best.result.cycles
print(f"tuned {r.id} in {time.monotonic() - t0:.1f} s: {r.default_result.cycles} cycles with the "
      f"default config ({r.bound_cycles / r.default_result.cycles:.3f} of the true-work bound), "
      f"{best} tuned ({r.bound_cycles / best:.3f}) after {len(r.report.trials)} trials")

# 2. All 12 layers from the committed log, against their defaults.
def cycles(template, task_args):
    op = OPS[template](**task_args)
    return tessera.build(op.schedule, op.args, target="npu").timing()["cycles"]


print(f"\nResNet-18 on npu-v1 from {os.path.relpath(LOG, ROOT)} (strict replay):")
print(f"{'layer':<10} {'default':>9} {'fraction':>8} {'tuned':>9} {'fraction':>8} {'speed-up':>8}")
workloads = at.load_workloads(WORKLOADS)
with open(WORKLOADS) as fh:
    entries = {t["id"]: t for t in json.load(fh)["tasks"]}
fractions = []
for wid, task in workloads.tasks:
    e = entries[wid]
    bound = at.task_bound_cycles(task)
    default = cycles(e["template"], e["args"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a task without a record would be a failure here
        with at.apply_history_best(LOG, strict=True):
            tuned = cycles(e["template"], e["args"])
    fractions.append(bound / tuned)
    print(f"{wid:<10} {default:>9} {bound / default:>8.3f} {tuned:>9} {bound / tuned:>8.3f} "
          f"{default / tuned:>7.3f}x")
print(f"tuned: median fraction of the true-work bound {statistics.median(fractions):.3f}, "
      f"minimum {min(fractions):.3f}")
