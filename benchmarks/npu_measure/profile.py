"""A fixed set of NPU measurements to run under callgrind, where instruction counts compare
branches on a shared machine (wall-clock does not):

    PYTHONPATH=python valgrind --tool=callgrind \\
        --toggle-collect='tessera::measure_npu_detailed*' --callgrind-out-file=/tmp/npu.cg \\
        .venv/bin/python benchmarks/npu_measure/profile.py \\
        [--target runtime/npu/targets/npu-8x8.json] \\
        [--samples 4] [--seed 2026] [--only l4_3x3 ...]
    callgrind_annotate --inclusive=yes /tmp/npu.cg | head -60

Per workload: the default config and the first --samples sampled valid configs of run.py's sample
(same seed, so the same configs as the first rows run.py measures), each measured once. Only
measure_npu_detailed is collected (construct + lower + codegen + fingerprint + timing simulation),
not Python or the sampling. Prints one line per measurement (instructions, cycles, kernel
fingerprint) so two builds can also be compared for equal results.

The Python module is stripped, so its profile names only exported functions; for every function
by name, dump the set and run the C++ driver (npu_measure_profile.cpp, built with
-DTESSERA_BUILD_BENCHMARKS=ON from the same sources, not stripped) instead:

    PYTHONPATH=python .venv/bin/python benchmarks/npu_measure/profile.py --dump /tmp/set.jsonl
    valgrind --tool=callgrind --toggle-collect='tessera::measure_npu_detailed*' \\
        build/benchmarks/npu_measure/npu_measure_profile /tmp/set.jsonl
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

from tessera import npu  # noqa: E402
from run import sample, task_of  # noqa: E402


def main():
    p = argparse.ArgumentParser(description="fixed NPU measurements for callgrind")
    p.add_argument("--target", default=os.path.join(ROOT, "runtime", "npu", "targets",
                                                    "npu-v1.json"))
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--only", action="append", default=[], help="a workload id; repeat")
    p.add_argument("--dump", help="write the measurements as JSON lines ({key, target, index}) "
                   "for build/benchmarks/npu_measure/npu_measure_profile instead of measuring")
    p.add_argument("--times", action="store_true",
                   help="also print each measurement's lower and codegen wall-clock (a quick "
                   "look on a quiet machine)")
    args = p.parse_args()
    dump = open(args.dump, "w") if args.dump else None
    target = npu.load_target(args.target)
    wls = json.load(open(os.path.join(HERE, "..", "workloads", "resnet18.json")))["workloads"]
    if args.only:
        wls = [w for w in wls if w["id"] in args.only]
    for wl in wls:
        task = task_of(wl, target)
        rng = random.Random(f"{args.seed}/{target.name}/{wl['id']}")
        for k, c in enumerate(sample(task, args.samples, rng)):
            if dump:
                dump.write(json.dumps({"key": task.key, "target": os.path.abspath(args.target),
                                       "index": task.index_of(c)}) + "\n")
                continue
            m = task.measure(c)
            times = (f" lower {m['lower_us']:.0f} us codegen {m['codegen_us']:.0f} us"
                     if args.times and m["status"] == "ok" else "")
            print(f"{target.name} {wl['id']} #{k}: {m['status']} insns {m['insns']} "
                  f"cycles {m.get('cycles')} fingerprint {m.get('fingerprint')}{times}", flush=True)


if __name__ == "__main__":
    main()
