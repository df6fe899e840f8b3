"""The templates' cycles lower bound (autotune/templates/cycles_bound.h) against the timing
simulator: on a seeded sample of valid configs of several conv2d shapes (ResNet-18's and others:
channels not a multiple of the block, strided 1x1 windows that skip rows, rectangular windows)
and targets (one and two compute units), the bound never exceeds the simulated cycles, and its
count of instructions never exceeds the kernel's. And the exact search built on it
(benchmarks/tuner/exact.py) finds the same optimum, and the same configs within 5 % of it, as a
full sweep of a small space.
"""
import os
import random
import sys

import pytest

from tessera import autotune as at
from tessera import npu

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET_DIR = os.path.join(ROOT, "runtime", "npu", "targets")
TARGETS = {n: npu.load_target(os.path.join(TARGET_DIR, n + ".json"))
           for n in ("npu-v1", "npu-8x8")}
Q = dict(multiplier=1 << 14, shift=22)

SHAPES = {
    "resnet_l4_3x3_s2": dict(C=256, H=14, W=14, K=512, R=3, S=3, stride=2, pad=1),
    "resnet_l3_1x1_s2": dict(C=128, H=28, W=28, K=256, R=1, S=1, stride=2, pad=0),
    "odd_channels_3x3": dict(C=20, H=9, W=11, K=40, R=3, S=3, stride=1, pad=1),
    "strided_1x1_skips": dict(C=32, H=13, W=10, K=48, R=1, S=1, stride=3, pad=0),
    "rect_window_s2": dict(C=48, H=12, W=10, K=32, R=3, S=1, stride=2, pad=0),
    "pointwise_s1": dict(C=64, H=7, W=7, K=64, R=1, S=1, stride=1, pad=0),
}
SAMPLES = int(os.environ.get("TESSERA_BOUND_SAMPLES", "8"))


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_conv2d_bound_never_exceeds_the_simulator(shape, target):
    t = TARGETS[target]
    task = at.NpuTask("conv2d", dict(SHAPES[shape], **Q), t, "factors")
    assert task.has_cycles_bound
    configs = at.make_tuner("random", task.tuning, seed=11).propose(SAMPLES)
    configs.append(task.default_config())
    ran = 0
    for c in configs:
        b = task.cycles_bound(c)
        parts = [b[k] for k in ("fetch_chain", "port", "load", "store", "mac", "vector",
                                "compute")]
        assert b["cycles"] == max(parts)
        m = task.measure(c)
        if m["status"] != "ok":
            continue
        ran += 1
        assert b["cycles"] <= m["cycles"], (shape, target, task.to_json(c), b, m["cycles"])
        assert b["work"]["insns"] <= m["insns"], (shape, target, task.to_json(c), b["work"],
                                                  m["insns"])
        # The bound is at least the MAC array's share of the true work.
        assert b["mac"] > 0
    assert ran >= len(configs) // 2


def test_bound_of_every_valid_config_matches_one_at_a_time():
    task = at.NpuTask("conv2d", dict(SHAPES["odd_channels_3x3"], **Q), TARGETS["npu-v1"],
                      "factors")
    idx, bounds = task.valid_bounds()
    assert len(idx) == task.count_valid() and idx == sorted(idx)
    rng = random.Random(3)
    for j in rng.sample(range(len(idx)), 20):
        assert task.cycles_bound(task.config(idx[j]))["cycles"] == bounds[j]


def test_template_without_a_bound_says_so():
    task = at.NpuTask("dense", dict(M=16, K=64, N=32, **Q), TARGETS["npu-v1"], "factors")
    assert not task.has_cycles_bound
    assert task.cycles_bound(task.default_config()) is None
    with pytest.raises(at.ConfigError, match="dense"):
        task.valid_bounds()


def test_exact_search_equals_a_full_sweep(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "tuner"))
    import exact
    shape = dict(C=16, H=4, W=2, K=16, R=3, S=1, stride=1, pad=1)
    task = at.NpuTask("conv2d", dict(shape, **Q), TARGETS["npu-v1"], "factors")
    idx, _ = task.valid_bounds()
    # The reference: every valid config measured.
    full = {}
    for i in idx:
        m = task.measure(task.config(i))
        if m["status"] == "ok":
            full[i] = m["cycles"]
    opt = min(full.values())
    table = exact.ResultTable("small", task, str(tmp_path / "exact.jsonl"), 2)
    r = exact.exact_search("small", task, table, 1.05, 16, float("inf"), log=lambda m: None)
    assert r["complete"] and r["optimum"] == opt
    assert r["measured"] + r["pruned"] == len(idx) and r["pruned"] > 0
    for w in (0.02, 0.05):
        assert r["within"][w] == sum(1 for c in full.values() if c <= opt * (1 + w))
    for i, (status, cycles, _) in table.rows.items():
        if status == "ok":
            assert cycles == full[i]
    # Every config it did not measure is more than 5 % slower than the optimum.
    for i in idx:
        if i not in r["measured_set"] and i in full:
            assert full[i] > 1.05 * opt
    # A rerun resumes from the file: nothing measured again, the same answer.
    table2 = exact.ResultTable("small", task, str(tmp_path / "exact.jsonl"), 2)
    assert table2.resumed == len(table.rows)
    r2 = exact.exact_search("small", task, table2, 1.05, 16, float("inf"), log=lambda m: None)
    assert (r2["optimum"], r2["measured"], r2["within"]) == (r["optimum"], r["measured"],
                                                             r["within"])


def test_a_bound_above_the_measured_cycles_stops_the_search_naming_the_config(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "tuner"))
    import exact
    task = at.NpuTask("conv2d", dict(C=16, H=4, W=2, K=16, R=3, S=1, stride=1, pad=1, **Q),
                      TARGETS["npu-v1"], "factors")
    table = exact.ResultTable("my_layer", task, str(tmp_path / "e.jsonl"), 1)
    i = task.index_of(task.default_config())
    table.measure([i])
    cycles = table.rows[i][1]
    table.bound = lambda index: cycles + 1  # a bound that is not sound
    with pytest.raises(exact.BoundViolation, match="my_layer.*" + str(cycles + 1)) as e:
        table.check(i, cycles)
    assert task.to_json(task.default_config()) in str(e.value)
