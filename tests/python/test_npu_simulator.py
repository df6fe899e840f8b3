"""tessera.npu from Python: build kernels, save/load them, run them on numpy arrays (references
computed with numpy), read timing statistics and the roofline bound."""
import numpy as np
import pytest

import tessera
from tessera import npu


def gemm_kernel(multiplier, shift, zero_point):
    """int8 GEMM 64x64x64 with requantize: A loaded as SRAM rows (m, kb) at 4m+kb, weights packed
    as 16 tiles (nb, kb), one reset GEMM and one accumulating GEMM per output column block."""
    a = npu.Assembler(npu.default_target(), "gemm64")
    A = a.buffer("A", [64, 64], npu.DType.INT8, npu.BufferRole.INPUT)
    W = a.buffer("W", [4, 4, 16, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    C = a.buffer("C", [64, 64], npu.DType.INT8, npu.BufferRole.OUTPUT)
    a.load(npu.Mem.SRAM, 0, 4, A, 64, 64, 4)
    a.load(npu.Mem.SRAM, 256, 256, W, 4096, 1, 256, npu.PUSH_NEXT)
    for nb in range(4):
        wgt = 256 + nb * 64
        a.gemm(True, 64, 1, npu.at(nb, 4), npu.at(0, 4), npu.at(wgt), npu.POP_PREV if nb == 0 else 0)
        a.gemm(False, 64, 3, npu.at(nb, 4), npu.at(1, 4, 1), npu.at(wgt + 16, 0, 16))
    a.requantize(256, 1, npu.sram(512, 1), npu.acc(0, 1), multiplier, shift, zero_point,
                 npu.PUSH_NEXT)
    a.store(npu.Mem.SRAM, 512, 4, C, 64, 64, 4, npu.POP_PREV)
    return a.finish()


def pack_weights(b):
    """W[nb, kb, o, i] = B[kb*16 + i, nb*16 + o]: each 16x16 tile holds output lane o in row o."""
    return np.ascontiguousarray(b.reshape(4, 16, 4, 16).transpose(2, 0, 3, 1))


def requantize_ref(x, multiplier, shift, zero_point):
    p = x.astype(np.int64) * multiplier
    r = (p + (1 << (shift - 1))) >> shift
    return np.clip(r + zero_point, -128, 127).astype(np.int8)


def test_int8_gemm_with_requantize_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (64, 64), dtype=np.int8)
    b = rng.integers(-128, 128, (64, 64), dtype=np.int8)
    kernel = gemm_kernel(1 << 20, 30, 5)
    outputs, stats = npu.run(kernel, {"A": a, "W": pack_weights(b)})
    want = requantize_ref(a.astype(np.int32) @ b.astype(np.int32), 1 << 20, 30, 5)
    np.testing.assert_array_equal(outputs["C"], want)
    assert outputs["C"].dtype == np.int8 and outputs["C"].shape == (64, 64)
    assert stats["macs"] == 64 ** 3


def test_add_relu_saturates_like_numpy():
    a = npu.Assembler(npu.default_target(), "add_relu")
    X = a.buffer("x", [32, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    Y = a.buffer("y", [32, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    Z = a.buffer("z", [32, 16], npu.DType.INT8, npu.BufferRole.OUTPUT)
    a.load(npu.Mem.SRAM, 0, 1, X, 16, 32, 1)
    a.load(npu.Mem.SRAM, 32, 1, Y, 16, 32, 1, npu.PUSH_NEXT)
    a.vector(npu.VecOp.ADD, 32, 1, npu.acc(0, 1), npu.sram(0, 1), npu.sram(32, 1), npu.POP_PREV)
    a.relu(32, 1, npu.sram(64, 1), npu.acc(0, 1), npu.PUSH_NEXT)
    a.store(npu.Mem.SRAM, 64, 1, Z, 16, 32, 1, npu.POP_PREV)
    kernel = a.finish()
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, (32, 16), dtype=np.int8)
    y = rng.integers(-128, 128, (32, 16), dtype=np.int8)
    outputs, _ = npu.run(kernel, {"x": x, "y": y})
    want = np.clip(np.maximum(x.astype(np.int32) + y, 0), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(outputs["z"], want)


def test_kernel_file_round_trip_and_timing_statistics(tmp_path):
    kernel = gemm_kernel(1 << 20, 30, 0)
    path = str(tmp_path / "gemm.tnpu")
    kernel.save(path)
    loaded = npu.load_kernel(path)
    assert loaded.to_bytes() == kernel.to_bytes()
    assert [b.name for b in loaded.buffers] == ["A", "W", "C"]
    assert loaded.disassemble()[0] == "load sram[0] stride=4 <- ddr[0] ddr_stride=64 size=64x4"
    t = npu.default_target()
    stats = npu.run_timing(loaded)
    # The 13 instructions arrive in one fetch burst: request latency, then 32 bytes each over the
    # DDR port plus one row.
    fetch = t.dma_fixed_cycles + 13 * 32 // t.ddr_bytes_per_cycle + t.dma_row_cycles
    # Two loads, one after the other in the load queue, each 100 + bytes/16 + rows cycles.
    loads = (t.dma_fixed_cycles + 4096 // 16 + 64) + (t.dma_fixed_cycles + 4096 // 16 + 1)
    # The accumulating GEMMs step 3 times on each of their 64 rows: the 2 later steps wait for the
    # accumulator's read-after-write latency.
    accumulate = t.gemm_fixed_cycles + 64 * (1 + 2 * t.acc_raw_latency_cycles)
    compute = 4 * ((t.gemm_fixed_cycles + 64) + accumulate) + (10 + 256)
    store = t.dma_fixed_cycles + 4096 // 16 + 64
    assert stats["cycles"] == fetch + loads + compute + store + 0  # finish overlaps the store
    assert stats["ddr_bytes_fetched"] == 13 * 32
    assert stats["insn_count"]["gemm"] == 8
    assert stats["ddr_bytes_read"] == 8192 and stats["ddr_bytes_written"] == 4096
    assert stats["units"]["compute"]["busy_cycles"] == compute + 1
    assert npu.run_timing(loaded) == stats, "deterministic"
    own = npu.kernel_roofline(loaded)
    assert own.cycles == 1024 and own.ddr_bytes == 3 * 4096 and own.limited_by == "MAC"
    with pytest.raises(tessera.ArgumentError, match="declares no true work"):
        npu.roofline(loaded)


def test_declared_true_work_is_the_bound_and_survives_the_file(tmp_path):
    """The same GEMM as the kernel of a 64x40 by 40x64 product padded to K = 64."""
    a = npu.Assembler(npu.default_target(), "padded")
    a.buffer("A", [64, 64], npu.DType.INT8, npu.BufferRole.INPUT)
    a.gemm(True, 64, 4, npu.at(0, 1), npu.at(0, 4, 1), npu.at(0))
    a.declare_work(macs=64 * 40 * 64, min_ddr_bytes=64 * 40 + 40 * 64 + 64 * 64,
                   vector_ops=64 * 64)
    path = str(tmp_path / "padded.tnpu")
    a.finish().save(path)
    k = npu.load_kernel(path)
    assert k.work == {"macs": 64 * 40 * 64, "min_ddr_bytes": 64 * 40 + 40 * 64 + 64 * 64,
                      "vector_ops": 64 * 64}
    assert npu.roofline(k).cycles == 64 * 40 * 64 / 256
    assert npu.kernel_roofline(k).macs == 64 * 4 * 256  # its 256 GEMM steps, padded K included
    cycles = npu.run_timing(k)["cycles"]
    assert npu.achieved_over_bound(k, cycles) == pytest.approx(cycles / (64 * 40 * 64 / 256))


def test_wrong_input_shape_is_an_argument_error_naming_the_buffer():
    kernel = gemm_kernel(1 << 20, 30, 0)
    with pytest.raises(tessera.ArgumentError, match="buffer 'A' has shape"):
        npu.run(kernel, {"A": np.zeros((64, 63), np.int8), "W": np.zeros((4, 4, 16, 16), np.int8)})
    with pytest.raises(ValueError, match="input buffer 'W' is missing"):
        npu.run(kernel, {"A": np.zeros((64, 64), np.int8)})


def test_errors_arrive_as_tessera_exceptions():
    with pytest.raises(tessera.TargetError, match="missing field"):
        npu.parse_target('{"name": "x"}')
    data = bytearray(gemm_kernel(1, 1, 0).to_bytes())
    data[len(data) // 2] ^= 1
    with pytest.raises(tessera.KernelFileError, match="checksum"):
        npu.kernel_from_bytes(bytes(data))
    a = npu.Assembler(npu.default_target(), "oob")
    a.buffer("x", [16], npu.DType.INT8, npu.BufferRole.INPUT)
    a.load(npu.Mem.SRAM, 16383, 1, 0, 16, 2, 1)
    with pytest.raises(tessera.SimulationError, match=r"instruction #0 \(load sram\[16383\]"):
        npu.run_timing(a.finish())


def test_zero_padded_3x3_conv_tile_matches_numpy():
    """NHWC16 tile: the load pads one pixel on each side; one GEMM per tap walks the 8x8 output
    pixels with the padded tile's row stride; the accumulator is stored as int32."""
    H = W = 8
    P = W + 2
    a = npu.Assembler(npu.default_target(), "conv3x3")
    IN = a.buffer("input", [H, W, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    WT = a.buffer("weight", [3, 3, 16, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    OUT = a.buffer("output", [H, W, 16], npu.DType.INT32, npu.BufferRole.OUTPUT)
    a.load(npu.Mem.SRAM, 0, P, IN, W * 16, H, W, 0, npu.Pad(1, 1, 1, 1))
    a.load(npu.Mem.SRAM, 100, 0, WT, 0, 1, 9 * 16, npu.PUSH_NEXT)
    for tap in range(9):
        r, s = divmod(tap, 3)
        a.gemm(tap == 0, H, W, npu.at(0, W, 1), npu.at(r * P + s, P, 1), npu.at(100 + tap * 16),
               npu.POP_PREV if tap == 0 else 0)
    a.sync(npu.Queue.COMPUTE, npu.PUSH_NEXT)
    a.store(npu.Mem.ACC, 0, 1, OUT, 64, H * W, 1, npu.POP_PREV)
    kernel = a.finish()

    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (H, W, 16), dtype=np.int8)
    w = rng.integers(-128, 128, (3, 3, 16, 16), dtype=np.int8)  # [r, s, out, in]
    outputs, _ = npu.run(kernel, {"input": x, "weight": w})
    xp = np.pad(x.astype(np.int32), ((1, 1), (1, 1), (0, 0)))
    want = np.zeros((H, W, 16), np.int32)
    for r in range(3):
        for s in range(3):
            want += np.einsum("hwi,oi->hwo", xp[r:r + H, s:s + W], w[r, s].astype(np.int32))
    np.testing.assert_array_equal(outputs["output"], want)


def relu_kernel(with_token):
    """load -> relu -> store; without the load->compute token the relu may read its input before
    the DMA has written it."""
    a = npu.Assembler(npu.default_target(), "relu")
    X = a.buffer("x", [16, 16], npu.DType.INT8, npu.BufferRole.INPUT)
    Y = a.buffer("y", [16, 16], npu.DType.INT8, npu.BufferRole.OUTPUT)
    a.load(npu.Mem.SRAM, 0, 1, X, 16, 16, 1, npu.PUSH_NEXT if with_token else 0)
    a.relu(16, 1, npu.sram(16, 1), npu.sram(0, 1), npu.PUSH_NEXT | (npu.POP_PREV if with_token else 0))
    a.store(npu.Mem.SRAM, 16, 1, Y, 16, 16, 1, npu.POP_PREV)
    return a.finish()


def test_a_missing_token_is_a_simulation_error_naming_both_instructions():
    x = np.random.default_rng(3).integers(-128, 128, (16, 16), dtype=np.int8)
    out, _ = npu.run(relu_kernel(True), {"x": x})
    np.testing.assert_array_equal(out["y"], np.maximum(x, 0))
    with pytest.raises(tessera.SimulationError,
                       match=r"instruction #1 \(vector.relu .*\): hazard: on the compute queue it "
                             r"reads SRAM rows \[0, 16\), which instruction #0 \(load .*\) on the "
                             r"load queue writes"):
        npu.run(relu_kernel(False), {"x": x})
    # Without the check the data moves in timing order: the relu read zeros.
    out, _ = npu.run(relu_kernel(False), {"x": x}, check_hazards=False)
    np.testing.assert_array_equal(out["y"], np.zeros((16, 16), np.int8))
