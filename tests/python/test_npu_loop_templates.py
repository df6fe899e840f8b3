"""The NPU selector's loop templates (codegen/npu/loop_template.h) change nothing: every kernel
(fingerprint, instruction count, cycles) and every error (status and message) is the plain
path's, where each iteration is evaluated (TESSERA_NPU_PLAIN_LOOPS=1), on random configs of every
template (tails, guards that change inside loops, double-buffered and single-buffered copies,
padding) and on random schedules of the schedule fuzzer (built or rejected, the same way)."""
import os
import random

import numpy as np
import pytest
import tessera
from npu_kernel_pins import SMALL, TARGET_DIR, _sample
from npu_schedule_fuzzer import BUILD_ERRORS, Fuzzer, conv2d_case, dense_case

from tessera import autotune, npu


def _both(fn):
    """fn() with loop templates, then on the plain path."""
    os.environ.pop("TESSERA_NPU_PLAIN_LOOPS", None)
    fast = fn()
    os.environ["TESSERA_NPU_PLAIN_LOOPS"] = "1"
    try:
        plain = fn()
    finally:
        os.environ.pop("TESSERA_NPU_PLAIN_LOOPS", None)
    return fast, plain


def _outcome(task, config):
    m = task.measure(config)
    if m["status"] == "ok":
        return ("ok", m["fingerprint"], m["insns"], m["cycles"])
    return (m["status"], m.get("message", ""))


EXTRA = [  # larger loops than the pins' shapes: more iterations to extrapolate
    ("conv2d", dict(C=64, H=28, W=28, K=64, R=3, S=3, stride=1, pad=1, multiplier=16384,
                    shift=22, zero_point=0)),
    ("dense", dict(M=37, K=200, N=90, multiplier=16384, shift=20, zero_point=1)),
]


@pytest.mark.parametrize("tname", ["npu-v1", "npu-8x8"])
def test_templated_loops_give_the_plain_paths_kernels_and_errors(tname):
    target = npu.load_target(os.path.join(TARGET_DIR, tname + ".json"))
    rng = random.Random(f"loop-templates/{tname}")
    compared = big = 0
    for template, args in SMALL + EXTRA:
        task = autotune.NpuTask(template, args, target)
        for c in _sample(task, 4, rng):
            fast, plain = _both(lambda: _outcome(task, c))
            assert fast == plain, f"{tname} {template} {task.to_json(c)}"
            compared += 1
            big += fast[0] == "ok" and fast[2] >= 1000
    assert compared >= 40
    assert big >= 5  # kernels with loops long enough to be extrapolated


def test_random_schedules_build_and_fail_the_same_way_with_loop_templates():
    fz = Fuzzer(20261203)
    r = fz.rng
    same = 0
    for i in range(60):
        case = dense_case(r) if i % 2 == 0 else conv2d_case(r)
        s = fz.random_schedule(case)
        inputs, out, _ = case.data(np.random.default_rng(i))

        def run():
            try:
                f = tessera.build(s, case.args, target="npu", name=f"loops{i}")
            except BUILD_ERRORS as e:
                return (type(e).__name__, str(e))
            y = out.copy()
            f(*inputs, y)
            return ("ok", y.tobytes())

        fast, plain = _both(run)
        assert fast == plain, "\n  ".join(fz.log)
        same += 1
        fz.log = []
    assert same == 60
