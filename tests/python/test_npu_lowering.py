"""NPU lowering: what schedules with sram/acc scopes and tensorize lower to, and the errors a
schedule the hardware cannot run gets."""
import pytest

import tessera
from tessera import te

from npu_ops_defs import dense_packed, npu_schedule


def test_dense_lowers_to_dma_gemm_and_vector_statements():
    X, W, acc, Y = dense_packed()
    ir = str(tessera.lower(npu_schedule(X, W, acc, Y), [X, W, Y], target="npu"))
    # Inputs arrive by DMA (each whole tensor is contiguous, so one transfer each), the product
    # is one GEMM step per (m, nb, kb), the accumulator is zeroed by the vector unit (clip to [0, 0]) and
    # requantized into SRAM, and the result leaves by DMA.
    assert "npu.dma_load X.sram.row[0] stride 1 <- X[0] stride 128, 1 x 8 units" in ir
    assert "npu.dma_load W.sram.row[0] stride 1 <- W[0] stride 1536, 1 x 96 units" in ir
    assert "npu.gemm acc.row[((m * 3) + nb)] += X.sram.row[(kb + (m * 2))] x W.sram.row[((kb * 16) + (nb * 32))]" in ir
    assert "npu.vector.clip acc.row[((m * 3) + nb)] = acc.row[((m * 3) + nb)], 0..0" in ir
    assert "npu.vector.requantize Y.sram.row[" in ir
    assert "npu.dma_store Y.sram.row[0] stride 1 -> Y[0] stride 192, 1 x 12 units" in ir
    assert "Y.sram[" not in ir.replace("allocate Y.sram[", "")  # no element-wise loops remain


def test_padded_input_is_padded_by_the_dma():
    X = te.placeholder((1, 6, 5, 16), dtype="int8", name="X")
    P = te.compute((1, 8, 7, 16), lambda c, h, w, l: te.if_then_else(
        te.all(h >= 1, h < 7, w >= 1, w < 6), X[c, h - 1, w - 1, l], te.const(0, "int8")), name="P")
    Y = te.compute((1, 8, 7, 16), lambda c, h, w, l: P[c, h, w, l] + te.const(0, "int8"), name="Y")
    s = te.create_schedule(Y.op)
    s[P].set_scope("sram")
    YS = s.cache_write(Y, "sram")
    h = s[Y].op.axis[1]
    ho, hi = s[Y].split(h, factor=4)
    s[YS].compute_at(s[Y], ho)
    s[P].compute_at(s[Y], ho)
    ir = str(tessera.lower(s, [X, Y], target="npu"))
    # Each 4-row tile loads the rows it has and pads the border: the first tile one row on top
    # (pad_top = min(max(1 - 4 * h.outer, 0), 4)), the last one row at the bottom, every tile
    # one column left and right; all 5 columns of X come from DDR.
    dma = [l.strip() for l in ir.splitlines() if "npu.dma_load" in l]
    assert len(dma) == 1
    assert dma[0].startswith("npu.dma_load P.row[0] stride 7 <- X[")
    assert "x 5 units, pad min(max((1 - (h.outer * 4)), 0), 4) " in dma[0]
    assert dma[0].endswith(" 1 1")
    assert "P[" not in ir.replace("allocate P[", "")   # no element-wise padding loop is left


def test_tensorize_with_transposed_weights_is_rejected_for_wrong_stride():
    X, W, acc, Y = dense_packed(w_layout="io")
    s = npu_schedule(X, W, acc, Y)
    with pytest.raises(tessera.ScheduleError, match=r"(?s)stage 'acc': tensorize at axis 'o' with 'npu.gemm16x16': wrong stride: 'W.sram' \(the intrinsic's 'wgt'\) moves by 1 element\(s\) per step of 'o' and 16 per step of 'i', the intrinsic needs 16 and 1\n  loop body: sum\(\(int32\(X.sram\[m, kb, i\]\) \* int32\(W.sram\[nb, kb, i, o\]\)\)\) over loops o\[16\] i\[16\]\n  intrinsic: out\[o\] = sum"):
        tessera.lower(s, [X, W, Y], target="npu")


def test_tensorize_with_int16_inputs_is_rejected_for_wrong_dtype():
    X, W, acc, Y = dense_packed(in_dtype="int16")
    s = npu_schedule(X, W, acc, Y)
    with pytest.raises(tessera.ScheduleError, match=r"wrong dtype: 'X.sram' is int16, the intrinsic's input 'inp' is int8"):
        tessera.lower(s, [X, W, Y], target="npu")


def test_tensorize_of_loops_without_the_reduction_is_rejected():
    X, W, acc, Y = dense_packed()
    s = te.create_schedule(Y.op)
    s.cache_read(X, "sram", [acc])
    s.cache_read(W, "sram", [acc])
    s[acc].set_scope("acc")
    m, nb, o = s[acc].op.axis
    kb, i = s[acc].op.reduce_axis
    s[acc].reorder(m, kb, i, nb, o)
    s[acc].tensorize(nb, tessera._tessera.npu_gemm_intrin())
    with pytest.raises(tessera.ScheduleError, match=r"missing reduction: the loops under the axis must be one data-parallel loop \(o\) and one reduction loop \(i\)"):
        tessera.lower(s, [X, W, Y], target="npu")


def test_tensorize_of_a_stage_without_reduction_is_rejected():
    A = te.placeholder((4, 16), dtype="int8", name="A")
    B = te.compute((4, 16), lambda r, l: A[r, l] + te.const(1, "int8"), name="B")
    s = te.create_schedule(B.op)
    s[B].tensorize(B.op.axis[1], tessera._tessera.npu_gemm_intrin())
    with pytest.raises(tessera.ScheduleError, match=r"stage 'B': tensorize with 'npu.gemm16x16': missing reduction"):
        tessera.lower(s, [A, B], target="npu")


def test_cache_stage_in_an_unknown_scope_is_rejected():
    X, W, acc, Y = dense_packed()
    s = te.create_schedule(Y.op)
    with pytest.raises(tessera.ScheduleError, match=r"cache_read of 'X': unknown scope 'vram'; known scopes: global, local \(CPU\), sram, acc \(NPU\)"):
        s.cache_read(X, "vram", [acc])


def test_dma_of_a_region_whose_lanes_are_not_contiguous_is_rejected():
    # The 16 lanes of the on-chip copy come from a column of X (stride 8 in DDR).
    X = te.placeholder((16, 8), dtype="int8", name="X")
    T = te.compute((8, 16), lambda r, l: X[l, r], name="T")
    Y = te.compute((8, 16), lambda r, l: T[r, l], name="Y")
    s = te.create_schedule(Y.op)
    s[T].set_scope("sram")
    with pytest.raises(tessera.LowerError, match=r"stage 'T': a DMA of a non-contiguous region the hardware cannot express: the 16 lanes of 'T' must be 16 consecutive elements of 'X' \(DDR moves by 8 per lane\)"):
        tessera.lower(s, [X, Y], target="npu")


def test_double_buffer_outside_on_chip_memory_is_rejected():
    X, W, acc, Y = dense_packed()
    s = te.create_schedule(Y.op)
    with pytest.raises(tessera.ScheduleError, match=r"stage 'acc': double_buffer: the stage is in scope 'global'; double buffering applies to on-chip cache stages"):
        s[acc].double_buffer()


PASSES_NPU = ["inline_stages", "infer_bounds", "schedule_ops", "tensorize", "flatten_storage",
              "simplify", "inject_npu_ops", "tighten_loop_bounds", "verify"]
NPU_ONLY = ("inject_npu_ops", "tighten_loop_bounds")


def debug_passes(target):
    """lower() with TESSERA_DEBUG=2 in a fresh process: the passes it printed, and its stderr."""
    import os
    import re
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import tessera\n"
            "from npu_ops_defs import dense_packed, npu_schedule\n"
            "X, W, acc, Y = dense_packed()\n"
            f"tessera.lower(npu_schedule(X, W, acc, Y), [X, W, Y], target={target!r})\n")
    if target == "c":
        code = ("import tessera\nfrom tessera import te\n"
                "A = te.placeholder((8,), name='A')\n"
                "B = te.compute((8,), lambda i: A[i] * 2.0, name='B')\n"
                "tessera.lower(te.create_schedule(B.op), [A, B], target='c')\n")
    env = dict(os.environ, TESSERA_DEBUG="2",
               PYTHONPATH=os.pathsep.join([os.path.join(here, "..", "..", "python"), here]))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True)
    return re.findall(r"^\[tessera\] pass (\w+):", r.stderr, re.M), r.stderr


def test_debug_level_2_shows_every_pass_of_lower_in_order():
    passes, err = debug_passes("npu")
    assert passes == PASSES_NPU
    # Each pass shows what it made: the bodies after inlining, the bounds, the tensorize region
    # schedule_ops marks, the GEMM tensorize proves it computes, the verdict of verify.
    assert "  stage acc: sum((int32(X.sram[m, kb, i]) * int32(W.sram[nb, kb, o, i]))" in err
    assert "  stage acc: region m[0 +4] nb[0 +3] o[0 +16] kb[0 +2] i[0 +16]; loops m[4] nb[3] kb[2] o[16] i[16]" in err
    assert "tensorize npu.gemm16x16 at o {  // stage acc" in err
    tensorized = err.split("[tessera] pass tensorize:")[1].split("[tessera] pass flatten_storage:")[0]
    assert "npu.gemm acc.row[" in tensorized and "tensorize npu" not in tensorized
    assert err.rstrip().endswith("[tessera] pass verify:\n  ok")
    passes, _ = debug_passes("c")
    assert passes == [p for p in PASSES_NPU if p not in NPU_ONLY]


def test_depthwise_conv2d_runs_on_the_vector_mac_intrinsic():
    from tessera import npu
    op = tessera.npu_ops.depthwise_conv2d(C=32, H=6, W=6, R=3, S=3, stride=1, pad=1,
                                          multiplier=1, shift=0)
    insns = tessera.build(op.schedule, op.args, target="npu").kernel.disassemble()
    assert any(i.startswith("vector.mul ") for i in insns)   # the first tap
    assert any(i.startswith("vector.mac ") for i in insns)   # the others
    assert not any(i.startswith("gemm") for i in insns)
    assert op.args[1].shape == (2, 3, 3, 16)                 # weights [C/16, R, S, 16]


def test_vector_mac_with_a_strided_weight_is_rejected_showing_both_sides():
    # The weight row of each tap read with stride 2 across the lanes: not the intrinsic's wgt[l].
    X = te.placeholder((1, 16), dtype="int8", name="X")
    K = te.placeholder((3, 32), dtype="int8", name="K")
    r = te.reduce_axis((0, 3), name="r")
    acc = te.compute((1, 16), lambda h, l: te.sum(
        X[h, l].astype("int32") * K[r, 2 * l].astype("int32"), axis=r), name="acc")
    s = te.create_schedule(acc.op)
    s.cache_read(X, "sram", [acc])
    s.cache_read(K, "sram", [acc])
    a = s.cache_write(acc, "acc")
    h, l = s[a].op.axis
    s[a].reorder(s[a].op.reduce_axis[0], h, l)
    s[a].tensorize(l, tessera._tessera.npu_vmac_intrin())
    with pytest.raises(tessera.ScheduleError, match=r"(?s)stage 'acc.acc': tensorize at axis 'l' with 'npu.vmac16': wrong stride: 'K.sram' \(the intrinsic's 'wgt'\) moves by 2 element\(s\) per step of 'l', the intrinsic needs 1\n  loop body: sum\(\(int32\(X.sram\[h, l\]\) \* int32\(K.sram\[r, \(l \* 2\)\]\)\)\) over loops l\[16\]\n  intrinsic: out\[l\] = sum\(\(int32\(inp\[l\]\) \* int32\(wgt\[l\]\)\), axis=\[\]\)"):
        tessera.lower(s, [X, K, acc], target="npu")


def test_tensorize_of_a_split_that_leaves_a_guard_under_the_axis_is_rejected():
    X, W, acc, Y = dense_packed()
    s = te.create_schedule(Y.op)
    s.cache_read(X, "sram", [acc])
    s.cache_read(W, "sram", [acc])
    s[acc].set_scope("acc")
    m, nb, o = s[acc].op.axis
    kb, i = s[acc].op.reduce_axis
    io, ii = s[acc].split(i, factor=12)   # 16 = 2 x 12 with a tail
    s[acc].reorder(m, nb, kb, io, o, ii)
    s[acc].tensorize(o, tessera._tessera.npu_gemm_intrin())
    with pytest.raises(tessera.ScheduleError, match=r"(?s)tensorize at axis 'o' with 'npu.gemm16x16': a guard \(\(\(i.outer \* 12\) \+ i.inner\) < 16\) sits inside the tensorized loops: a split under the axis that does not divide its extent.*loop body: sum\(.*over loops o\[16\] i.inner\[12\]"):
        tessera.lower(s, [X, W, Y], target="npu")
