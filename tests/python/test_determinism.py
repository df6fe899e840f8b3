"""The same schedules, built in two separate processes with different hash seeds and thread counts,
give byte-identical NPU kernel files and C sources (replaying a tuning log relies on it)."""
import json
import os
import subprocess
import sys

SCRIPT = r"""
import hashlib, json, sys
sys.path[:0] = sys.argv[1:3]
import tessera
from tessera import te
import op_defs

out = {"python_hash_of_a_string": hash("tessera determinism")}

# C sources.
case = op_defs.softmax(M=6, N=17)
s = te.create_schedule(case.output.op)
s[case.extra["E"]].compute_inline()
xo, xi = s[case.output].split(case.output.op.axis[1], factor=4)
s[case.output].vectorize(xi)
s[case.output].parallel(case.output.op.axis[0])
out["c:softmax"] = tessera.build(s, case.args, target="c", name="softmax").source

case = op_defs.conv2d(C=3, H=9, W=9, K=4, stride=2, pad=1)
s = te.create_schedule(case.output.op)
Y = case.output
n, k, oh, ow = s[Y].op.axis
oho, ohi = s[Y].split(oh, factor=3)
s[case.extra["P"]].compute_at(s[Y], oho)
s[Y].parallel(k)
out["c:conv"] = tessera.build(s, case.args, target="c", name="conv").source

# NPU kernel files, every operator of the library.
ops = {
    "conv2d": tessera.npu_ops.conv2d(C=32, H=14, W=14, K=48, R=3, S=3, stride=1, pad=1,
                                     multiplier=1 << 14, shift=22, relu=True),
    "conv2d_s2": tessera.npu_ops.conv2d(C=16, H=15, W=15, K=32, R=3, S=3, stride=2, pad=1,
                                        multiplier=1 << 14, shift=22),
    "dense": tessera.npu_ops.dense(M=24, K=80, N=40, multiplier=1 << 14, shift=20),
    "depthwise": tessera.npu_ops.depthwise_conv2d(C=32, H=10, W=10, R=3, S=3, stride=1, pad=1,
                                                  multiplier=1 << 14, shift=22),
    "max_pool2d": tessera.npu_ops.max_pool2d(C=32, H=12, W=12, R=3, S=3, stride=2, pad=1),
    "add": tessera.npu_ops.add(C=48, H=7, W=7, relu=True),
}
for name, op in ops.items():
    f = tessera.build(op.schedule, op.args, target="npu", name=name)
    out["npu:" + name] = f.kernel.to_bytes().hex()
print(json.dumps(out, sort_keys=True))
"""


def _build_in_a_process(hash_seed, threads):
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.join(here, "..", "..", "python")
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed), OMP_NUM_THREADS=str(threads))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, pkg, here], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_npu_kernels_and_c_sources_are_identical_across_processes_hash_seeds_and_threads():
    first = _build_in_a_process(hash_seed=1, threads=1)
    second = _build_in_a_process(hash_seed=2024, threads=2)
    # The two processes really differed: Python's string hashing depends on the seed.
    assert first.pop("python_hash_of_a_string") != second.pop("python_hash_of_a_string")
    assert sorted(first) == sorted(second)
    for name in sorted(first):
        assert first[name] == second[name], f"{name} differs between the two processes"
    # Real artefacts, not empty strings: every kernel file has its magic and instructions.
    assert "int32_t softmax(void** args)" in first["c:softmax"]
    assert "int32_t conv(void** args)" in first["c:conv"]
    npu = [k for k in first if k.startswith("npu:")]
    assert len(npu) == 6
    for k in npu:
        data = bytes.fromhex(first[k])
        assert data[:8] == b"TSRNPUKF" and len(data) > 200, k
