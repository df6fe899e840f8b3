"""Inputs that used to crash the process or hang it (issue 7): each now raises a typed error naming
the object, quickly. Everything that could crash runs in a subprocess, so that a crash fails the
test instead of killing the test run."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tessera
from tessera import npu

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BUILD = os.environ.get("TESSERA_BUILD_DIR", os.path.join(ROOT, "build"))


def run_python(code, timeout=120, **popen):
    """Runs `code` in a fresh interpreter; returns the CompletedProcess. A death by signal shows
    as a negative return code."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), HERE]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=timeout, **popen)


def assert_clean_error(proc, words):
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert words in proc.stdout, proc.stdout + proc.stderr[-2000:]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def with_fixed_checksum(data):
    """A kernel file with its trailing checksum recomputed, so edits reach the field checks."""
    body = bytes(data[:-8])
    return body + fnv1a64(body).to_bytes(8, "little")


# --- NPU operator shapes --------------------------------------------------------------------------

@pytest.mark.parametrize("op, kwargs, words", [
    ("conv2d", dict(stride=0), "conv2d: stride = 0 (the window's step in rows and columns) must "
                               "be in [1, 16777216]"),
    ("conv2d", dict(stride=-2), "conv2d: stride = -2 (the window's step"),
    ("conv2d", dict(pad=-1), "conv2d: pad = -1 (zero rows and columns added on each side) must be "
                             "in [0, 16777216]"),
    ("conv2d", dict(R=9, pad=0), "conv2d: R = 9 (window height) is larger than the padded input: "
                                 "H + 2 * pad = 6; the window must fit, R <= H + 2 * pad"),
    ("conv2d", dict(S=10, pad=1), "conv2d: S = 10 (window width) is larger than the padded input: "
                                  "W + 2 * pad = 8"),
    ("conv2d", dict(H=2**40), "conv2d: H = 1099511627776 (input height) must be in [1, 16777216]"),
    ("conv2d_im2col", dict(stride=0), "conv2d_im2col: stride = 0 (the window's step"),
    ("conv2d_im2col", dict(pad=-3), "conv2d_im2col: pad = -3 (zero rows"),
    ("depthwise_conv2d", dict(stride=0), "depthwise_conv2d: stride = 0 (the window's step"),
    ("depthwise_conv2d", dict(stride=-1), "depthwise_conv2d: stride = -1 (the window's step"),
    ("depthwise_conv2d", dict(pad=-1), "depthwise_conv2d: pad = -1 (zero rows"),
    ("depthwise_conv2d", dict(R=9, pad=0), "depthwise_conv2d: R = 9 (window height) is larger"),
    ("max_pool2d", dict(stride=0), "max_pool2d: stride = 0 (the window's step"),
    ("max_pool2d", dict(stride=-3), "max_pool2d: stride = -3 (the window's step"),
    ("max_pool2d", dict(pad=-1), "max_pool2d: pad = -1 (zero rows"),
    ("max_pool2d", dict(S=9, pad=1), "max_pool2d: S = 9 (window width) is larger than the padded "
                                     "input: W + 2 * pad = 8"),
    ("dense", dict(K=0), "dense: K = 0 (reduction length) must be in [1, 16777216]"),
    ("add", dict(H=-3), "add: H = -3 (height) must be in [1, 16777216]"),
    ("conv2d", dict(stride=1.5), "conv2d: argument 'stride' = 1.5 is not an integer"),
    ("conv2d", dict(pad="1"), "conv2d: argument 'pad' = \"1\" is not an integer"),
])
def test_bad_npu_operator_shape_is_an_argument_error_naming_operator_and_field(op, kwargs, words):
    base = {
        "conv2d": dict(C=16, H=6, W=6, K=16, R=3, S=3, stride=1, pad=1, multiplier=1, shift=0),
        "conv2d_im2col": dict(C=3, H=6, W=6, K=16, R=3, S=3, stride=1, pad=1, multiplier=1,
                              shift=0),
        "depthwise_conv2d": dict(C=16, H=6, W=6, R=3, S=3, stride=1, pad=1, multiplier=1,
                                 shift=0),
        "max_pool2d": dict(C=16, H=6, W=6, R=3, S=3, stride=2, pad=1),
        "dense": dict(M=4, K=16, N=16, multiplier=1, shift=0),
        "add": dict(C=16, H=3, W=3),
    }[op]
    base.update(kwargs)
    # The operator library (tessera.npu_ops) and the tuner's task (the template's entry point,
    # what a farm worker runs) check the same way, before any output size is computed.
    proc = run_python(f"""
        import tessera
        from tessera.autotune import NpuTask
        for make in (lambda: getattr(tessera.npu_ops, {op!r})(**{base!r}),
                     lambda: NpuTask({op!r}, {base!r})):
            try:
                make()
                print("no error")
            except tessera.ArgumentError as e:
                print("ArgumentError:", e)
    """)
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1], proc.stdout
    assert lines[0].startswith("ArgumentError: " + words), proc.stdout


# --- loaders --------------------------------------------------------------------------------------

def test_truncated_and_damaged_cpu_libraries_are_errors_not_crashes(tmp_path):
    proc = run_python(f"""
        import numpy as np, tessera
        from tessera import te
        A = te.placeholder((64,), "float32", "A")
        B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
        s = te.create_schedule(B.op)
        s[B].parallel(B.op.axis[0])
        tessera.build(s, [A, B], name="dbl").export_library({str(tmp_path / 'dbl.so')!r})
        data = open({str(tmp_path / 'dbl.so')!r}, "rb").read()
        bad = {str(tmp_path / 'bad.so')!r}
        rng = np.random.default_rng(0)
        cases = [data[:n] for n in (0, 64, 1000, len(data) // 2, len(data) - 24, len(data) - 1)]
        for _ in range(60):
            d = bytearray(data)
            at = int(rng.integers(len(d)))
            d[at] ^= 1 << int(rng.integers(8))
            cases.append(bytes(d))
        errors = 0
        for c in cases:
            open(bad, "wb").write(c)
            try:
                tessera.load_module(bad)
            except tessera.RuntimeError as e:
                assert bad in str(e), e
                errors += 1
        m = tessera.load_module({str(tmp_path / 'dbl.so')!r})
        a = np.arange(64, dtype="float32"); b = np.zeros(64, "float32"); m(a, b)
        assert (b == 2 * a).all()
        print("errors", errors, "of", len(cases))
    """)
    assert_clean_error(proc, "errors 66 of 66")


def test_a_directory_is_a_typed_error_naming_it_for_every_loader(tmp_path):
    d = str(tmp_path)
    with pytest.raises(tessera.KernelFileError,
                       match=rf"kernel file '{d}': cannot open: is a directory, not a file"):
        npu.load_kernel(d)
    with pytest.raises(tessera.RuntimeError, match=rf"could not open '{d}': is a directory"):
        tessera.load_module(d)
    with pytest.raises(tessera.TargetError,
                       match=rf"target description '{d}': cannot open file: is a directory"):
        npu.load_target(d)
    with pytest.raises(tessera.KernelFileError, match=r"No such file or directory"):
        npu.load_kernel(os.path.join(d, "missing.tnpu"))


def test_a_named_pipe_is_a_typed_error_for_every_loader_and_saver_not_a_hang(tmp_path):
    # Opening a FIFO blocks until its other end is opened: each loader used to wait forever.
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    proc = run_python(f"""
        import tessera
        from tessera import npu
        a = npu.Assembler(npu.default_target(), "k")
        a.buffer("x", [16], npu.DType.INT8, npu.BufferRole.INPUT)
        kernel = a.finish()
        for what, call in (("load_kernel", lambda: npu.load_kernel({fifo!r})),
                           ("load_module", lambda: tessera.load_module({fifo!r})),
                           ("load_target", lambda: npu.load_target({fifo!r})),
                           ("Kernel.save", lambda: kernel.save({fifo!r}))):
            try:
                call()
                print(what, "no error")
            except (tessera.KernelFileError, tessera.RuntimeError, tessera.TargetError) as e:
                print(what, type(e).__name__ + ":", e)
    """, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [
        f"load_kernel KernelFileError: kernel file '{fifo}': cannot open: is not a regular file",
        f"load_module RuntimeError: could not open '{fifo}': is not a regular file",
        f"load_target TargetError: target description '{fifo}': cannot open file: is not a "
        "regular file",
        f"Kernel.save RuntimeError: cannot write kernel file '{fifo}': is a named pipe, not a "
        "regular file"], proc.stdout


def test_disassembler_on_a_directory_or_missing_file_exits_with_a_message(tmp_path):
    dis = os.path.join(BUILD, "runtime", "npu", "tessera-npu-dis")
    for path, words in ((str(tmp_path), "is a directory"),
                        (str(tmp_path / "none.tnpu"), "No such file or directory")):
        proc = subprocess.run([dis, path], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, (proc.returncode, proc.stderr)
        assert f"tessera-npu-dis: kernel file '{path}': cannot open: {words}" in proc.stderr


def _kernel_with_buffer_named(name):
    a = npu.Assembler(npu.default_target(), "k")
    x = a.buffer("bufA", [16], npu.DType.INT8, npu.BufferRole.INPUT)
    y = a.buffer("y", [16], npu.DType.INT8, npu.BufferRole.OUTPUT)
    a.load(npu.Mem.SRAM, 0, 1, x, 16, 1, 1, npu.PUSH_NEXT)
    a.sync(npu.Queue.COMPUTE, npu.POP_PREV | npu.PUSH_NEXT)
    a.store(npu.Mem.SRAM, 0, 1, y, 16, 1, 1, npu.POP_PREV)
    data = a.finish().to_bytes()
    assert data.count(b"bufA") == 1
    return with_fixed_checksum(data.replace(b"bufA", name))


@pytest.mark.parametrize("name, words", [
    (b"bu\xff\xfe", "buffer name at byte 41 'bu\\xff\\xfe' is not valid UTF-8 (byte 0xff at "
                    "offset 2)"),
    (b"b\x00fA", "buffer name at byte 41 'b\\x00fA' contains a NUL character (byte 0x00 at "
                 "offset 1)"),
    (b"\xed\xa0\x80A", "buffer name at byte 41 '\\xed\\xa0\\x80A' is not valid UTF-8 (byte 0xed at "
                     "offset 0)"),  # a UTF-16 surrogate
])
def test_kernel_file_names_must_be_utf8_without_nul(name, words):
    with pytest.raises(tessera.KernelFileError, match="kernel file '<bytes>': " + re.escape(words)):
        npu.kernel_from_bytes(_kernel_with_buffer_named(name))


def test_valid_utf8_names_load_and_read_back():
    k = npu.kernel_from_bytes(_kernel_with_buffer_named("b€".encode()))  # 4 bytes, like bufA
    assert [b.name for b in k.buffers] == ["b€", "y"]


def test_a_name_with_a_nul_cannot_be_saved():
    a = npu.Assembler(npu.default_target(), "k\0x")
    a.buffer("x", [16], npu.DType.INT8, npu.BufferRole.INPUT)
    with pytest.raises(tessera.KernelFileError,
                       match=r"cannot save kernel: kernel name 'k\\x00x' contains a NUL"):
        a.finish().to_bytes()


# --- integer division ----------------------------------------------------------------------------

def test_integer_division_by_zero_and_int_min_by_minus_one_give_numpy_results_not_sigfpe():
    # Both trapped in the kernel (SIGFPE, or SIGILL for a literal 0) and killed the process.
    proc = run_python("""
        import numpy as np, tessera
        from tessera import te
        bad = []
        for dtype in ("int8", "int16", "int32", "int64", "uint8"):
            X = te.placeholder((6,), dtype, "X")
            D = te.placeholder((6,), dtype, "D")
            Q = te.compute((6,), lambda i: X[i] // D[i], name="Q")
            R = te.compute((6,), lambda i: X[i] % D[i], name="R")
            Z = te.compute((6,), lambda i: (X[i] // 0) + (X[i] % 0), name="Z")
            f = tessera.build(te.create_schedule([Q.op, R.op, Z.op]), [X, D, Q, R, Z])
            info = np.iinfo(dtype)
            x = np.array([info.min, info.min, 7, -7 if info.min else 9, info.max, 5], dtype)
            d = np.array([0, -1 if info.min else 3, 0, -1 if info.min else 2, 0, 2], dtype)
            q, r, z = (np.zeros(6, dtype) for _ in range(3))
            f(x, d, q, r, z)
            with np.errstate(all="ignore"):
                want = (x // d, x % d, np.zeros(6, dtype))
            for got, ref, name in zip((q, r, z), want, "QRZ"):
                if not np.array_equal(got, ref):
                    bad.append((dtype, name, got.tolist(), ref.tolist()))
        print("mismatches", bad)
    """)
    assert_clean_error(proc, "mismatches []")


# --- simulation bound and interrupts --------------------------------------------------------------

def _gemm_kernel(ext0, ext1, count):
    a = npu.Assembler(npu.default_target(), "big")
    a.buffer("A", [16], npu.DType.INT8, npu.BufferRole.INPUT)
    a.buffer("C", [16], npu.DType.INT8, npu.BufferRole.OUTPUT)
    for _ in range(count):
        a.gemm(False, ext0, ext1, npu.at(0), npu.at(0), npu.at(0))
    return a.finish()


def test_a_small_kernel_asking_for_10_to_the_12_macs_is_refused_at_once():
    k = _gemm_kernel(65535, 65535, 1)
    assert len(k.to_bytes()) < 500
    t0 = time.monotonic()
    for run in (lambda: npu.run(k, {"A": np.zeros(16, np.int8)}), lambda: npu.run_timing(k)):
        with pytest.raises(tessera.SimulationError,
                           match=r"instruction #0 \(gemm ext=65535x65535 .*\): the program's work "
                                 r"passes the simulation limit of 68719476736 element operations"):
            run()
    assert time.monotonic() - t0 < 1.0


def test_the_work_limit_is_a_parameter():
    k = _gemm_kernel(64, 64, 2)  # 2 x 4096 steps x 256 MACs
    with pytest.raises(tessera.SimulationError, match=r"instruction #1 \(gemm"):
        npu.run_timing(k, max_work=4096 * 256 + 10)
    assert npu.run_timing(k, max_work=3 * 4096 * 256)["macs"] == 2 * 4096 * 256
    with pytest.raises(tessera.ArgumentError, match=r"max_work must be a positive integer, got 0"):
        npu.run_timing(k, max_work=0)
    op = tessera.npu_ops.add(C=16, H=2, W=2)
    f = tessera.build(op.schedule, op.args, target="npu")
    x = np.ones((1, 2, 2, 16), np.int8)
    with pytest.raises(tessera.SimulationError, match=r"passes the simulation limit of 5 element"):
        f(x, x, np.zeros_like(x), max_work=5)
    with pytest.raises(tessera.SimulationError, match=r"passes the simulation limit of 5 element"):
        f.timing(max_work=5)


def test_ctrl_c_interrupts_a_long_functional_simulation():
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import signal, sys, time, numpy as np
            signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignored
            from tessera import npu
            a = npu.Assembler(npu.default_target(), "long")
            a.buffer("A", [16], npu.DType.INT8, npu.BufferRole.INPUT)
            for _ in range(4000):   # about 40 s of functional simulation
                a.gemm(False, 256, 256, npu.at(0), npu.at(0), npu.at(0))
            k = a.finish()
            print("running", flush=True)
            t0 = time.monotonic()
            try:
                npu.run(k, {"A": np.zeros(16, np.int8)}, max_work=1 << 40)
                print("finished", flush=True)
            except KeyboardInterrupt:
                print("KeyboardInterrupt after %.1f s" % (time.monotonic() - t0), flush=True)
        """)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    try:
        assert proc.stdout.readline().strip() == "running"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.startswith("KeyboardInterrupt after "), out + err
    assert float(out.split()[2]) < 10
