"""The NPU templates' features for the cost model (autotune/templates/template_features.h,
docs/tuner_features.md "Template features"): an NPU task's features are its knob features followed
by its template's; they are ratios to the layer's bound and the target's capacities, checked here
against the task's own footprint and measurement, and they cost a tiny share of a measurement."""
import json
import os
import random
import statistics
import time

import pytest

from tessera import autotune as at
from tessera import npu

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "tuner_features.md")
T = npu.default_target()
Q = dict(multiplier=1 << 14, shift=22)
CONV = dict(C=128, H=14, W=14, K=128, R=3, S=3, stride=1, pad=1, **Q)
TASKS = {
    "conv2d": ("conv2d", CONV),
    "dense": ("dense", dict(M=8, K=256, N=96, **Q)),
    "conv2d_im2col": ("conv2d_im2col", dict(C=3, H=32, W=32, K=64, R=3, S=3, stride=2, pad=1, **Q)),
}


def task(name, policy="factors"):
    tmpl, args = TASKS[name]
    return at.NpuTask(tmpl, args, T, policy)


def valid_configs(t, n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        c = t.config(rng.randrange(t.space_size))
        if t.is_valid(c):
            out.append(c)
    return out


def named(t, c):
    f = t.tuning.features(c)
    knob = at.knob_features(t.space, c)
    names = at.template_feature_names()
    assert len(f) == len(knob) + len(names)
    assert f[:len(knob)] == pytest.approx(knob)
    return dict(zip(names, f[len(knob):]))


def test_names_are_unique_and_documented():
    names = at.template_feature_names()
    assert len(names) == len(set(names)) and names
    doc = open(DOC).read()
    for n in names:
        assert f"| `{n}` |" in doc, n


@pytest.mark.parametrize("name", sorted(TASKS))
def test_footprint_shares_and_the_estimate_against_the_task(name):
    t = task(name)
    for c in valid_configs(t, 12, 3):
        f = named(t, c)
        fp = t.footprint(c)
        assert f["model.sram"] == pytest.approx(fp["sram_rows"] / fp["sram_capacity_rows"])
        assert f["model.acc"] == pytest.approx(fp["acc_rows"] / fp["acc_capacity_rows"])
        assert 0 < f["model.sram"] <= 1 and 0 < f["model.acc"] <= 1  # valid: it fits
        # the total is at least its busiest part, each part non-negative
        parts = ["model.compute", "model.load", "model.store", "model.port"]
        assert all(f[p] >= 0 for p in parts + ["model.gemm", "model.vector", "model.fill"])
        assert f["model.cycles"] >= max(f[p] for p in parts) * (1 - 1e-6)
        assert 0 <= f["model.gemm_fixed"] < 1
        knobs = json.loads(t.to_json(c))
        assert f["model.overlapped"] == float(knobs["db_input"] and knobs["db_weights"])


def test_the_estimate_is_relative_to_the_layers_bound():
    """model.cycles of a config is its estimate over the layer's roofline bound, so it cannot be
    far below 1 (the bound is what no schedule beats) and tracks measured cycles / bound."""
    t = task("conv2d")
    configs = valid_configs(t, 24, 5)
    est, meas = [], []
    for c in configs:
        m = t.measure(c)
        if m["status"] != "ok":
            continue
        f = named(t, c)
        assert f["model.cycles"] > 0.8
        est.append(f["model.cycles"])
        meas.append(m["cycles"] / m["bound"])
    assert len(est) >= 12
    # ranks configs as the simulator does, far better than chance
    acc = at.pairwise_rank_accuracy([-e for e in est], [1 / x for x in meas])
    assert acc > 0.75


def test_templates_without_a_featurizer_keep_the_knob_features():
    t = at.NpuTask("max_pool2d", dict(C=64, H=16, W=16, R=2, S=2, stride=2, pad=0), T)
    c = t.default_config()
    assert t.tuning.features(c) == pytest.approx(at.knob_features(t.space, c))


def test_they_cost_a_tiny_share_of_a_measurement():
    """The xgb tuner scores thousands of candidates per batch with them: under 1 % of a
    measurement per config (the issue allows 10 % for all features)."""
    t = task("conv2d", "all")
    configs = valid_configs(t, 200, 9)
    a = time.perf_counter()
    for c in configs:
        t.tuning.features(c)
    per_config = (time.perf_counter() - a) / len(configs)
    meas = []
    for c in configs[:5]:
        a = time.perf_counter()
        t.measure(c)
        meas.append(time.perf_counter() - a)
    assert per_config <= 0.01 * statistics.median(meas), (per_config, meas)
