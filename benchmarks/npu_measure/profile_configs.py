"""A fixed set of NPU measurements to profile (not a benchmark: it prints no times unless asked).

    PYTHONPATH=python valgrind --tool=callgrind --toggle-collect='tessera::measure_npu_detailed*' \\
        --callgrind-out-file=/tmp/cg.out .venv/bin/python benchmarks/npu_measure/profile_configs.py
    callgrind_annotate --inclusive=yes /tmp/cg.out | grep -E 'measure_npu_detailed|lower\\('

Measures, once each, the default config plus the first --samples configs that run.py samples with
the same --seed, on each of ResNet-18's 12 workloads (npu-v1 unless --target): with the defaults,
the 60 configs the instruction counts in REPORT.md's hand-written sections are taken over.
--times prints each measurement's phases (wall-clock, for a quick look on a quiet machine).
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

from run import sample, task_of  # noqa: E402
from tessera import npu  # noqa: E402


def main():
    p = argparse.ArgumentParser(description="measure a fixed set of NPU configs once each")
    p.add_argument("--target", default=os.path.join(ROOT, "runtime", "npu", "targets",
                                                    "npu-v1.json"))
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--only", action="append", default=[], help="a workload id; repeat")
    p.add_argument("--times", action="store_true", help="print each measurement's phases")
    args = p.parse_args()
    target = npu.load_target(args.target)
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    for wl in wls:
        if args.only and wl["id"] not in args.only:
            continue
        task = task_of(wl, target)
        rng = random.Random(f"{args.seed}/{target.name}/{wl['id']}")
        for i, c in enumerate(sample(task, args.samples, rng)):
            m = task.measure(c)
            if m["status"] != "ok":
                print(f"{wl['id']} #{i}: {m['status']}", flush=True)
            elif args.times:
                print(f"{wl['id']} #{i}: lower {m['lower_us']:.0f} us, codegen "
                      f"{m['codegen_us']:.0f} us, {m['insns']} insns", flush=True)


if __name__ == "__main__":
    main()
