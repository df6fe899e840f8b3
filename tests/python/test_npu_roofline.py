"""Roofline figures of NPU modules are measured against the operator's true work (unpadded MACs,
minimum DDR bytes), not the padded work of its kernel (docs/npu_isa.md section 9). Expected figures
are counted here from the logical shape."""
import numpy as np
import pytest

import tessera
from tessera import npu, te
from tessera import npu_ops as ops


def test_roofline_of_a_layer_with_3_channels_padded_to_16_reports_the_true_work_fraction(tmp_path):
    C, H, W, K, R, S = 3, 28, 28, 32, 3, 3
    op = ops.conv2d(C=C, H=H, W=W, K=K, R=R, S=S, stride=1, pad=1, multiplier=1 << 14, shift=22)
    f = tessera.build(op.schedule, op.args, target="npu", name="conv_c3")
    cycles = f.timing()["cycles"]
    true_macs = K * H * W * C * R * S
    true_bytes = C * H * W + K * C * R * S + K * H * W
    bound = max(true_macs / 256, true_bytes / 16, K * H * W / 16)
    r = f.roofline()
    assert r["macs"] == true_macs and r["ddr_bytes"] == true_bytes
    assert r["vector_ops"] == K * H * W
    assert r["bound"] == pytest.approx(bound) and r["limited_by"] == "MAC"
    assert r["cycles"] == cycles and r["fraction"] == pytest.approx(bound / cycles)
    # The kernel multiplies 16 channels: its own bound is at least 16/3 times higher, and so is the
    # fraction it would report.
    k = f.kernel_roofline()
    assert k["macs"] >= true_macs * 16 // 3
    assert k["fraction"] >= r["fraction"] * 16 / 3 * 0.99
    # The true work is in the kernel file.
    path = str(tmp_path / "conv_c3.tnpu")
    f.save(path)
    back = npu.load_npu_module(path)
    assert back.roofline() == r
    assert back.kernel.work == {"macs": true_macs, "min_ddr_bytes": true_bytes,
                                "vector_ops": K * H * W}


def test_a_user_expression_without_a_declaration_gets_its_work_from_the_expression():
    """A tensorized 16-lane matmul written in Python: MACs from the reduction domain, bytes from the
    placeholders and the output."""
    M, KB, NB = 32, 3, 2
    X = te.placeholder((M, KB, 16), dtype="int8", name="X")
    Wt = te.placeholder((NB, KB, 16, 16), dtype="int8", name="W")
    kb = te.reduce_axis((0, KB), name="kb")
    i = te.reduce_axis((0, 16), name="i")
    acc = te.compute((M, NB, 16), lambda m, nb, o: te.sum(
        X[m, kb, i].astype("int32") * Wt[nb, kb, o, i].astype("int32"), axis=[kb, i]), name="acc")
    Y = te.compute((M, NB, 16), lambda m, nb, o: te.requantize(acc[m, nb, o], 1 << 14, 20, 0),
                   name="Y")
    s = te.create_schedule(Y.op)
    s.cache_write(Y, "sram")
    s[acc].set_scope("acc")
    s.cache_read(X, "sram", [acc.op])
    s.cache_read(Wt, "sram", [acc.op])
    ax = acc.op.axis
    s[acc].reorder(ax[1], kb, ax[0], ax[2], i)
    s[acc].tensorize(ax[2], tessera.npu_gemm_intrin())
    f = tessera.build(s, [X, Wt, Y], target="npu", name="mm")
    r = f.roofline()
    assert r["macs"] == M * NB * 16 * KB * 16
    assert r["ddr_bytes"] == M * KB * 16 + NB * KB * 256 + M * NB * 16
    assert r["vector_ops"] == M * NB * 16


def test_declared_work_in_python_replaces_the_expressions_work():
    X = te.placeholder((64, 16), dtype="int8", name="X")
    Y = te.compute((64, 16), lambda r, l: X[r, l] + 1, name="Y")
    assert tessera.lower(te.create_schedule(Y.op), [X, Y]).work == {
        "macs": 0, "min_ddr_bytes": 2 * 64 * 16, "vector_ops": 64 * 16}
    Z = te.compute((64, 16), lambda r, l: X[r, l] + 1, name="Z",
                   true_work={"macs": 0, "min_ddr_bytes": 1000, "vector_ops": 7})
    assert tessera.lower(te.create_schedule(Z.op), [X, Z]).work == {
        "macs": 0, "min_ddr_bytes": 1000, "vector_ops": 7}
    with pytest.raises(tessera.ExprError, match="true_work has unknown keys"):
        te.compute((4,), lambda r: X[r, 0], name="Z", true_work={"flops": 1})
