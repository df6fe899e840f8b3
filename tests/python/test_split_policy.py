"""The 'factors' split policy of the NPU templates' tasks (config_space.h, npu_task.h): every split
knob keeps only the candidates of the full space that divide its extent, the other knobs stay,
the policy is named in the task key (so logs of the two spaces never mix) and read back from it,
configs round-trip, the default is a valid point of the smaller space, and a config of the
factors space builds the same kernel (same cycles) as the same knob values in the full space."""
import math

import pytest

from tessera import autotune as at

MULT, SHIFT = 1 << 14, 22
FC = dict(M=1, K=512, N=1000, multiplier=MULT, shift=SHIFT)
CONV = dict(C=32, H=14, W=14, K=48, R=3, S=3, stride=2, pad=1, multiplier=MULT, shift=SHIFT)
CASES = [("dense", FC), ("conv2d", CONV)]


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


@pytest.mark.parametrize("tmpl,args", CASES)
def test_factors_space_keeps_the_divisor_candidates_and_every_other_knob(tmpl, args):
    full = at.NpuTask(tmpl, args)
    fac = at.NpuTask(tmpl, args, split_policy="factors")
    assert full.split_policy == "all" and fac.split_policy == "factors"
    size = 1
    for kf, kd in zip(full.knobs, fac.knobs):
        assert kf["name"] == kd["name"] and kf["kind"] == kd["kind"]
        if kf["kind"] == "split":
            assert kd["domain"] == [f for f in kf["domain"] if f in divisors(kf["extent"])]
            assert kd["allow_tails"] is False
        else:
            assert kd["domain"] == kf["domain"]
        size *= len(kd["domain"])
    assert len(fac.knobs) == len(full.knobs)
    assert fac.space_size == size < full.space_size


@pytest.mark.parametrize("tmpl,args", CASES)
def test_policy_is_in_the_key_and_read_back(tmpl, args):
    full = at.NpuTask(tmpl, args)
    fac = at.NpuTask(tmpl, args, split_policy="factors")
    assert "split_policy" not in full.key
    assert fac.key == dict(full.key, split_policy="factors")
    again = at.NpuTask.from_key(fac.key_text)
    assert again.key_text == fac.key_text and again.space_size == fac.space_size
    assert at.npu_tuning_task(fac.key).space.size == fac.space_size
    assert at.NpuTask.from_key(full.key).space_size == full.space_size
    for i in range(0, fac.space_size, max(1, fac.space_size // 97)):
        c = fac.config(i)
        assert again.index_of(again.config_from_json(fac.to_json(c))) == i


def test_default_is_valid_and_every_sampled_config_divides_its_extents():
    for tmpl, args in CASES:
        fac = at.NpuTask(tmpl, args, split_policy="factors")
        d = fac.default_config()
        assert fac.is_valid(d)
        extents = {k["name"]: k["extent"] for k in fac.knobs if k["kind"] == "split"}
        tuner = at.make_tuner("random", fac.tuning, seed=3)
        for c in [d] + tuner.propose(40):
            assert fac.is_valid(c)
            v = fac.values(c)
            assert all(e % v[n] == 0 for n, e in extents.items()), v


def test_a_factors_config_measures_as_the_same_values_in_the_full_space():
    full = at.NpuTask("dense", FC)
    fac = at.NpuTask("dense", FC, split_policy="factors")
    configs = [fac.default_config()] + at.make_tuner("random", fac.tuning, seed=5).propose(3)
    for c in configs:
        a = fac.measure(c)
        b = full.measure(full.config_from_json(fac.to_json(c)))
        assert a["status"] == "ok" and b["status"] == "ok"
        assert a["cycles"] == b["cycles"] and a["fingerprint"] == b["fingerprint"]
    assert math.isfinite(a["bound"]) and a["bound"] > 0


def test_unknown_policy_is_rejected_naming_the_legal_ones():
    with pytest.raises(at.ConfigError, match="'power2'.*factors"):
        at.NpuTask("dense", FC, split_policy="power2")
    key = dict(at.NpuTask("dense", FC).key, split_policy="divisors")
    with pytest.raises(at.ConfigError, match="'divisors'"):
        at.NpuTask.from_key(key)
