"""Mutated kernel files, with the checksum recomputed after each mutation so that they get past it
to the field checks: every one either loads (and then its names are valid str, it disassembles,
and it simulates in both modes or raises SimulationError/TargetError) or raises KernelFileError.
Zero crashes (the mutations run in a subprocess), zero hangs (a time limit), zero undecodable names.

CI runs 2000 mutations. A bigger run, with another seed:

    TESSERA_KERNEL_MUTATIONS=20000 TESSERA_KERNEL_MUTATION_SEED=5 PYTHONPATH=python \\
        .venv/bin/python -m pytest -q -s tests/python/test_kernel_file_mutation.py
"""
import json
import os
import subprocess
import sys

COUNT = int(os.environ.get("TESSERA_KERNEL_MUTATIONS", "2000"))
SEED = int(os.environ.get("TESSERA_KERNEL_MUTATION_SEED", "20261207"))
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

CHILD = r"""
import collections, glob, json, os, sys
import numpy as np
import tessera
from tessera import npu

count, seed, current, corpus = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def fix_checksum(data):
    body = bytes(data[:-8])
    return body + fnv1a64(body).to_bytes(8, "little")


# Seeds: kernels the compiler builds (every operator) and the libFuzzer corpus.
seeds = []
for op in (tessera.npu_ops.dense(M=5, K=20, N=18, multiplier=1 << 14, shift=16),
           tessera.npu_ops.conv2d(C=16, H=5, W=5, K=16, R=3, S=3, stride=1, pad=1,
                                  multiplier=1 << 14, shift=18, relu=True),
           tessera.npu_ops.max_pool2d(C=16, H=6, W=6, R=3, S=3, stride=2, pad=1),
           tessera.npu_ops.add(C=16, H=3, W=3)):
    seeds.append(tessera.build(op.schedule, op.args, target="npu").kernel.to_bytes())
seeds += [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(corpus, "*.tnpu")))]

rng = np.random.default_rng(seed)
INTERESTING = [0, 1, 2, 0x7f, 0x80, 0xff, 0xfe, 0xffff, 0x8000, 0x7fffffff, 0xffffffff]


def mutate(data):
    d = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(6))
        at = int(rng.integers(max(1, len(d) - 8)))
        if kind == 0:    # flip a bit
            d[at] ^= 1 << int(rng.integers(8))
        elif kind == 1:  # an interesting byte
            d[at] = int(rng.choice([0, 1, 0x7f, 0x80, 0xff]))
        elif kind == 2:  # an interesting 2/4/8-byte little-endian field
            width = int(rng.choice([2, 4, 8]))
            v = int(rng.choice(INTERESTING)) & ((1 << (8 * width)) - 1)
            d[at:at + width] = v.to_bytes(width, "little")
        elif kind == 3:  # delete bytes
            del d[at:at + int(rng.integers(1, 33))]
        elif kind == 4:  # insert bytes
            d[at:at] = bytes(int(x) for x in rng.integers(0, 256, int(rng.integers(1, 33))))
        else:            # splice from another seed
            other = seeds[int(rng.integers(len(seeds)))]
            src = int(rng.integers(len(other)))
            d[at:at + 32] = other[src:src + 32]
    return fix_checksum(d) if len(d) >= 8 else bytes(d)


verdicts = collections.Counter()
for i in range(count):
    data = mutate(seeds[i % len(seeds)])
    with open(current, "wb") as f:  # what crashed, if anything does
        f.write(data)
    try:
        k = npu.kernel_from_bytes(data, "mutation %d" % i)
    except tessera.KernelFileError:
        verdicts["rejected by the loader"] += 1
        continue
    names = [k.name, k.target_name] + [b.name for b in k.buffers]
    assert all(isinstance(n, str) and "\0" not in n for n in names), names
    assert len(k.disassemble()) == len(k)
    assert k.to_bytes() == data  # what loads re-serialises to the same bytes
    try:
        stats = npu.run_timing(k, max_work=1 << 22)
        inputs = {b.name: np.zeros(b.shape, np.int32 if b.dtype == "int32" else np.int8)
                  for b in k.buffers if b.role == "input"}
        if k.ddr_bytes <= 1 << 22:
            out, fstats = npu.run(k, inputs, max_work=1 << 22)
            assert fstats["cycles"] == stats["cycles"]
        verdicts["simulated"] += 1
    except (tessera.SimulationError, tessera.TargetError, tessera.ArgumentError) as e:
        verdicts["rejected by the simulator: " + type(e).__name__] += 1
print(json.dumps(verdicts))
"""


def test_mutated_kernel_files_load_and_simulate_or_are_rejected_with_typed_errors(tmp_path):
    current = str(tmp_path / "current.tnpu")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(COUNT), str(SEED), current,
         os.path.join(ROOT, "tests", "fuzz", "corpus")],
        capture_output=True, text=True, env=env, timeout=60 + COUNT // 20)
    assert proc.returncode == 0, (f"the mutation run died (return code {proc.returncode}) on the "
                                  f"input left in {current}:\n{proc.stderr[-3000:]}")
    verdicts = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"\nkernel-file mutations: {COUNT}, seed {SEED}: {verdicts}")
    assert sum(verdicts.values()) == COUNT
    # The mutations must reach past the loader often enough to test the simulator too.
    loaded = COUNT - verdicts.get("rejected by the loader", 0)
    assert loaded >= COUNT // 20
    assert verdicts.get("simulated", 0) >= COUNT // 50
    assert verdicts.get("rejected by the loader", 0) >= COUNT // 5
