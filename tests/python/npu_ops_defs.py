"""Small NPU computations in packed layouts, shared by the NPU lowering tests."""
import tessera
from tessera import te


def dense_packed(M=4, KB=2, NB=3, w_layout="oi", in_dtype="int8", mult=1 << 20, shift=24):
    """Y[m, nb, o] = requantize(sum_{kb, i} X[m, kb, i] * W[nb, kb, o, i]).

    w_layout "io" stores the weight tile transposed (W[nb, kb, i, o]), which the MAC array's
    weight layout does not match."""
    X = te.placeholder((M, KB, 16), dtype=in_dtype, name="X")
    W = te.placeholder((NB, KB, 16, 16), dtype=in_dtype, name="W")
    kb = te.reduce_axis((0, KB), name="kb")
    i = te.reduce_axis((0, 16), name="i")

    def w(nb, k, o, ii):
        return W[nb, k, o, ii] if w_layout == "oi" else W[nb, k, ii, o]
    acc = te.compute((M, NB, 16), lambda m, nb, o: te.sum(
        X[m, kb, i].astype("int32") * w(nb, kb, o, i).astype("int32"), axis=[kb, i]), name="acc")
    Y = te.compute((M, NB, 16), lambda m, nb, o: te.requantize(acc[m, nb, o], mult, shift, 0),
                   name="Y")
    return X, W, acc, Y


def npu_schedule(X, W, acc, Y, tensorize_axis="o"):
    s = te.create_schedule(Y.op)
    s.cache_write(Y, "sram")
    s.cache_read(X, "sram", [acc])
    s.cache_read(W, "sram", [acc])
    s[acc].set_scope("acc")
    m, nb, o = s[acc].op.axis
    kb, i = s[acc].op.reduce_axis
    s[acc].reorder(m, nb, kb, o, i)
    axis = {"o": o, "kb": kb, "nb": nb}[tensorize_axis]
    s[acc].tensorize(axis, tessera._tessera.npu_gemm_intrin())
    return s
