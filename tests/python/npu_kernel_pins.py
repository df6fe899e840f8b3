"""Pins of the NPU kernels the templates emit: for a seeded sample of configs of every template on
several shapes (the shapes of test_npu_templates, ResNet-18's 12 layers) and every committed
target, the kernel fingerprint (FNV-1a of the kernel bytes with the name cleared, as the tuner's
duplicate detection computes it) or the classified error with its message.

Code generation that only gets faster must leave every pin as it is (test_npu_kernel_pins.py).
A change that means to change the instruction stream rewrites the pins deliberately, after the
kernels were shown bit-exact (test_npu_templates, the schedule fuzzer):
    PYTHONPATH=python .venv/bin/python tests/python/npu_kernel_pins.py --write
and says why in its commit. The pins carry the compiler version they were written by, and --write
refuses to change a pinned kernel under the same version: tuning logs name the compiler their
kernels came from (a resumed search warns on another version; `tessera replay` rebuilds and
compares), so a change to the kernels a config builds must bump the project version
(CMakeLists.txt and pyproject.toml) first.
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PINS = os.path.join(HERE, "data", "npu_kernel_pins.json")
TARGET_DIR = os.path.join(ROOT, "runtime", "npu", "targets")
TARGET_NAMES = ("npu-v1", "npu-8x8", "npu-32x32")

MULT, SHIFT = (1 << 14) + 123, 10


def _q(**extra):
    return dict(multiplier=MULT, shift=SHIFT, zero_point=-3, **extra)


# The shapes of test_npu_templates (not multiples of any block, strided and padded windows, 1x1
# stride 2, the im2col path) and a few tails of their own.
SMALL = [
    ("conv2d", dict(C=20, H=9, W=8, K=40, R=3, S=3, stride=1, pad=1, **_q())),
    ("conv2d", dict(C=40, H=10, W=12, K=20, R=1, S=1, stride=2, pad=0, **_q())),
    ("conv2d", dict(C=5, H=11, W=9, K=17, R=5, S=5, stride=2, pad=2, **_q(relu=True))),
    ("conv2d", dict(C=33, H=7, W=13, K=50, R=3, S=3, stride=2, pad=1, **_q())),
    ("conv2d_im2col", dict(C=3, H=16, W=15, K=20, R=7, S=7, stride=2, pad=3, **_q())),
    ("conv2d_im2col", dict(C=5, H=8, W=7, K=9, R=3, S=3, stride=1, pad=1, **_q())),
    ("depthwise_conv2d", dict(C=40, H=9, W=10, R=3, S=3, stride=1, pad=1, **_q())),
    ("depthwise_conv2d", dict(C=20, H=11, W=9, R=3, S=3, stride=2, pad=1,
                              mapping="diagonal_gemm", **_q())),
    ("dense", dict(M=45, K=70, N=40, **_q())),
    ("dense", dict(M=1, K=200, N=100, **_q(relu=True))),
    ("dense", dict(M=37, K=33, N=19, **_q())),
    ("max_pool2d", dict(C=40, H=12, W=11, R=3, S=3, stride=2, pad=1)),
    ("max_pool2d", dict(C=20, H=8, W=9, R=2, S=2, stride=2, pad=0)),
    ("add", dict(C=40, H=9, W=7)),
    ("add", dict(C=20, H=5, W=13, relu=True)),
]
SMALL_PER_TARGET = 5      # sampled valid configs per shape and target, plus the default
RESNET_PER_TARGET = {"npu-v1": 3, "npu-8x8": 1, "npu-32x32": 1}


def resnet_cases(target):
    wls = json.load(open(os.path.join(ROOT, "benchmarks", "workloads", "resnet18.json")))
    out = []
    for wl in wls["workloads"]:
        if wl["op"] == "dense":
            out.append((wl["id"], "dense", dict(M=wl["M"], K=wl["K"], N=wl["N"], **_q())))
            continue
        args = dict(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"], S=wl["S"],
                    stride=wl["stride"], pad=wl["pad"], **_q())
        out.append((wl["id"], "conv2d_im2col" if wl["C"] < target.block else "conv2d", args))
    return out


def _sample(task, n, rng):
    """The default and n distinct valid configs drawn uniformly by index (seeded)."""
    out, seen = [task.default_config()], set()
    while len(out) < n + 1 and len(seen) < min(20000, task.space_size):
        i = rng.randrange(task.space_size)
        if i in seen:
            continue
        seen.add(i)
        c = task.config(i)
        if task.is_valid(c):
            out.append(c)
    return out


def entries():
    """(key, task, config) for every pinned kernel, in a fixed order."""
    from tessera import autotune, npu
    for tname in TARGET_NAMES:
        target = npu.load_target(os.path.join(TARGET_DIR, tname + ".json"))
        cases = [(f"{t}-{i}", t, a) for i, (t, a) in enumerate(SMALL)]
        cases = [(c, SMALL_PER_TARGET) for c in cases]
        cases += [(c, RESNET_PER_TARGET[tname]) for c in resnet_cases(target)]
        for (label, template, args), n in cases:
            task = autotune.NpuTask(template, args, target)
            rng = random.Random(f"pins/{tname}/{label}")
            for c in _sample(task, n, rng):
                yield f"{tname} {label} {task.to_json(c)}", task, c


def outcome(task, config):
    """The fingerprint of the kernel, or the error's status and message."""
    m = task.measure(config)
    if m["status"] == "ok":
        return dict(fingerprint=m["fingerprint"], insns=m["insns"], cycles=m["cycles"])
    return dict(status=m["status"], message=m.get("message", ""))


def compute():
    return {key: outcome(task, c) for key, task, c in entries()}


def load():
    """(compiler version, {key: outcome}) of the committed pins."""
    doc = json.load(open(PINS))
    return doc["compiler"], doc["pins"]


def changed_kernels(old, new):
    """Keys pinned in both whose kernel bytes differ (fingerprint, or kernel against error)."""
    return [k for k in sorted(set(old) & set(new))
            if old[k].get("fingerprint") != new[k].get("fingerprint")]


def main(argv=None):
    from tessera.autotune import compiler_version
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true", help=f"rewrite {os.path.relpath(PINS, ROOT)}")
    args = p.parse_args(argv)
    pins = compute()
    version, old = load()
    if args.write:
        moved = changed_kernels(old, pins)
        if moved and version == compiler_version():
            print(f"{len(moved)} pinned kernels change (first: {moved[0]}) but the compiler "
                  f"version is still {version}: bump the project version in CMakeLists.txt and "
                  f"pyproject.toml, rebuild, and rerun --write", file=sys.stderr)
            return 1
        os.makedirs(os.path.dirname(PINS), exist_ok=True)
        with open(PINS, "w") as f:
            json.dump({"compiler": compiler_version(), "pins": pins}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {len(pins)} pins to {PINS} ({compiler_version()}; {len(moved)} kernels "
              f"changed)")
        return 0
    bad = [k for k in sorted(set(old) | set(pins)) if old.get(k) != pins.get(k)]
    for k in bad:
        print(f"{k}\n  pinned {old.get(k)}\n  now    {pins.get(k)}")
    print(f"{len(pins)} kernels, {len(bad)} differ from the pins")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.exit(main())
