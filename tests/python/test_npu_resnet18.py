"""ResNet-18's 12 workloads build with the operator library's default schedules on each committed
target, run on the functional simulator and match numpy bit for bit; double buffering overlaps a
memory-bound layer.
(The figures against the roofline are the benchmark's job: benchmarks/npu_resnet18/run.py.)"""
import importlib.util
import json
import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "benchmarks", "npu_resnet18", "run.py")
spec = importlib.util.spec_from_file_location("npu_resnet18_run", BENCH)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

WORKLOADS = json.load(open(os.path.join(HERE, "..", "..", "benchmarks", "workloads",
                                        "resnet18.json")))["workloads"]


TARGETS = ["npu-v1", "npu-8x8", "npu-32x32"]


@pytest.mark.parametrize("target_name", TARGETS)
@pytest.mark.parametrize("wl", WORKLOADS, ids=[w["id"] for w in WORKLOADS])
def test_resnet18_layer_builds_runs_and_is_bit_exact(wl, target_name):
    from tessera import npu
    target = npu.load_target(os.path.join(HERE, "..", "..", "runtime", "npu", "targets",
                                          target_name + ".json"))
    row = bench.run_layer(wl, np.random.default_rng(7), target)
    assert row["ok"], f"{wl['id']} on {target_name}: NPU result differs from numpy"
    # A simulated run can never beat the physical bound of the true work on that target.
    assert row["cycles"] >= row["bound"]
    assert 0 < row["frac"] <= 1
    # The bound is the layer's true work: the workload's MACs, not the padded kernel's.
    assert row["true_macs"] == wl["MACs"]


def test_double_buffering_overlaps_a_memory_bound_layer():
    cycles = bench.double_buffer_row()
    assert cycles[True] <= 0.7 * cycles[False], cycles
