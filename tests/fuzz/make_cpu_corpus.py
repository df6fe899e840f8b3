"""Writes the CPU library fuzzer's seed corpus (tests/fuzz/corpus_cpu_library): two libraries
exported by tessera (a parallel elementwise kernel and a reduction through a cache_write stage) and
their metadata as JSON text.

    PYTHONPATH=python .venv/bin/python tests/fuzz/make_cpu_corpus.py tests/fuzz/corpus_cpu_library
"""
import os
import sys

import tessera
from tessera import te


def main(out):
    os.makedirs(out, exist_ok=True)
    A = te.placeholder((64,), "float32", "A")
    B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    tessera.build(s, [A, B], name="dbl").export_library(os.path.join(out, "dbl.so"))

    X = te.placeholder((128, 96), "int32", "X")
    k = te.reduce_axis((0, 96), name="k")
    Y = te.compute((128,), lambda i: te.sum(X[i, k], axis=k), name="Y")
    s = te.create_schedule(Y.op)
    s.cache_write(Y, "local")
    tessera.build(s, [X, Y], name="rowsum").export_library(os.path.join(out, "rowsum.so"))

    with open(os.path.join(out, "metadata.json"), "w") as f:
        f.write('{"args":[{"dtype":"float32","name":"A","shape":[64],"written":false},'
                '{"dtype":"float32","name":"B","shape":[64],"written":true}],"name":"dbl",'
                  '"externs":[],"version":3}')


if __name__ == "__main__":
    main(sys.argv[1])
