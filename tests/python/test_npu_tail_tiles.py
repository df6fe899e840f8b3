"""A tile that a split's tail cuts short costs what its size says: its DMAs move its smaller region
in as many transfers as a full tile's, not one transfer per row of the loop the tail guards.

For configs of the NPU templates, each split knob is set to a value that leaves a tail (T does not
divide the extent) and to one that divides the extent into the same number of tiles (D); the
tail's kernel must issue no more DMA loads than the dividing one's (the tiles are the same in
number, and each tile is at most as large). Before tails were folded into the DMA's rows and
columns, a weight tile whose output-channel split had a tail was loaded one channel block at a
time (npu-8x8, l4_3x3: 347,648 loads instead of 14,336, 6.7x the cycles). Tail kernels also run
bit-exact against numpy on the functional simulator.
"""
import json
import math
import random

import numpy as np
import pytest

import tessera
from tessera import autotune

import test_npu_ops as T
import test_npu_templates as NT

Q = dict(multiplier=T.MULT, shift=T.shift_for(9), zero_point=-3)
CASES = [
    ("conv2d", dict(C=96, H=9, W=10, K=96, R=3, S=3, stride=1, pad=1, **Q)),
    ("conv2d", dict(C=64, H=12, W=12, K=80, R=1, S=1, stride=2, pad=0, **Q)),
    ("dense", dict(M=12, K=192, N=192, **Q)),
]


def dma_loads(task, config, target):
    op = task.build(config)
    kernel = tessera.build(op.schedule, op.args, target=target, name="k").kernel
    return sum(1 for line in kernel.disassemble() if line.startswith("load "))


def tail_pairs(task, base):
    """(knob, tail config, dividing config) for each split knob of `base` and each tail value
    that has a dividing value with the same number of tiles; both valid."""
    for knob in task.knobs:
        if knob["kind"] != "split":
            continue
        extent = knob["extent"]
        for t in knob["domain"]:
            if extent % t == 0:
                continue
            same = [d for d in knob["domain"] if extent % d == 0 and extent // d == math.ceil(
                extent / t)]
            if not same:
                continue
            a, b = dict(base), dict(base)
            a[knob["name"]], b[knob["name"]] = t, same[0]
            ca = task.config_from_json(json.dumps(a))
            cb = task.config_from_json(json.dumps(b))
            if task.is_valid(ca) and task.is_valid(cb):
                yield knob["name"], ca, cb


def valid_bases(task, seed):
    """Valid configs drawn uniformly by index (seeded), as JSON dicts, endlessly."""
    rng = random.Random(seed)
    while True:
        c = task.config(rng.randrange(task.space_size))
        if task.is_valid(c):
            yield json.loads(task.to_json(c))


@pytest.mark.parametrize("target_name", ["npu-v1", "npu-8x8"])
@pytest.mark.parametrize("template,args", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_tail_tile_needs_no_more_dma_loads_than_a_full_one(template, args, target_name):
    target = T.TARGETS[target_name]
    task = autotune.NpuTask(template, args, target)
    pairs, worse = 0, []
    bases = valid_bases(task, f"tails/{template}/{target_name}/{sorted(args.items())}")
    for _ in range(5):
        for name, tail, dividing in tail_pairs(task, next(bases)):
            pairs += 1
            lt, ld = dma_loads(task, tail, target), dma_loads(task, dividing, target)
            if lt > ld:
                worse.append((name, lt, ld, task.to_json(tail)))
    assert pairs >= 5, "the sample must exercise tails"
    assert not worse, f"{len(worse)} of {pairs} tail configs load more often, first: {worse[:3]}"


@pytest.mark.parametrize("target_name", ["npu-v1", "npu-8x8"])
@pytest.mark.parametrize("template,args", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_tail_kernels_run_bit_exact(template, args, target_name):
    target = T.TARGETS[target_name]
    task = autotune.NpuTask(template, args, target)
    bases = valid_bases(task, f"tail-exact/{template}/{target_name}/{sorted(args.items())}")
    ran = 0
    while ran < 3:
        for _, tail, _ in tail_pairs(task, next(bases)):
            op = task.build(tail)
            f = tessera.build(op.schedule, op.args, target=target)
            out, ref = NT.run_and_reference(task, f, np.random.default_rng(ran), target)
            assert np.array_equal(out, ref), task.to_json(tail)
            ran += 1
            break
