"""The cost model's program features (autotune/features, docs/tuner_features.md), checked on
kernels built from hand-written schedules against references written here: the instruction
stream's features against a count of the kernel's disassembly and its buffer table, the loop
features against the loop nests the schedules were written to have."""
import math
import os
import re

import pytest

import tessera
from tessera import autotune as at
from tessera import npu, te
from tessera._tessera.npu import build_npu
from npu_ops_defs import dense_packed, npu_schedule

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "tuner_features.md")
T = npu.default_target()


def lg(n):
    return math.log2(1 + n)


def named(values, names):
    assert len(values) == len(names)
    return dict(zip(names, values))


def kernel_feats(kernel):
    return named(at.kernel_features(kernel), at.kernel_feature_names())


def loop_feats(func):
    return named(at.loop_features(func), at.loop_feature_names())


# ---- an independent reading of a kernel: its disassembly and buffer table ----------------------

INSN = re.compile(r"^(\w+)")
EXT = re.compile(r"ext=(\d+)x(\d+)")
DMA = re.compile(r"^(load|store) (sram|acc)\[\d+\] stride=\d+ (?:<-|->) ddr\[(\d+)\] "
                 r"ddr_stride=(\d+) size=(\d+)x(\d+)(?: pad=(\d+),(\d+),(\d+),(\d+))?")


def reference(kernel):
    """Per opcode counts, GEMM steps, vector rows, and per buffer DMA bytes and counts."""
    counts, gemm_steps, vector_rows, per_buffer = {}, 0, 0, {}
    load_bytes = store_bytes = 0
    pad_units = load_units = 0
    for line in kernel.disassemble():
        op = INSN.match(line).group(1)
        counts[op] = counts.get(op, 0) + 1
        if op in ("gemm", "vector"):
            a, b = map(int, EXT.search(line).groups())
            if op == "gemm":
                gemm_steps += a * b
            else:
                vector_rows += a * b
        if op in ("load", "store"):
            m = DMA.match(line)
            kind, mem, addr, _, rows, cols = m.groups()[:6]
            unit = T.mac_in if mem == "sram" else 4 * T.mac_out
            nbytes = int(rows) * int(cols) * unit
            if kind == "load":
                load_bytes += nbytes
                pads = [int(p or 0) for p in m.groups()[6:]]
                units = (pads[0] + int(rows) + pads[1]) * (pads[2] + int(cols) + pads[3])
                load_units += units
                pad_units += units - int(rows) * int(cols)
            else:
                store_bytes += nbytes
            buf = next(b for b in kernel.buffers if b.ddr_offset <= int(addr) < b.ddr_offset + b.nbytes)
            moved, n = per_buffer.get(buf.name, (0, 0))
            per_buffer[buf.name] = (moved + nbytes, n + 1)
    return dict(counts=counts, gemm_steps=gemm_steps, vector_rows=vector_rows,
                per_buffer=per_buffer, load_bytes=load_bytes, store_bytes=store_bytes,
                pad_fraction=pad_units / load_units if load_units else -1)


def library_kernels():
    conv = dict(C=32, H=14, W=14, K=48, R=3, S=3, stride=1, pad=1, multiplier=1 << 14, shift=22)
    # Row tiles of whole width, every input channel per tile, weights per output-channel tile.
    rows = dict(tile_ow=14, tile_cb=2, order=["kb", "oh", "ow"], weights_at="tile",
                input_load="window", db_output=False)
    ops = {
        "conv_rows": tessera.npu_ops.conv2d(**conv, **rows, tile_oh=7, tile_kb=1, fold="rows",
                                            db_input=True, db_weights=True),
        "conv_channels": tessera.npu_ops.conv2d(**conv, **rows, tile_oh=2, tile_kb=3,
                                                fold="channels", db_input=False,
                                                db_weights=False),
        "dense": tessera.npu_ops.dense(M=24, K=64, N=40, multiplier=1 << 14, shift=22, tile_m=8),
        "add": tessera.npu_ops.add(C=32, H=8, W=8, relu=True, tile_h=2),
        "pool": tessera.npu_ops.max_pool2d(C=32, H=16, W=16, R=3, S=3, stride=2, pad=1),
    }
    out = {}
    for name, op in ops.items():
        f = tessera.lower(op.schedule, op.args, name, "npu")
        out[name] = (op, f, build_npu(f).kernel)
    return out


@pytest.fixture(scope="module")
def kernels():
    return library_kernels()


@pytest.mark.parametrize("name", ["conv_rows", "conv_channels", "dense", "add", "pool"])
def test_instruction_stream_features_match_the_disassembly(kernels, name):
    _, _, k = kernels[name]
    f = kernel_feats(k)
    ref = reference(k)
    for op in ("load", "store", "gemm", "vector", "sync"):
        assert f[f"insn.{op}"] == pytest.approx(lg(ref["counts"].get(op, 0))), op
    assert f["insn.total"] == pytest.approx(lg(len(k)))
    assert f["gemm.steps"] == pytest.approx(lg(ref["gemm_steps"]))
    assert f["vector.rows"] == pytest.approx(lg(ref["vector_rows"]))
    assert f["dma.load.bytes"] == pytest.approx(lg(ref["load_bytes"]))
    assert f["dma.store.bytes"] == pytest.approx(lg(ref["store_bytes"]))
    assert f["dma.pad_fraction"] == pytest.approx(ref["pad_fraction"])
    # Buffers by slot: inputs in table order, then the output.
    inputs = [b for b in k.buffers if b.role == "input"]
    outputs = [b for b in k.buffers if b.role == "output"]
    slots = list(zip(["in0", "in1", "in2"], inputs)) + [("out0", outputs[0])]
    for slot, b in slots:
        moved, dmas = ref["per_buffer"].get(b.name, (0, 0))
        assert f[f"buf.{slot}.bytes"] == pytest.approx(lg(b.nbytes)), slot
        assert f[f"buf.{slot}.moved"] == pytest.approx(lg(moved)), slot
        assert f[f"buf.{slot}.dmas"] == pytest.approx(lg(dmas)), slot
        assert f[f"buf.{slot}.traffic"] == pytest.approx(moved / b.nbytes), slot
    for slot in ["in0", "in1", "in2"][len(inputs):] + ["rest"]:
        assert f[f"buf.{slot}.bytes"] == -1 and f[f"buf.{slot}.moved"] == -1


@pytest.mark.parametrize("name", ["conv_rows", "dense", "pool"])
def test_traffic_and_footprint_agree_with_the_timing_simulator(kernels, name):
    # A second witness: the simulator's own DDR and on-chip statistics.
    _, _, k = kernels[name]
    f = kernel_feats(k)
    s = npu.run_timing(k)
    assert f["dma.load.bytes"] == pytest.approx(lg(s["ddr_bytes_read"]))
    assert f["dma.store.bytes"] == pytest.approx(lg(s["ddr_bytes_written"]))
    assert f["onchip.sram"] == pytest.approx(s["sram_peak_bytes"] / T.sram_bytes)
    assert f["onchip.acc"] == pytest.approx(s["acc_peak_bytes"] / T.acc_bytes)
    macs_per_step = T.mac_in * T.mac_out
    assert f["gemm.steps"] == pytest.approx(lg(s["macs"] // macs_per_step))
    bound = npu.roofline(k).cycles
    assert f["est.bound"] == pytest.approx(lg(bound))
    # No modelled overlap: the busiest resource alone cannot beat the measured cycles.
    assert f["est.critical_over_bound"] * bound <= s["cycles"]


def test_the_loop_features_of_a_hand_written_npu_schedule():
    X, W, acc, Y = dense_packed(M=4, KB=2, NB=3)
    f = tessera.lower(npu_schedule(X, W, acc, Y), [X, W, Y], "d", "npu")
    v = loop_feats(f)
    # The GEMM runs in for m (4): for nb (3): for kb (2), serial; nothing is loaded inside.
    assert [v[f"loop.{i}.extent"] for i in range(4)] == pytest.approx([2, math.log2(3), 1, -1])
    assert [v[f"loop.{i}.kind"] for i in range(4)] == [0, 0, 0, -1]
    assert [v[f"loop.{i}.dmas"] for i in range(3)] == [0, 0, 0]
    assert (v["main.kind"], v["main.depth"]) == (0, 3)
    assert v["main.executions"] == pytest.approx(lg(24))
    # X, W loaded and Y stored once, outside every loop.
    for slot in ("in0", "in1", "out0"):
        assert (v[f"arg.{slot}.dma_depth"], v[f"arg.{slot}.dma_stmts"]) == (0, 1), slot
    assert v["arg.in2.dma_depth"] == -1 and v["arg.rest.dma_depth"] == -1
    assert v["ir.static.gemm"] == 1 and v["ir.static.vector"] == pytest.approx(lg(2))
    assert v["ir.dynamic.gemm"] == pytest.approx(lg(24))
    assert v["ir.dynamic.vector"] == pytest.approx(lg(12 + 12))  # clear, then requantize
    assert v["ir.loops"] == pytest.approx(lg(5)) and v["ir.max_depth"] == 3
    sram = 4 * 2 * 16 + 3 * 2 * 16 * 16 + 4 * 3 * 16
    assert v["ir.sram.declared"] == pytest.approx(sram / T.sram_bytes)
    assert v["ir.acc.declared"] == pytest.approx(4 * 3 * 16 * 4 / T.acc_bytes)
    assert v["ir.sram.double_buffered"] == 0


def test_loop_annotations_and_extents_of_a_cpu_schedule():
    A = te.placeholder((64, 32), name="A")
    B = te.placeholder((32, 48), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((64, 48), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(io)
    jo, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].vectorize(ji)
    s[C].unroll(ii)
    v = loop_feats(tessera.lower(s, [A, B, C], "mm", "c"))
    # The accumulation runs in i.outer (8, parallel), i.inner (8, unrolled), j.outer (3),
    # j.inner (16, vectorized), k (32).
    assert [v[f"loop.{i}.extent"] for i in range(6)] == pytest.approx(
        [3, 3, math.log2(3), 4, 5, -1])
    assert [v[f"loop.{i}.kind"] for i in range(6)] == [1, 3, 0, 2, 0, -1]
    assert (v["main.kind"], v["main.depth"]) == (4, 5)  # a buffer store
    assert v["main.executions"] == pytest.approx(lg(64 * 48 * 32))
    assert v["ir.loops.parallel"] == 1 and v["ir.loops.vectorized"] == 1
    assert v["ir.loops.unrolled"] == 1 and v["ir.loops.serial"] == pytest.approx(lg(2))


def test_dma_depth_says_where_each_tile_is_loaded(kernels):
    _, f, _ = kernels["conv_rows"]
    v = loop_feats(f)
    # The weights of a channel-block tile are loaded inside the k tile loop only; the padded input
    # inside the row tile loop too; the output stored per row tile.
    assert v["arg.in1.dma_depth"] == 1
    assert v["arg.in0.dma_depth"] == 2 and v["arg.out0.dma_depth"] == 2
    assert v["ir.sram.double_buffered"] > 0


def test_features_do_not_depend_on_the_kernel_name_and_are_deterministic():
    a = tessera.npu_ops.conv2d(C=32, H=14, W=14, K=32, R=3, S=3, stride=1, pad=1,
                               multiplier=1 << 14, shift=22, tile_oh=2)
    fa = tessera.lower(a.schedule, a.args, "first", "npu")
    fb = tessera.lower(a.schedule, a.args, "second", "npu")
    ka, kb = build_npu(fa).kernel, build_npu(fb).kernel
    assert at.program_features(fa, ka) == at.program_features(fb, kb)
    assert at.program_features(fa, ka) == at.program_features(fa, ka)


def test_configs_that_did_not_build_get_missing_values():
    miss = at.missing_program_features()
    assert len(miss) == len(at.program_feature_names()) and all(math.isnan(x) for x in miss)


def test_every_feature_has_a_unique_name_documented_in_docs():
    names = at.program_feature_names()
    assert len(names) == len(set(names))
    assert names == at.loop_feature_names() + at.kernel_feature_names()
    doc = open(DOC).read()
    documented = set(re.findall(r"^\| `([^`]+)`", doc, re.M))
    for n in names:
        pattern = re.sub(r"^loop\.\d+\.", "loop.<i>.", n)
        pattern = re.sub(r"^(arg|buf)\.(in0|in1|in2|out0|rest)\.", r"\1.<slot>.", pattern)
        assert pattern in documented, f"{n} ({pattern}) is not in docs/tuner_features.md"
