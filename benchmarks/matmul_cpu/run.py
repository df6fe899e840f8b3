#!/usr/bin/env python3
"""fp32 matmul n x n x n (1024 by default) on the CPU: tessera's hand-written schedule next to
numpy's matmul (OpenBLAS) and Halide 14 with its Adams2019 autoscheduler, all measured in one
run at 1 and 2 threads, reported as GFLOP/s and ratios in REPORT.md beside this file.

    PYTHONPATH=python .venv/bin/python benchmarks/matmul_cpu/run.py

Each side runs in its own subprocess with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and
HL_NUM_THREADS set to the thread count, so that every thread pool starts with that size. The
numpy subprocess also has OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed: the environment sets
them and they halve OpenBLAS's speed on this machine. Every side checks its result against a
double-precision reference before its time counts. This is a benchmark, not a test: CI never
runs it.
"""
import argparse
import datetime
import inspect
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD_DIR = ROOT / "build-bench" / "matmul_cpu"
SIDES = ("tessera", "numpy", "halide")
TOLERANCE = 1e-5  # max |c - ref| / (|A| |B|)[i, j]; fp32 rounding over k=1024 stays near 1e-7


# ---------------------------------------------------------------------------------------------
# tessera's schedule
# ---------------------------------------------------------------------------------------------

# Tile sizes for 1024^3 on a core with 48 KiB L1d and 2 MiB L2 and 32 AVX-512 registers:
#   a TI x TJ tile of C is accumulated in a local buffer (cache_write), one per parallel task;
#   for every KF-step of k the KF x TJ panel of B is packed into a contiguous local buffer
#   (cache_read at ko) so that the micro-kernel streams it with unit stride from L1;
#   the micro-kernel is RI rows x (JU x 16) columns of C held in registers: j's innermost 16 are
#   the SIMD lanes, ki runs inside them, and the RI x JU register block is unrolled inside ki.
TI, TJ, KF = 32, 64, 64
RI, JU, LANES = 4, 4, 16


def tessera_schedule(n):
    """The algorithm and the hand-written schedule; returns (schedule, [A, B, C])."""
    from tessera import te

    A = te.placeholder((n, n), dtype="float32", name="A")
    B = te.placeholder((n, n), dtype="float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    i, j = s[C].op.axis
    io, jo, ii, ji = s[C].tile(i, j, TI, TJ)
    s[C].vectorize(ji)
    s[C].parallel(io)
    s[CC].compute_at(s[C], jo)

    ci, cj = s[CC].op.axis
    (ck,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(ck, factor=KF)
    cio, cii = s[CC].split(ci, factor=RI)
    cjo, cjv = s[CC].split(cj, factor=LANES)
    cjoo, cju = s[CC].split(cjo, factor=JU)
    s[CC].reorder(ko, cio, cjoo, cjv, ki, cii, cju)
    s[CC].vectorize(cjv)
    s[CC].unroll(cii)
    s[CC].unroll(cju)

    BB = s.cache_read(B, "local", [CC])
    s[BB].compute_at(s[CC], ko)
    s[BB].vectorize(s[BB].op.axis[1])

    return s, [A, B, C]


def compile_flags_of(module):
    """The flags the C backend compiled with: the module's own record when it has one, else the
    defaults of CompileOptions in runtime/cpu/cpu_module.h (the one place they are written)."""
    for attr in ("compile_flags", "flags", "compile_command"):
        value = getattr(module, attr, None)
        if value:
            return " ".join(value) if isinstance(value, (list, tuple)) else str(value)
    header = (ROOT / "runtime" / "cpu" / "cpu_module.h").read_text()
    match = re.search(r"flags\s*=\s*\{([^}]*)\}", header)
    flags = " ".join(re.findall(r'"([^"]*)"', match.group(1))) if match else "unknown"
    compiler = "cc"
    cache = ROOT / "build" / "CMakeCache.txt"
    if cache.exists():
        found = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", cache.read_text(), re.M)
        if found:
            compiler = found.group(1)
    return f"{compiler} {flags} (CompileOptions defaults)"


# ---------------------------------------------------------------------------------------------
# Workers: each runs in its own subprocess and prints one JSON object as its last line.
# ---------------------------------------------------------------------------------------------

def _time_calls(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def _max_rel_err(np, a, b, c):
    """max |c - a@b| / (|a| @ |b|), the reference in double precision."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    mag = np.abs(a64) @ np.abs(b64)
    return float(np.max(np.abs(c.astype(np.float64) - ref) / (mag + 1e-30)))


def _inputs(np, n):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)
    return a, b


def worker_numpy(args):
    import numpy as np

    a, b = _inputs(np, args.n)
    c = np.empty((args.n, args.n), dtype=np.float32)
    times = _time_calls(lambda: np.matmul(a, b, out=c), args.warmup, args.reps)
    out = {"side": "numpy", "times_s": times, "max_rel_err": _max_rel_err(np, a, b, c),
           "numpy": np.__version__}
    try:
        import threadpoolctl
        blas = [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
        out["blas"] = [{k: p.get(k) for k in ("internal_api", "version", "architecture",
                                               "num_threads", "threading_layer", "filepath")}
                       for p in blas]
    except ImportError:
        out["blas"] = None
    return out


def worker_tessera(args):
    import numpy as np
    import tessera

    s, tensors = tessera_schedule(args.n)
    t0 = time.perf_counter()
    f = tessera.build(s, tensors, target="c", name="matmul")
    build_s = time.perf_counter() - t0
    a_np, b_np = _inputs(np, args.n)
    # tessera's own 64-byte-aligned arrays, viewed by numpy without a copy.
    a, b = tessera.nd.array(a_np), tessera.nd.array(b_np)
    c = tessera.nd.empty((args.n, args.n), "float32")
    times = _time_calls(lambda: f(a, b, c), args.warmup, args.reps)
    if args.source_out:
        Path(args.source_out).write_text(f.source)
    return {"side": "tessera", "times_s": times, "build_s": build_s,
            "max_rel_err": _max_rel_err(np, a_np, b_np, np.asarray(c)),
            "flags": compile_flags_of(f)}


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def build_halide():
    """Builds halide_matmul with its own small CMake project in build-bench/ (incremental)."""
    if not (BUILD_DIR / "CMakeCache.txt").exists():
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", str(HERE), "-B", str(BUILD_DIR), *gen,
                        "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(BUILD_DIR), "-j", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    return BUILD_DIR / "halide_matmul"


def side_env(side, threads):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "HL_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    if side == "numpy":
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(ROOT / "python"), env.get("PYTHONPATH", "")] if p)
    return env


def run_side(side, threads, args, halide_exe):
    if side == "halide":
        sched = BUILD_DIR / f"halide_schedule_{threads}t.h"
        cmd = [str(halide_exe), str(args.n), str(threads), args.autoscheduler,
               str(args.warmup), str(args.reps), str(sched)]
    else:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", side, "--n", str(args.n),
               "--warmup", str(args.warmup), "--reps", str(args.reps)]
        if side == "tessera":
            cmd += ["--source-out", str(BUILD_DIR / f"tessera_matmul_{threads}t.c")]
    proc = subprocess.run(cmd, env=side_env(side, threads), capture_output=True, text=True,
                          timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        # The last line of a Python traceback (or of the program's message) says what failed.
        tail = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        return {"side": side, "error": f"exit {proc.returncode}: {tail.strip()}"}
    out = json.loads(lines[-1])
    if side == "halide" and sched.exists():
        out["schedule"] = sched.read_text()
    if out.get("max_rel_err", 1.0) > TOLERANCE:
        out["error"] = f"wrong result: max relative error {out['max_rel_err']:.2e}"
    return out


def machine_info():
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    flags = Path("/proc/cpuinfo").read_text()
    simd = "AVX-512" if " avx512f" in flags else ("AVX2" if " avx2" in flags else "SSE")
    return {"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "nproc": os.cpu_count(), "cpu": model, "simd": simd, "os": platform.platform(),
            "loadavg": os.getloadavg()}


def fmt(x, spec=".1f"):
    return "—" if x is None else format(x, spec)


def summarise(results, n):
    """results[(side, threads)] is a list of worker outputs; pools their times."""
    flops = 2.0 * n ** 3
    table = {}
    for (side, threads), outs in results.items():
        errors = [o["error"] for o in outs if "error" in o]
        times = [t for o in outs if "error" not in o for t in o["times_s"]]
        if errors or not times:
            table[(side, threads)] = {"gflops": None, "error": errors[0] if errors else "no data"}
            continue
        med = statistics.median(times)
        table[(side, threads)] = {"gflops": flops / med / 1e9, "median_ms": med * 1e3,
                                  "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3,
                                  "samples": len(times)}
    return table


def ratio(a, b):
    return None if a is None or b is None else a / b


def render(table, results, info, args, elapsed):
    lines = []
    w = lines.append
    w(f"# fp32 matmul {args.n}³ on the CPU: tessera vs OpenBLAS vs Halide ({args.autoscheduler})")
    w("")
    w(f"Written by `PYTHONPATH=python .venv/bin/python benchmarks/matmul_cpu/run.py` on "
      f"{info['date']}; the run took {elapsed:.0f} s.")
    w(f"Machine: {info['cpu']}, nproc = {info['nproc']}, {info['simd']}; {info['os']}. "
      f"Load average at start {info['loadavg'][0]:.2f}, at end {os.getloadavg()[0]:.2f} "
      "(a machine shared with compiling engineers makes the numbers noisy: each figure is the "
      f"median of {args.rounds} rounds × {args.reps} timed calls after {args.warmup} warm-up "
      "calls, the rounds interleaved across sides).")
    w("")
    w("| threads | tessera GFLOP/s | OpenBLAS GFLOP/s | Halide GFLOP/s | tessera / OpenBLAS "
      "| tessera / Halide |")
    w("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for t in args.threads:
        g = {s: table[(s, t)]["gflops"] for s in SIDES}
        w(f"| {t} | {fmt(g['tessera'])} | {fmt(g['numpy'])} | {fmt(g['halide'])} | "
          f"{fmt(ratio(g['tessera'], g['numpy']), '.2f')} | "
          f"{fmt(ratio(g['tessera'], g['halide']), '.2f')} |")
    w("")
    two = max(args.threads)
    r = ratio(table[("tessera", two)]["gflops"], table[("numpy", two)]["gflops"])
    verdict = "not measured" if r is None else ("met" if r >= 0.5 else "NOT met")
    w(f"Target (tessera ≥ 0.5× OpenBLAS on {two} threads): **{verdict}**"
      + ("" if r is None else f" ({r:.2f}×)") + ".")
    w("")
    w("Spread (median / min / max ms per call, samples):")
    w("")
    for t in args.threads:
        for s in SIDES:
            row = table[(s, t)]
            if row["gflops"] is None:
                w(f"- {s}, {t} thread(s): **failed**: {row['error']}")
            else:
                w(f"- {s}, {t} thread(s): {row['median_ms']:.2f} / {row['min_ms']:.2f} / "
                  f"{row['max_ms']:.2f} ms, {row['samples']} samples")
    w("")
    w("## How each side is built")
    w("")
    tess = next((o for outs in results.values() for o in outs
                 if o.get("side") == "tessera" and "flags" in o), None)
    w("**tessera**: `tessera.build(s, [A, B, C], target=\"c\")`, the generated C compiled by "
      f"`{tess['flags'] if tess else compile_flags_of(None)}`, OpenMP threads "
      "(OMP_NUM_THREADS). The generated C of the last run is kept in "
      "`build-bench/matmul_cpu/tessera_matmul_<threads>t.c`. Schedule:")
    w("")
    w("```python")
    w(f"TI, TJ, KF = {TI}, {TJ}, {KF}\nRI, JU, LANES = {RI}, {JU}, {LANES}\n\n"
      + inspect.getsource(tessera_schedule).rstrip())
    w("```")
    w("")
    np_out = next((o for outs in results.values() for o in outs
                   if o.get("side") == "numpy" and "error" not in o), None)
    blas = (np_out or {}).get("blas")
    if blas:
        kinds = "; ".join(f"{b['internal_api']} {b['version']}, kernel {b['architecture']}, "
                          f"{b['threading_layer']} threads, `{Path(b['filepath']).name}`"
                          for b in blas)
    else:
        kinds = "kernel not reported (threadpoolctl is not installed in .venv)"
    w(f"**OpenBLAS**: `numpy.matmul(a, b, out=c)`, numpy {(np_out or {}).get('numpy', '?')}: "
      f"{kinds}. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from its environment; "
      "OPENBLAS_NUM_THREADS = threads.")
    w("")
    hal = [o for outs in results.values() for o in outs
           if o.get("side") == "halide" and "error" not in o]
    if hal:
        h = hal[0]
        w(f"**Halide**: Halide 14 (Debian libhalide14), JIT-compiled in the benchmark process by "
          f"LLVM for target `{h['target']}`; scheduled by the {h['scheduler']} autoscheduler "
          f"plugin with its built-in weights, MachineParams `parallelism,llc_bytes,balance` = "
          "`threads,16777216,40` (Halide's generic cache and balance), runtime threads from "
          "HL_NUM_THREADS. The algorithm is `prod(j, i) += A(k, i) * B(j, k); C(j, i) = prod(j, i)`:"
          " with the reduction in its own Func the autoscheduler can tile C and compute the "
          "product per tile (with the update on the output itself Adams2019 only vectorises, "
          "about 7 GFLOP/s here). Schedules it chose:")
        for t in args.threads:
            sched = next((o.get("schedule") for o in results[("halide", t)] if o.get("schedule")),
                         None)
            if sched:
                w("")
                w(f"{t} thread(s):")
                w("")
                w("```cpp")
                w(sched.rstrip())
                w("```")
    else:
        w("**Halide**: failed, see above.")
    w("")
    return "\n".join(lines) + "\n"


def ensure_threadpoolctl():
    """threadpoolctl names OpenBLAS's kernel; install it into the venv when missing, or skip."""
    probe = subprocess.run([sys.executable, "-c", "import threadpoolctl"], capture_output=True)
    if probe.returncode == 0:
        return
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "threadpoolctl"], capture_output=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--threads", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2])
    p.add_argument("--sides", type=lambda s: s.split(","), default=list(SIDES))
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3,
                   help="times each (side, threads) subprocess runs, interleaved; samples pooled")
    p.add_argument("--autoscheduler", default="Adams2019")
    p.add_argument("--no-report", action="store_true", help="print the table only")
    p.add_argument("--worker", choices=["numpy", "tessera"], help=argparse.SUPPRESS)
    p.add_argument("--source-out", help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.worker:
        out = worker_numpy(args) if args.worker == "numpy" else worker_tessera(args)
        print(json.dumps(out))
        return 0

    start = time.perf_counter()
    info = machine_info()
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    halide_exe = build_halide() if "halide" in args.sides else None
    if "numpy" in args.sides:
        ensure_threadpoolctl()
    results = {(s, t): [] for s in SIDES for t in args.threads}
    for rnd in range(args.rounds):
        for t in args.threads:
            for side in args.sides:
                out = run_side(side, t, args, halide_exe)
                results[(side, t)].append(out)
                status = out.get("error") or f"{2 * args.n ** 3 / statistics.median(out['times_s']) / 1e9:.1f} GFLOP/s"
                print(f"round {rnd + 1}/{args.rounds}  {side:8s} {t} thread(s): {status}",
                      flush=True)
    for key in results:
        if not results[key]:
            results[key].append({"side": key[0], "error": "not run (--sides)"})
    table = summarise(results, args.n)
    report = render(table, results, info, args, time.perf_counter() - start)
    print()
    print(report)
    if not args.no_report:
        (HERE / "REPORT.md").write_text(report)
        print(f"written to {HERE / 'REPORT.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
