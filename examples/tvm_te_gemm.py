"""A GEMM written for TVM's Tensor Expression API (TVM <= 0.24), run by tessera.

Only the two imports differ from the TVM script:

    import tvm                    ->  import tessera as tvm
    from tvm import te            ->  from tessera import te

It uses placeholder, compute, reduce_axis, create_schedule, split, fuse, reorder, compute_at,
cache_read, cache_write, vectorize, parallel, lower, build, tvm.nd.array / tvm.cpu and
time_evaluator, in the style of TVM's "How to optimize GEMM on CPU" tutorial, with sizes the
blocks do not divide; the result is checked against numpy.
Run: PYTHONPATH=python .venv/bin/python examples/tvm_te_gemm.py
"""
import numpy as np

import tessera as tvm
from tessera import te

# ---- the TVM script from here on, unchanged ------------------------------------------------------
M = 100
K = 96
N = 72
bn = 32
kfactor = 4
dtype = "float32"
target = "llvm"
dev = tvm.cpu(0)

k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")

s = te.create_schedule(C.op)
# Accumulate a bn x bn block of C in a local buffer, then write it out.
CC = s.cache_write(C, "local")
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)  # as TVM: C keeps its axes
s[CC].compute_at(s[C], no)
mc, nc = s[CC].op.axis
(kaxis,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kaxis, factor=kfactor)
s[CC].reorder(ko, mc, ki, nc)
s[CC].vectorize(nc)
# Copy the block's panel of B into a local buffer once per k step.
BB = s.cache_read(B, "local", [CC])
s[BB].compute_at(s[CC], ko)
s[BB].vectorize(s[BB].op.axis[1])
# Blocks of C in parallel.
mno = s[C].fuse(mo, no)
s[C].parallel(mno)
s[C].vectorize(ni)

print(tvm.lower(s, [A, B, C], simple_mode=True))
func = tvm.build(s, [A, B, C], target=target, name="mmult")

a = tvm.nd.array(np.random.rand(M, K).astype(dtype), dev)
b = tvm.nd.array(np.random.rand(K, N).astype(dtype), dev)
c = tvm.nd.array(np.zeros((M, N), dtype=dtype), dev)
func(a, b, c)
np.testing.assert_allclose(c.numpy(), np.dot(a.numpy(), b.numpy()), rtol=1e-5)
evaluator = func.time_evaluator(func.entry_name, dev, number=5)
print(f"mmult {M}x{K}x{N}: {evaluator(a, b, c).mean * 1e6:.1f} us per call, matches numpy")
