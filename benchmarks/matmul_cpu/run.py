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

# Two hand-written schedules, both measured; the table reports the faster one and names it.
# Tile sizes for a core with 48 KiB L1d, 2 MiB L2 and 32 AVX-512 registers of 16 fp32 lanes.
# BLOCKED: a 64 x 64 C tile (16 KiB) and a 64 x 64 packed B panel (16 KiB, on the stack) share L1;
# 4 x 4 vectors of C stay in registers. TJ = JU * 16 on purpose: with another j loop between the
# tile and the lanes, GCC no longer keeps the block in registers (checked in the assembly).
BLOCKED = dict(TI=64, TJ=64, KF=64, RI=4, JU=4)
SIMPLE = dict(TI=32, TJ=64, KF=8)
LANES = 16  # fp32 lanes of an AVX-512 register


def tessera_matmul(n):
    """The algorithm: C[i, j] = sum over k of A[i, k] * B[k, j]."""
    from tessera import te

    A = te.placeholder((n, n), dtype="float32", name="A")
    B = te.placeholder((n, n), dtype="float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def schedule_blocked(n, TI, TJ, KF, RI, JU):
    """The schedule a tuned CPU matmul wants, the shape of OpenBLAS's and Halide's kernels.

    A TI x TJ tile of C accumulates in a local buffer (cache_write); B's KF x TJ panel is packed
    into a contiguous local buffer once per k-step (cache_read at ko); the micro-kernel keeps an
    RI x (JU x 16) block of C in registers: the 16 SIMD lanes of j are vectorised *outside* ki
    and the RI x JU block is unrolled inside ki, so that the C compiler holds the block in RI * JU
    vector registers across the k-step (one broadcast of A per row and one load of B per vector
    for RI * JU multiply-adds). Needs `vectorize` on a loop that is not the innermost one."""
    from tessera import te

    A, B, C = tessera_matmul(n)
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


def schedule_simple(n, TI, TJ, KF):
    """Every vectorised loop innermost. The same tiles, cache_write and packed B; ki is unrolled
    outside the vectorised j so that the C compiler reuses the loaded accumulator across the
    unrolled k steps, but each step still stores it back: about one vector update per cycle."""
    from tessera import te

    A, B, C = tessera_matmul(n)
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
    s[CC].reorder(ko, ci, ki, cj)
    s[CC].unroll(ki)
    s[CC].vectorize(cj)

    BB = s.cache_read(B, "local", [CC])
    s[BB].compute_at(s[CC], ko)
    s[BB].vectorize(s[BB].op.axis[1])
    return s, [A, B, C]


SCHEDULES = {"blocked": (schedule_blocked, BLOCKED), "simple": (schedule_simple, SIMPLE)}


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
    """Builds and times every schedule in SCHEDULES; a schedule the core rejects is reported
    with its error, not dropped."""
    import numpy as np
    import tessera

    a_np, b_np = _inputs(np, args.n)
    # tessera's own 64-byte-aligned arrays, viewed by numpy without a copy.
    a, b = tessera.nd.array(a_np), tessera.nd.array(b_np)
    out = {"side": "tessera", "schedules": {}}
    for name, (make, params) in SCHEDULES.items():
        try:
            s, tensors = make(args.n, **params)
            t0 = time.perf_counter()
            f = tessera.build(s, tensors, target="c", name="matmul")
            build_s = time.perf_counter() - t0
        except tessera.UserError as e:  # a schedule the core rejects; InternalError propagates
            out["schedules"][name] = {"error": f"{type(e).__name__}: {e}"}
            continue
        c = tessera.nd.empty((args.n, args.n), "float32")
        times = _time_calls(lambda: f(a, b, c), args.warmup, args.reps)
        if args.source_out:
            Path(f"{args.source_out}_{name}.c").write_text(f.source)
        out["schedules"][name] = {"times_s": times, "build_s": build_s,
                                  "max_rel_err": _max_rel_err(np, a_np, b_np, np.asarray(c))}
        out["flags"] = compile_flags_of(f)
    return out


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
    """Runs one side in its own subprocess; returns {measurement name: output}, where a
    measurement is "numpy", "halide" or "tessera/<schedule>"."""
    if side == "halide":
        sched = BUILD_DIR / f"halide_schedule_{threads}t.h"
        cmd = [str(halide_exe), str(args.n), str(threads), args.autoscheduler,
               str(args.warmup), str(args.reps), str(sched)]
    else:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", side, "--n", str(args.n),
               "--warmup", str(args.warmup), "--reps", str(args.reps)]
        if side == "tessera":
            cmd += ["--source-out", str(BUILD_DIR / f"tessera_matmul_{threads}t")]
    proc = subprocess.run(cmd, env=side_env(side, threads), capture_output=True, text=True,
                          timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        # The last line of a Python traceback (or of the program's message) says what failed.
        tail = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        failed = {"error": f"exit {proc.returncode}: {tail.strip()}"}
        names = [f"tessera/{k}" for k in SCHEDULES] if side == "tessera" else [side]
        return {name: dict(failed) for name in names}
    out = json.loads(lines[-1])
    if side == "halide" and sched.exists():
        out["schedule"] = sched.read_text()
    found = ({f"tessera/{k}": dict(v, flags=out.get("flags"))
              for k, v in out["schedules"].items()} if side == "tessera" else {side: out})
    for m in found.values():
        if "error" not in m and m.get("max_rel_err", 1.0) > TOLERANCE:
            m["error"] = f"wrong result: max relative error {m['max_rel_err']:.2e}"
    return found


def machine_info():
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo").read_text()
    for line in cpuinfo.splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    simd = "AVX-512" if " avx512f" in cpuinfo else ("AVX2" if " avx2" in cpuinfo else "SSE")
    return {"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "nproc": os.cpu_count(), "cpu": model, "simd": simd, "os": platform.platform(),
            "loadavg": os.getloadavg()}


def fmt(x, spec=".1f"):
    return "—" if x is None else format(x, spec)


def ratio(a, b):
    return None if a is None or b is None else a / b


def summarise(results, n):
    """results[(measurement, threads)] is a list of outputs, one per round; pools their times."""
    flops = 2.0 * n ** 3
    table = {}
    for key, outs in results.items():
        errors = [o["error"] for o in outs if "error" in o]
        times = [t for o in outs if "error" not in o for t in o["times_s"]]
        if not times:
            # What the side itself reported beats a crash of its process (e.g. a failed import).
            told = [e for e in errors if not e.startswith("exit ")]
            table[key] = {"gflops": None, "error": (told or errors or ["not run"])[0]}
            continue
        # A round that failed (say, the extension rebuilt under it) leaves the others usable;
        # a wrong result fails the whole measurement.
        wrong = [e for e in errors if e.startswith("wrong result")]
        if wrong:
            table[key] = {"gflops": None, "error": wrong[0]}
            continue
        med = statistics.median(times)
        table[key] = {"gflops": flops / med / 1e9, "best_gflops": flops / min(times) / 1e9,
                      "median_ms": med * 1e3, "min_ms": min(times) * 1e3,
                      "max_ms": max(times) * 1e3, "samples": len(times),
                      "failed_rounds": errors}
    return table


def best_tessera(table, threads, stat="gflops"):
    """(schedule name, GFLOP/s) of the fastest tessera schedule that built and was right."""
    got = [(table[(f"tessera/{k}", threads)][stat], k) for k in SCHEDULES
           if table[(f"tessera/{k}", threads)]["gflops"] is not None]
    return (max(got)[1], max(got)[0]) if got else (None, None)


def ratio_table(table, threads, stat):
    rows = ["| threads | tessera GFLOP/s | OpenBLAS GFLOP/s | Halide GFLOP/s | tessera / OpenBLAS "
            "| tessera / Halide |", "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in threads:
        name, tg = best_tessera(table, t, stat)
        og, hg = (table[(m, t)].get(stat) for m in ("numpy", "halide"))
        cell = "failed" if tg is None else f"{tg:.1f} ({name})"
        rows.append(f"| {t} | {cell} | {fmt(og)} | {fmt(hg)} | {fmt(ratio(tg, og), '.2f')} | "
                    f"{fmt(ratio(tg, hg), '.2f')} |")
    return rows


def render(table, results, info, args, elapsed):
    lines = []
    w = lines.append
    w(f"# fp32 matmul {args.n}³ on the CPU: tessera vs OpenBLAS vs Halide ({args.autoscheduler})")
    w("")
    w(f"Written by `PYTHONPATH=python .venv/bin/python benchmarks/matmul_cpu/run.py` on "
      f"{info['date']}; the run took {elapsed:.0f} s.")
    w("")
    w(f"Machine: {info['cpu']}, nproc = {info['nproc']}, {info['simd']}; {info['os']}. "
      f"Load average at start {info['loadavg'][0]:.2f}, at end {os.getloadavg()[0]:.2f}: on a "
      "machine shared with other work the numbers are noisy. Each side ran "
      f"{args.rounds} rounds "
      f"× {args.reps} timed calls, each round a fresh subprocess per side after {args.warmup} "
      "warm-up calls, the rounds interleaved across sides. Figures are the median of all "
      "samples:")
    w("")
    for row in ratio_table(table, args.threads, "gflops"):
        w(row)
    w("")
    two = max(args.threads)
    r = ratio(best_tessera(table, two)[1], table[("numpy", two)]["gflops"])
    verdict = "not measured" if r is None else ("met" if r >= 0.5 else "NOT met")
    w(f"Target (tessera ≥ 0.5× OpenBLAS on {two} threads, medians): **{verdict}**"
      + ("" if r is None else f" ({r:.2f}×)") + ". The tessera column is the faster of the "
      "schedules below, named in brackets.")
    busy = max(info["loadavg"][0], os.getloadavg()[0])
    if busy > 0.5 * info["nproc"]:
        w("")
        w(f"**Warning: the machine was busy (load average up to {busy:.1f} on {info['nproc']} "
          "cores), so these figures and the verdict are not trustworthy; rerun on a quiet "
          "machine.**")
    w("")
    w("The same from the fastest call of each measurement (best of all samples), which is less "
      "sensitive to other processes on the machine than the median; OpenBLAS's two threads "
      "wait for each other by spinning, so its 2-thread median suffers most when a core is "
      "taken:")
    w("")
    for row in ratio_table(table, args.threads, "best_gflops"):
        w(row)
    w("")
    w("Every measurement (median / min / max ms per call, samples, or why it has none):")
    w("")
    for t in args.threads:
        for m in [f"tessera/{k}" for k in SCHEDULES] + ["numpy", "halide"]:
            row = table[(m, t)]
            if row["gflops"] is None:
                w(f"- {m}, {t} thread(s): **failed**: {row['error']}")
            else:
                failed = row["failed_rounds"]
                w(f"- {m}, {t} thread(s): {row['gflops']:.1f} GFLOP/s; {row['median_ms']:.2f} / "
                  f"{row['min_ms']:.2f} / {row['max_ms']:.2f} ms, {row['samples']} samples"
                  + (f" ({len(failed)} round(s) failed: {failed[0]})" if failed else ""))
    w("")
    w("## How each side is built")
    w("")
    flags = next((o["flags"] for outs in results.values() for o in outs if o.get("flags")),
                 None) or compile_flags_of(None)
    w("**tessera**: `tessera.build(s, [A, B, C], target=\"c\")`; the generated C is compiled by "
      f"`{flags}` and runs on OpenMP threads (OMP_NUM_THREADS). The C of the last run is kept in "
      "`build-bench/matmul_cpu/tessera_matmul_<threads>t_<schedule>.c`. The schedules "
      "(from run.py):")
    w("")
    w("```python")
    w(f"BLOCKED = {BLOCKED}\nSIMPLE = {SIMPLE}\nLANES = {LANES}\n")
    for fn in (tessera_matmul, schedule_blocked, schedule_simple):
        w(inspect.getsource(fn).rstrip())
        w("")
    w("```")
    w("")
    np_out = next((o for o in results.get(("numpy", args.threads[0]), []) if "error" not in o),
                  None)
    blas = (np_out or {}).get("blas")
    if blas:
        kinds = "; ".join(f"{b['internal_api']} {b['version']}, kernel {b['architecture']}, "
                          f"{b['threading_layer']} threads, `{Path(b['filepath']).name}`"
                          for b in blas)
    else:
        kinds = "kernel not reported (threadpoolctl is not installed in .venv)"
    w(f"**OpenBLAS**: `numpy.matmul(a, b, out=c)`, numpy {(np_out or {}).get('numpy', '?')}: "
      f"{kinds}. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from its environment; "
      "OPENBLAS_NUM_THREADS = threads.")
    w("")
    hal = [o for outs in results.values() for o in outs
           if o.get("side") == "halide" and "error" not in o]
    if not hal:
        w("**Halide**: failed, see above.")
        return "\n".join(lines) + "\n"
    h = hal[0]
    w(f"**Halide**: Halide 14 (Debian libhalide14), JIT-compiled in the benchmark process by its "
      f"LLVM for target `{h['target']}`, scheduled by the {h['scheduler']} autoscheduler plugin "
      "with its built-in weights. MachineParams (parallelism, last-level cache bytes, balance) = "
      "(threads, 16777216, 40): Halide's generic cache and balance. Runtime threads from "
      "HL_NUM_THREADS. The algorithm is `prod(j, i) += A(k, i) * B(j, k); C(j, i) = prod(j, i)`: "
      "with the reduction in its own Func the autoscheduler can tile C and compute the product "
      "per tile; with the update on the output itself Adams2019 only vectorises it (about "
      "7 GFLOP/s here). The schedules it chose:")
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
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--rounds", type=int, default=5,
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
    names = [f"tessera/{k}" for k in SCHEDULES] + ["numpy", "halide"]
    results = {(m, t): [] for m in names for t in args.threads}
    for rnd in range(args.rounds):
        for t in args.threads:
            for side in args.sides:
                for m, out in run_side(side, t, args, halide_exe).items():
                    results[(m, t)].append(out)
                    status = out.get("error") or (
                        f"{2 * args.n ** 3 / statistics.median(out['times_s']) / 1e9:.1f} GFLOP/s")
                    print(f"round {rnd + 1}/{args.rounds}  {m:16s} {t} thread(s): {status}",
                          flush=True)
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
