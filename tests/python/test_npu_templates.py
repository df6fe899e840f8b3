"""The tunable NPU templates (tessera.autotune): for every template, several shapes and two
targets, a seeded sample of configs is drawn from the template's space; every config must
round-trip index -> config -> JSON -> config -> index, and either build and run bit-exact on the
functional simulator against the numpy references of test_npu_ops (independent of the library),
or be rejected with a classified error before simulation (ScheduleError: an invalid config, such
as a fold that does not apply to the shape; LowerError naming the overflow: the config does not
fit on chip). Never anything else. The cheap validity check (the footprint computed from the
knobs, and the knob combinations the template cannot build) must agree with the verdict of the
schedule and the allocator on at least 99 % of the sample; the disagreements are printed
(pytest -s).

Targets: npu-v1, and npu-tiny (npu-v1 with 8 KiB of SRAM and 2 KiB of accumulator) on which most
configs overflow, so that both verdicts are exercised.

The default run (CI) draws 200 configs per template, shape and target. A bigger run, with more
configs and the 8 x 8 and 32 x 32 targets as well:
    TESSERA_TEMPLATE_SAMPLES=1000 TESSERA_TEMPLATE_TARGETS=all \\
        PYTHONPATH=python .venv/bin/python -m pytest -q -s tests/python/test_npu_templates.py
"""
import json
import os
import random

import numpy as np
import pytest

import tessera
from tessera import autotune, npu
from tessera import npu_layout as L

import test_npu_ops as T

SAMPLES = int(os.environ.get("TESSERA_TEMPLATE_SAMPLES", "200"))


def _tiny_target():
    d = json.loads(npu.default_target().to_json())
    d.update(name="npu-tiny", sram_bytes=8 * 1024, acc_bytes=2 * 1024)
    return npu.parse_target(json.dumps(d), "npu-tiny.json")


TARGETS = {"npu-v1": T.TARGETS["npu-v1"], "npu-tiny": _tiny_target()}
if os.environ.get("TESSERA_TEMPLATE_TARGETS") == "all":
    TARGETS.update({n: T.TARGETS[n] for n in ("npu-8x8", "npu-32x32")})


def q(n):
    return dict(multiplier=T.MULT, shift=T.shift_for(n), zero_point=-3)


# Shapes: sizes that are not multiples of any block, strided and padded windows, a 1x1 stride-2
# conv (strided loads), an RGB-like conv for the im2col path.
CASES = [
    ("conv2d", dict(C=20, H=9, W=8, K=40, R=3, S=3, stride=1, pad=1, **q(180))),
    ("conv2d", dict(C=40, H=10, W=12, K=20, R=1, S=1, stride=2, pad=0, **q(40))),
    ("conv2d", dict(C=5, H=11, W=9, K=17, R=5, S=5, stride=2, pad=2, relu=True, **q(125))),
    ("conv2d_im2col", dict(C=3, H=16, W=15, K=20, R=7, S=7, stride=2, pad=3, **q(147))),
    ("conv2d_im2col", dict(C=5, H=8, W=7, K=9, R=3, S=3, stride=1, pad=1, **q(45))),
    ("depthwise_conv2d", dict(C=40, H=9, W=10, R=3, S=3, stride=1, pad=1, **q(9))),
    ("depthwise_conv2d", dict(C=20, H=11, W=9, R=3, S=3, stride=2, pad=1, mapping="diagonal_gemm",
                              **q(9))),
    ("dense", dict(M=45, K=70, N=40, **q(70))),
    ("dense", dict(M=1, K=200, N=100, relu=True, **q(200))),
    ("max_pool2d", dict(C=40, H=12, W=11, R=3, S=3, stride=2, pad=1)),
    ("max_pool2d", dict(C=20, H=8, W=9, R=2, S=2, stride=2, pad=0)),
    ("add", dict(C=40, H=9, W=7)),
    ("add", dict(C=20, H=5, W=13, relu=True)),
]


def out_hw(a):
    return ((a["H"] + 2 * a["pad"] - a["R"]) // a["stride"] + 1,
            (a["W"] + 2 * a["pad"] - a["S"]) // a["stride"] + 1)


def run_and_reference(task, f, rng, target):
    """Runs module f on random inputs; returns (output, numpy reference), both unpacked."""
    a, t = task.args, task.template
    rq = (lambda acc: T.ref_requantize(acc, a["multiplier"], a["shift"], a["zero_point"],
                                       a["relu"]))
    if t in ("conv2d", "conv2d_im2col"):
        x = T.rand_int8(rng, (a["C"], a["H"], a["W"]))
        w = T.rand_int8(rng, (a["K"], a["C"], a["R"], a["S"]))
        OH, OW = out_hw(a)
        ref = rq(T.ref_conv2d(x, w, a["stride"], a["pad"]))
        if t == "conv2d":
            y = np.zeros(L.activation_shape(a["K"], OH, OW, target), np.int8)
            f(L.pack_activation(x, target), L.pack_conv_weight(w, target), y)
            return L.unpack_activation(y, a["K"]), ref
        y = np.zeros(L.dense_output_shape(OH * OW, a["K"], target), np.int8)
        f(L.pack_im2col_input(x, a["R"], a["S"], a["stride"], a["pad"], target),
          L.pack_im2col_weight(w, target), y)
        return L.unpack_im2col_output(y, a["K"], OH, OW), ref
    if t == "depthwise_conv2d":
        x = T.rand_int8(rng, (a["C"], a["H"], a["W"]))
        w = T.rand_int8(rng, (a["C"], a["R"], a["S"]))
        OH, OW = out_hw(a)
        y = np.zeros(L.activation_shape(a["C"], OH, OW, target), np.int8)
        pack = (L.pack_depthwise_weight_diagonal if a["mapping"] == "diagonal_gemm"
                else L.pack_depthwise_weight)
        f(L.pack_activation(x, target), pack(w, target), y)
        return L.unpack_activation(y, a["C"]), rq(T.ref_depthwise(x, w, a["stride"], a["pad"]))
    if t == "dense":
        x = T.rand_int8(rng, (a["M"], a["K"]))
        w = T.rand_int8(rng, (a["N"], a["K"]))
        y = np.zeros(L.dense_output_shape(a["M"], a["N"], target), np.int8)
        f(L.pack_dense_input(x, target), L.pack_dense_weight(w, target), y)
        return L.unpack_dense_output(y, a["N"]), rq(T.ref_dense(x, w))
    if t == "max_pool2d":
        x = T.rand_int8(rng, (a["C"], a["H"], a["W"]))
        OH, OW = out_hw(a)
        y = np.zeros(L.activation_shape(a["C"], OH, OW, target), np.int8)
        f(L.pack_activation(x, target), y)
        ref = T.ref_max_pool(x, a["R"], a["S"], a["stride"], a["pad"]).astype(np.int8)
        return L.unpack_activation(y, a["C"]), ref
    assert t == "add", t
    x, z = T.rand_int8(rng, (a["C"], a["H"], a["W"])), T.rand_int8(rng, (a["C"], a["H"], a["W"]))
    y = np.zeros(L.activation_shape(a["C"], a["H"], a["W"], target), np.int8)
    f(L.pack_activation(x, target), L.pack_activation(z, target), y)
    ref = np.clip(x.astype(np.int64) + z.astype(np.int64), -128, 127)
    if a["relu"]:
        ref = np.maximum(ref, 0)
    return L.unpack_activation(y, a["C"]), ref.astype(np.int8)


def test_every_template_is_in_the_table_and_has_cases_here():
    names = [t["name"] for t in autotune.templates()]
    assert names == ["conv2d", "conv2d_im2col", "depthwise_conv2d", "dense", "max_pool2d", "add"]
    assert {c[0] for c in CASES} == set(names)


@pytest.mark.parametrize("target_name", list(TARGETS))
@pytest.mark.parametrize("template,args", CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CASES)])
def test_sampled_configs_round_trip_and_build_bit_exact_or_are_rejected(template, args,
                                                                         target_name):
    target = TARGETS[target_name]
    task = autotune.NpuTask(template, args, target)
    seed = f"{template}{sorted(args.items())}{target_name}"
    r = random.Random(seed)
    counts = {"exact": 0, "invalid_config": 0, "overflow": 0}
    disagree = []
    for _ in range(SAMPLES):
        index = r.randrange(task.space_size)
        cfg = task.config(index)
        text = task.to_json(cfg)
        again = task.config_from_json(text)
        assert again == cfg and task.index_of(again) == index and task.to_json(again) == text
        assert task.index_of(task.config_from_json(json.loads(text))) == index
        check = task.is_valid(cfg)
        try:
            op = task.build(cfg)
            f = tessera.build(op.schedule, op.args, target=target)
        except tessera.ScheduleError as e:
            counts["invalid_config"] += 1
            assert "npu_" in str(e) or "stage" in str(e), e
            if check:
                disagree.append((text, "the check passes it, the schedule rejects it", str(e)))
            continue
        except tessera.LowerError as e:
            assert "overflow" in str(e) and "available" in str(e), f"{text}: {e}"
            counts["overflow"] += 1
            if check:
                disagree.append((text, "the check passes it, the allocator overflows", str(e)))
            continue
        if not check:
            disagree.append((text, "the check rejects it, the allocator fits it",
                             str(task.footprint(cfg))))
        out, ref = run_and_reference(task, f, np.random.default_rng(index), target)
        bad = np.argwhere(out != ref)
        assert bad.size == 0, f"{text}: {len(bad)} of {ref.size} elements differ"
        counts["exact"] += 1
    for d in disagree:
        print("disagreement:", task.key, target_name, *d)
    print(f"{template} {target_name} {args}: {counts}, {len(disagree)} disagreements")
    assert len(disagree) <= SAMPLES // 100, disagree
    assert counts["exact"] > 0  # every sample must build something somewhere


@pytest.mark.parametrize("template,args", CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CASES)])
def test_the_default_is_a_valid_point_of_the_space_and_runs_bit_exact(template, args):
    target = TARGETS["npu-v1"]
    task = autotune.NpuTask(template, args, target)
    d = task.default_config()
    assert 0 <= task.index_of(d) < task.space_size and task.is_valid(d)
    op = task.build(d)
    out, ref = run_and_reference(task, tessera.build(op.schedule, op.args, target=target),
                                 np.random.default_rng(5), target)
    assert np.array_equal(out, ref)


# ---- layers that used to overflow with the fixed max-pool and add defaults ------------------

@pytest.mark.parametrize("template,args", [
    ("max_pool2d", dict(C=64, H=112, W=112, R=3, S=3, stride=2, pad=1)),  # ResNet-18's stem pool
    ("max_pool2d", dict(C=64, H=224, W=224, R=2, S=2, stride=2, pad=0)),  # VGG-16's pool1
    ("add", dict(C=64, H=112, W=112)),
], ids=["resnet18-stem-pool", "vgg16-pool1", "add-64x112x112"])
def test_large_layers_build_with_their_defaults_and_run_bit_exact(template, args):
    target = TARGETS["npu-v1"]
    task = autotune.NpuTask(template, args, target)
    d = task.default_config()
    assert task.is_valid(d), task.footprint(d)
    op = task.build(d)
    f = tessera.build(op.schedule, op.args, target=target)
    out, ref = run_and_reference(task, f, np.random.default_rng(2), target)
    assert np.array_equal(out, ref)
    # Memory-bound layers: the default keeps the DDR port busy (at least half the bound).
    r = f.roofline()
    assert r["fraction"] > 0.5, r
