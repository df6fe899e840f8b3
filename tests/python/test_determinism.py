"""The same schedule, built in two separate processes, gives byte-identical C source."""
import hashlib
import os
import subprocess
import sys

SCRIPT = r"""
import hashlib, sys
sys.path[:0] = sys.argv[1:3]
import tessera
from tessera import te
import op_defs

sources = []
case = op_defs.softmax(M=6, N=17)
s = te.create_schedule(case.output.op)
E = case.extra["E"]
s[E].compute_inline()
xo, xi = s[case.output].split(case.output.op.axis[1], factor=4)
s[case.output].vectorize(xi)
s[case.output].parallel(case.output.op.axis[0])
sources.append(tessera.build(s, case.args, target="c", name="softmax").source)

case = op_defs.conv2d(C=3, H=9, W=9, K=4, stride=2, pad=1)
s = te.create_schedule(case.output.op)
Y = case.output
n, k, oh, ow = s[Y].op.axis
oho, ohi = s[Y].split(oh, factor=3)
s[case.extra["P"]].compute_at(s[Y], oho)
s[Y].parallel(k)
sources.append(tessera.build(s, case.args, target="c", name="conv").source)
print(hashlib.sha256("\n".join(sources).encode()).hexdigest())
sys.stdout.write("".join(sources))
"""


def _run():
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.join(here, "..", "..", "python")
    env = dict(os.environ, PYTHONHASHSEED="random")
    out = subprocess.run([sys.executable, "-c", SCRIPT, pkg, here], capture_output=True,
                         text=True, env=env, check=True)
    return out.stdout


def test_same_schedule_in_two_processes_gives_identical_c_source():
    first, second = _run(), _run()
    assert first.splitlines()[0] == second.splitlines()[0]
    assert first == second
    # The sources are real kernels, not empty strings.
    assert "int32_t softmax(void** args)" in first
    assert "int32_t conv(void** args)" in first
    assert hashlib.sha256(first.encode()).hexdigest()
