"""The main job: define a matmul, schedule it, print the lowered loops, build it for the CPU,
check it against numpy and report GFLOP/s."""
import time

import numpy as np

import tessera
from tessera import te

M = N = K = 512

A = te.placeholder((M, K), dtype="float32", name="A")
B = te.placeholder((K, N), dtype="float32", name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

s = te.create_schedule(C.op)
# Tile into 32x64 blocks of C, step k by 8 within a block, pack the block's B panel into a
# contiguous local buffer, vectorise the innermost j loop and run block rows in parallel.
i, j = s[C].op.axis
io, jo, ii, ji = s[C].tile(i, j, 32, 64)
ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=8)
s[C].reorder(io, jo, ko, ii, ki, ji)
BB = s.cache_read(B, "local", [C])
s[BB].compute_at(s[C], ko)
s[BB].vectorize(s[BB].op.axis[1])
s[C].vectorize(ji)
s[C].parallel(io)

print(tessera.lower(s, [A, B, C], name="matmul"))
f = tessera.build(s, [A, B, C], target="c", name="matmul")

rng = np.random.default_rng(0)
a = rng.standard_normal((M, K), dtype=np.float32)
b = rng.standard_normal((K, N), dtype=np.float32)
c = np.zeros((M, N), dtype=np.float32)
f(a, b, c)
ref = a.astype(np.float64) @ b.astype(np.float64)
err = np.max(np.abs(c - ref)) / np.max(np.abs(ref))
print(f"max error vs numpy (float64 reference), relative to the largest element: {err:.2e}")
assert err < 1e-5, "tessera's matmul disagrees with numpy"

runs = 10
t0 = time.perf_counter()
for _ in range(runs):
    f(a, b, c)
dt = (time.perf_counter() - t0) / runs
print(f"matmul {M}x{N}x{K} on the CPU: {2 * M * N * K / dt / 1e9:.1f} GFLOP/s ({dt * 1e3:.2f} ms)")
