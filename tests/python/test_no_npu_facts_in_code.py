"""The NPU's numbers live in its target description, not in code: no file outside tests (and the
docs) holds npu-v1's array side (16), its MACs per cycle or weight-tile bytes (256), or its SRAM
and accumulator sizes (256 KiB, 64 KiB) as facts of the machine. Everything the compiler, the
operator library, the bindings and the benchmarks know about an NPU comes from npu::Target.

The scan covers every tracked source file (C++, Python, CMake, shell, JSON) outside tests/ and
docs; a number that is not an NPU fact is listed below with the reason it may stay."""
import os
import re
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# A number as a whole token: 16 or 256 (not 0x16, 1.16, uint16_t, int16), npu-v1's memory sizes in
# bytes, and the ways of writing them in KiB.
FACT = re.compile(r"(?<![\w.])(16|256|65536|262144)(?![\w.])|\b(64|256) ?\* ?1024\b|\b(64|256) KiB\b")

SCANNED = (".cpp", ".h", ".in", ".py", ".json", ".txt", ".sh", ".cmake")

# Whole files: the npu-v1 description itself, and data that is not about the NPU.
ALLOWED_FILES = {
    "runtime/npu/targets/npu-v1.json": "the npu-v1 description: where these facts belong",
    "runtime/npu/targets/npu-8x8.json": "a target description (its DDR port is 16 B/cycle)",
    "runtime/npu/targets/npu-32x32.json": "a target description (its accumulator is 256 KiB)",
    "benchmarks/workloads/resnet18.json": "ResNet-18's layer shapes (channel counts), not the NPU",
    "benchmarks/workloads/resnet18_tasks.json": "the same shapes as tasks (channel counts)",
    "benchmarks/npu_sim/npu_sim_bench.cpp": "hand-assembled kernels for the built-in npu-v1: the "
                                            "simulator's own speed benchmark",
    "benchmarks/matmul_cpu/run.py": "the CPU benchmark: AVX-512 lanes and cache tiles",
}

# Single lines: (file, a substring of the line) -> why the number there is not an NPU fact.
ALLOWED_LINES = {
    ("runtime/base/dtype.cpp", "return 16;"): "bits of int16",
    ("runtime/npu/encoding.cpp", "(b, 16"): "byte offsets in the 32-byte instruction encoding",
    ("runtime/npu/encoding.cpp", "(b, 8, 16"): "byte offsets in the 32-byte instruction encoding",
    ("runtime/npu/kernel_file.cpp", "kMaxBuffers = 65536"): "a kernel file limit",
    ("runtime/npu/target.cpp", "256 * kMiB"): "the largest memory a description may declare",
    ("runtime/npu/target.cpp", "1, 65536,"): "the deepest queue a description may declare",
    ("runtime/npu/execute_insn.cpp", "case 16:"): "the simulator's compile-time array sizes",
    ("runtime/npu/execute_insn.cpp", "gemm<16>"): "the simulator's compile-time array sizes",
    ("runtime/npu/target.cpp", "0, 65536,"): "the longest fetch burst a description may declare",
    ("codegen/c/codegen_c.h", "16 KiB"): "the C backend's stack-allocation limit",
    ("codegen/c/codegen_c.h", "16 * 1024"): "the C backend's stack-allocation limit",
    ("compiler/arith/const_bounds.cpp", "kBudget = 256"): "a simplifier step budget",
    ("compiler/arith/linear_form.cpp", "v.size() > 16"): "terms sorted by insertion up to here",
    ("compiler/arith/rewrite.h", "% 16"): "an example of a rewrite rule",
    ("autotune/knob.cpp", "join_limited("): "how many elements an error message lists",
    ("autotune/log_record.h", "16 lower-case hex digits"): "the printed width of a 64-bit hash",
    ("autotune/tune.h", "trials = 256"): "the tuner's default trial count",
    ("benchmarks/npu_depthwise/run.py", "LAYERS = "): "MobileNet-style layer shapes (channels)",
    ("benchmarks/tuner/run.py", "XGB_TRIALS_TARGET = 256"): "issue 11's trial target for xgb",
    ("runtime/base/file_io.cpp", "buf[1 << 16]"): "the file reader's chunk size",
    ("runtime/cpu/check_shared_library.cpp", "locate(gnu_hash_, 16"): "the ELF GNU hash header",
    ("runtime/cpu/check_shared_library.cpp", "gnu_hash_ + 16"): "the ELF GNU hash header",
    ("runtime/cpu/check_shared_library.cpp", "at least 16 bytes"): "an ELF version entry's size",
    ("runtime/cpu/check_shared_library.cpp", "b_.size() / 16"): "an ELF version entry's size",
    ("runtime/cpu/library_file.cpp", "get_u64(file, n - 16)"): "an offset in the library trailer",
}


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    for path in out.stdout.split():
        if path.startswith(("tests/", "docs/")) or not path.endswith(SCANNED):
            continue
        yield path


def test_no_npu_v1_number_outside_tests_and_docs():
    found = []
    for path in tracked_files():
        if path in ALLOWED_FILES:
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if FACT.search(line) and not any(
                        f == path and sub in line for (f, sub) in ALLOWED_LINES):
                    found.append(f"{path}:{n}: {line.strip()}")
    assert not found, "NPU facts outside the target description:\n" + "\n".join(found)


def test_the_allow_list_only_names_lines_that_exist():
    # An exception that no longer matches anything is stale: drop it.
    for (path, sub), why in ALLOWED_LINES.items():
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            assert any(sub in line and FACT.search(line) for line in fh), (path, sub, why)
    for path in ALLOWED_FILES:
        assert os.path.exists(os.path.join(ROOT, path)), path
