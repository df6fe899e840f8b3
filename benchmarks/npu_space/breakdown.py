"""Where a config's cycles go: the timing simulator's per-unit busy and stalled cycles, DDR traffic
and instruction counts, against the layer's true-work bound (MAC, DDR and vector terms).

    PYTHONPATH=python .venv/bin/python benchmarks/npu_space/breakdown.py \\
        [--target runtime/npu/targets/npu-v1.json] LAYER[=CONFIG_JSON] ...

LAYER is a ResNet-18 workload id (benchmarks/workloads/resnet18.json); without a config, the
template's default. Used for benchmarks/npu_space/ANALYSIS.md.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import tessera  # noqa: E402
from tessera import npu  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "npu_resnet18_run", os.path.join(HERE, "..", "npu_resnet18", "run.py"))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)


def breakdown(wl, target, cfg_json=None):
    task = R.task_of(wl, target)
    c = task.default_config() if cfg_json is None else task.config_from_json(cfg_json)
    op = task.build(c)
    f = tessera.build(op.schedule, op.args, target=target, name=wl["id"])
    t, r = f.timing(), f.roofline()
    u = {k: (v["busy_cycles"], v["stalled_cycles"], v["insns"]) for k, v in t["units"].items()}
    return (f"{wl['id']}: {t['cycles']} cycles, bound {r['bound']:.0f} ({r['limited_by']}: MAC "
            f"{r['mac_cycles']:.0f}, DDR {r['ddr_cycles']:.0f}, vector {r['vector_cycles']:.0f}), "
            f"fraction {r['bound'] / t['cycles']:.3f}\n"
            f"  units (busy, stalled, insns): {u}\n"
            f"  DDR read {t['ddr_bytes_read']} written {t['ddr_bytes_written']} port busy "
            f"{t['ddr_port_busy_cycles']}; insns {t['insn_count']}\n"
            f"  config {task.to_json(c)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default=os.path.join(ROOT, "runtime", "npu", "targets",
                                                     "npu-v1.json"))
    ap.add_argument("layers", nargs="+")
    args = ap.parse_args()
    target = npu.load_target(args.target)
    wls = {w["id"]: w for w in json.load(open(os.path.join(HERE, "..", "workloads",
                                                             "resnet18.json")))["workloads"]}
    for a in args.layers:
        wid, _, cfg = a.partition("=")
        print(breakdown(wls[wid], target, cfg or None))


if __name__ == "__main__":
    main()
