"""The target as an input: NPU descriptions loaded from JSON drive lowering, the operator library,
the packed layouts and code generation; "c" and "npu" stay shorthands. Results are checked bit for
bit against the independent numpy references of test_npu_ops; cycles against what the arrays
predict."""
import json
import os

import numpy as np
import pytest

import tessera
from tessera import npu, te
from tessera import npu_layout as L

import test_npu_ops as T
from npu_ops_defs import dense_packed, npu_schedule

TARGET_DIR = T.TARGET_DIR
NPU_V1 = json.load(open(os.path.join(TARGET_DIR, "npu-v1.json")))


def square_target(b, **fields):
    """npu-v1 with a b x b MAC array (and vector unit), SRAM and accumulator rows as npu-v1's."""
    d = dict(NPU_V1, name=f"npu-{b}x{b}", mac_in=b, mac_out=b, vector_lanes=b,
             sram_bytes=NPU_V1["sram_bytes"] // NPU_V1["mac_in"] * b,
             acc_bytes=NPU_V1["acc_bytes"] // NPU_V1["mac_out"] * b)
    d.update(fields)
    return npu.parse_target(json.dumps(d), f"square {b}")


def test_committed_targets_describe_the_three_arrays():
    t8, t16, t32 = T.TARGETS["npu-8x8"], T.TARGETS["npu-v1"], T.TARGETS["npu-32x32"]
    assert (t16.mac_in, t16.mac_out, t16.block) == (16, 16, 16)
    assert t16.to_json() == npu.default_target().to_json()
    assert (t8.mac_in, t8.mac_out, t8.sram_bytes) == (8, 8, 128 * 1024)
    assert (t32.mac_in, t32.mac_out, t32.sram_bytes, t32.ddr_bytes_per_cycle) == \
        (32, 32, 1024 * 1024, 32)
    # The accumulator keeps npu-v1's ratio of SRAM rows to accumulator rows (16:1).
    for t in (t8, t16, t32):
        assert (t.sram_bytes // t.mac_in) // (t.acc_bytes // (4 * t.mac_out)) == 16


def test_build_takes_a_target_loaded_from_json_and_stamps_it_into_the_kernel():
    t = T.TARGETS["npu-32x32"]
    op = tessera.npu_ops.add(C=40, H=3, W=5, target=t)
    m = tessera.build(op.schedule, op.args, target=t)
    assert isinstance(m, npu.NpuModule)
    assert m.kernel.target_name == "npu-32x32" and m.kernel.target_hash == t.hash
    assert m.kernel.buffers[0].shape == [2, 3, 5, 32]  # NCHWc32: 40 channels in 2 blocks


def test_npu_shorthand_is_npu_v1_and_c_is_the_cpu():
    op = tessera.npu_ops.add(C=16, H=2, W=2)
    assert tessera.build(op.schedule, op.args, target="npu").kernel.target_name == "npu-v1"
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    assert isinstance(tessera.build(te.create_schedule(B.op), [A, B], target="c"), tessera.Module)


def test_layouts_follow_the_target_block():
    x = np.arange(40 * 2 * 3, dtype=np.int64).reshape(40, 2, 3).astype(np.int8)
    for name, t in T.TARGETS.items():
        b = t.block
        p = L.pack_activation(x, t)
        assert p.shape == (-(-40 // b), 2, 3, b)
        assert p[1, 1, 2, 3] == x[b + 3, 1, 2]
        np.testing.assert_array_equal(L.unpack_activation(p, 40), x)
        assert L.pack_conv_weight(np.zeros((20, 40, 3, 3), np.int8), t).shape == \
            (-(-20 // b), -(-40 // b), 3, 3, b, b)


@pytest.mark.parametrize("b", [1, 3, 4, 24, 64])
def test_square_arrays_of_any_size_run_the_library_bit_exact(b):
    t = square_target(b)
    rng = np.random.default_rng(b)
    x, w = T.rand_int8(rng, (13, 37)), T.rand_int8(rng, (29, 37))
    q = dict(multiplier=T.MULT, shift=T.shift_for(37), zero_point=1)
    T.assert_bits_equal(T.run_dense(x, w, 29, q, t),
                        T.ref_requantize(T.ref_dense(x, w), T.MULT, q["shift"], 1))
    xa, wc = T.rand_int8(rng, (11, 7, 6)), T.rand_int8(rng, (9, 11, 3, 3))
    q = dict(multiplier=T.MULT, shift=T.shift_for(99), zero_point=-1)
    T.assert_bits_equal(T.run_conv2d(xa, wc, 2, 1, q, t),
                        T.ref_requantize(T.ref_conv2d(xa, wc, 2, 1), T.MULT, q["shift"], -1))
    wd = T.rand_int8(rng, (11, 3, 3))
    q = dict(multiplier=T.MULT, shift=T.shift_for(9))
    T.assert_bits_equal(T.run_depthwise(xa, wd, 1, 1, q, t),
                        T.ref_requantize(T.ref_depthwise(xa, wd, 1, 1), T.MULT, q["shift"]))
    T.assert_bits_equal(T.run_max_pool(xa, 3, 3, 2, 1, t),
                        T.ref_max_pool(xa, 3, 3, 2, 1).astype(np.int8))
    ya = T.rand_int8(rng, (11, 7, 6))
    T.assert_bits_equal(T.run_add(xa, ya, True, t),
                        np.maximum(np.clip(xa.astype(np.int64) + ya, -128, 127), 0).astype(np.int8))


def mac_bound_conv_cycles(target):
    """A MAC-bound layer (ResNet-18's 3x3 conv of 128 channels at 28 x 28) on `target`."""
    op = tessera.npu_ops.conv2d(C=128, H=28, W=28, K=128, R=3, S=3, stride=1, pad=1,
                                multiplier=T.MULT, shift=22, target=target)
    m = tessera.build(op.schedule, op.args, target=target)
    r = m.roofline()
    assert r["mac_cycles"] == r["bound"]  # MAC-bound on this target
    return r["cycles"]


def test_a_mac_bound_layer_speeds_up_as_the_arrays_predict():
    c8, c16, c32 = (mac_bound_conv_cycles(T.TARGETS[n]) for n in ("npu-8x8", "npu-v1", "npu-32x32"))
    # 4x the MACs per cycle: within 10 % of a quarter of the cycles (and 8x8: of four times).
    assert 0.9 <= c32 / (c16 / 4) <= 1.1, (c16, c32)
    assert 0.9 <= c8 / (c16 * 4) <= 1.1, (c8, c16)


def test_non_square_array_is_a_target_error_naming_the_fields():
    text = json.dumps(dict(NPU_V1, name="npu-16x8", mac_out=8))
    with pytest.raises(tessera.TargetError, match=r"fields 'mac_in' \(16\) and 'mac_out' \(8\) differ: tessera supports square MAC arrays only \(mac_in = mac_out"):
        npu.parse_target(text, "npu-16x8.json")


def test_intrinsic_declared_for_another_array_is_a_target_error():
    X, W, acc, Y = dense_packed()
    s = npu_schedule(X, W, acc, Y)  # tensorized with npu-v1's 16 x 16 intrinsic
    with pytest.raises(tessera.TargetError, match=r"stage 'acc': tensorize with 'npu.gemm16x16', declared for a target whose block \(MAC-array side\) is 16, but target 'npu-32x32' has block 32 \(a 32x32 array\); declare the intrinsic for this target"):
        tessera.lower(s, [X, W, Y], target=T.TARGETS["npu-32x32"])


def test_tensorize_on_the_c_target_is_a_target_error():
    X, W, acc, Y = dense_packed()
    s = npu_schedule(X, W, acc, Y)
    with pytest.raises(tessera.TargetError, match=r"tensorize with 'npu.gemm16x16' needs an NPU target; target 'c' has no MAC array"):
        tessera.lower(s, [X, W, Y], target="c")


def test_sram_capacity_comes_from_the_target():
    # X tiles of 64 rows x 2048 channels, double-buffered: 256 KiB, more than the 8 x 8 target's
    # 128 KiB of SRAM; the 32 x 32 target's 1 MiB holds them.
    def dense(name):
        t = T.TARGETS[name]
        op = tessera.npu_ops.dense(M=64, K=2048, N=64, multiplier=1, shift=0, tile_m=64,
                                   tile_nb=1, tile_kb=2048 // t.block, db_input=True, target=t)
        return tessera.build(op.schedule, op.args, target=t)
    with pytest.raises(tessera.LowerError, match=r"SRAM overflow: .* needed, 128 KiB available \(sram_bytes of npu-8x8\): X.sram 2 x 128 KiB"):
        dense("npu-8x8")
    assert dense("npu-32x32").timing()["sram_peak_bytes"] > 256 * 1024
