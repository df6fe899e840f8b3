"""Measurement throughput of the build farm against the local runner, on ResNet-18's tasks.

    .venv/bin/python benchmarks/farm/run.py [--per-task 8] [--reps 2]

In one run, on the same fixed set of configs (per ResNet-18 workload, --per-task configs drawn
with a fixed seed among those the space's validity check accepts; one batch per task, as the
driver sends them):
  local-1   the local thread pool with 1 worker (LocalExecutor(measure_npu, workers=1))
  ray-1     a Ray cluster of this machine with one worker node of 1 CPU (1 worker process)
  ray-2     the same cluster with a second worker node of 1 CPU (2 worker processes)
measurements per second (best of --reps passes over the set, after a warm-up batch that lets
each worker import tessera), and Ray's overhead per batch: the wall time of a batch of configs
that fail at once (invalid_config, microseconds of work) on Ray minus on the local pool. Every
Ray result is checked equal to the local one. The cluster runs on loopback (head 127.0.0.2 with
no CPUs, nodes 127.0.0.3 and 127.0.0.4), usage statistics off, and is stopped at the end.
Target: ray-2 >= 1.6 x local-1. Writes benchmarks/farm/REPORT.md.
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# The cluster's workers import tessera from this tree (a farm installs the package instead).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.abspath(os.path.join(ROOT, "python"))] + os.environ.get("PYTHONPATH", "").split(
        os.pathsep)).rstrip(os.pathsep)

from tessera import autotune as at  # noqa: E402
from tessera import npu  # noqa: E402
from tessera.autotune import farm  # noqa: E402

MULT, SHIFT = 1 << 14, 22
HEAD, NODES, PORT = "127.0.0.2", ["127.0.0.3", "127.0.0.4"], 26395


def task_of(wl, target):
    """As benchmarks/npu_resnet18: dense for fc, conv2d_im2col for conv1's 3 channels."""
    q = dict(multiplier=MULT, shift=SHIFT)
    if wl["op"] == "dense":
        return at.NpuTask("dense", dict(M=wl["M"], K=wl["K"], N=wl["N"], **q), target)
    args = dict(C=wl["C"], H=wl["H"], W=wl["W"], K=wl["K"], R=wl["R"], S=wl["S"],
                stride=wl["stride"], pad=wl["pad"], **q)
    return at.NpuTask("conv2d_im2col" if wl["C"] < target.block else "conv2d", args, target)


def sample(task, n, rng):
    out, seen = [], set()
    for _ in range(200 * n):
        i = rng.randrange(task.space_size)
        c = task.config(i)
        if i not in seen and task.is_valid(c):
            seen.add(i)
            out.append(c)
            if len(out) == n:
                break
    return out


class Batch:
    """What the driver hands an executor, for at.tune-free timing: a RayExecutor's measure()
    reads task, target, configs and trials; the local pool takes (task, configs, target)."""

    def __init__(self, task, configs):
        self.task, self.target, self.configs = task.tuning, task.target, configs
        self.trials = list(range(len(configs)))


def measure(ex, task, configs):
    if isinstance(ex, at.LocalExecutor):
        return ex.measure(task.tuning, configs, task.target)
    return ex.measure(Batch(task, configs))


def timed_pass(ex, work):
    t0 = time.perf_counter()
    results = [measure(ex, t, cs) for t, cs in work]
    return time.perf_counter() - t0, results


def ray_cmd(*args):
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ray"), "start", *args],
                   check=True, capture_output=True, timeout=180)


def wait_cpus(ray, n, seconds=60):
    deadline = time.monotonic() + seconds
    while farm._cluster_cpus(ray) != n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the cluster did not reach {n} CPUs")
        time.sleep(0.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=8, help="configs per ResNet-18 task")
    ap.add_argument("--reps", type=int, default=2, help="passes per engine (best is kept)")
    ap.add_argument("--no-report", action="store_true", help="print only; keep REPORT.md")
    a = ap.parse_args()

    target = npu.default_target()
    wls = json.load(open(os.path.join(ROOT, "benchmarks", "workloads", "resnet18.json")))
    tasks = [task_of(w, target) for w in wls["workloads"]]
    rng = random.Random(12)
    work = [(t, sample(t, a.per_task, rng)) for t in tasks]
    n = sum(len(cs) for _, cs in work)
    # Configs that fail at once: for the per-batch overhead.
    probe_task = tasks[1]
    fast = [c for c in (probe_task.config(rng.randrange(probe_task.space_size))
                        for _ in range(400)) if not probe_task.is_valid(c)][:8]

    rows, overhead = [], {}
    local = at.LocalExecutor(at.measure_npu, workers=1)
    measure(local, *work[0])
    local_s, reference = min((timed_pass(local, work) for _ in range(a.reps)), key=lambda x: x[0])
    rows.append(("local-1", "local thread pool, 1 worker", local_s))
    t0 = time.perf_counter()
    for _ in range(10):
        measure(local, probe_task, fast)
    local_batch = (time.perf_counter() - t0) / 10

    temp = tempfile.mkdtemp(prefix="tessera-farm-bench.")
    common = ["--disable-usage-stats", "--object-store-memory=80000000", f"--temp-dir={temp}"]
    try:
        ray_cmd("--head", f"--node-ip-address={HEAD}", f"--port={PORT}", "--num-cpus=0",
                "--include-dashboard=false", *common)
        ray = farm.connect(f"{HEAD}:{PORT}")
        for k, ip in enumerate(NODES, start=1):
            ray_cmd(f"--address={HEAD}:{PORT}", f"--node-ip-address={ip}", "--num-cpus=1", *common)
            wait_cpus(ray, k)
            ex = farm.RayExecutor(f"{HEAD}:{PORT}")
            for _ in range(k):  # warm-up: every worker imports tessera and builds a task
                measure(ex, *work[0])
            s, results = min((timed_pass(ex, work) for _ in range(a.reps)), key=lambda x: x[0])
            assert results == reference, f"ray-{k} results differ from the local runner's"
            rows.append((f"ray-{k}", f"Ray, {k} worker node(s) of 1 CPU, {ex.max_in_flight} in "
                         "flight", s))
            t0 = time.perf_counter()
            for _ in range(10):
                measure(ex, probe_task, fast)
            overhead[k] = (time.perf_counter() - t0) / 10 - local_batch
    finally:
        try:
            import ray as _ray
            _ray.shutdown()
        finally:
            pids = [p.split("/")[2] for p in glob.glob("/proc/[0-9]*/cmdline")
                    if temp.encode() in open(p, "rb").read()]
            for p in pids:
                try:
                    os.kill(int(p), 9)
                except OSError:
                    pass
            shutil.rmtree(temp, ignore_errors=True)

    load = os.getloadavg()[0]
    lines = [f"| engine | how | wall s ({n} measurements) | measurements/s | x local-1 |",
             "| --- | --- | --- | --- | --- |"]
    for name, how, s in rows:
        lines.append(f"| {name} | {how} | {s:.2f} | {n / s:.1f} | {local_s / s:.2f} |")
    text = "\n".join(lines)
    speedup = local_s / rows[-1][2]
    summary = (f"ray-2 / local-1 = {speedup:.2f} (target >= 1.6: "
               f"{'met' if speedup >= 1.6 else 'NOT met'}); Ray's overhead per batch of "
               f"{len(fast)}: " + ", ".join(f"{overhead[k] * 1e3:.1f} ms at {k} node(s)"
                                           for k in sorted(overhead)) +
               f" (the local pool's batch: {local_batch * 1e3:.2f} ms); load average at the end "
               f"{load:.1f} on {os.cpu_count()} cores")
    print(text)
    print(summary)
    if not a.no_report:
        with open(os.path.join(HERE, "REPORT.md"), "w") as f:
            f.write(REPORT.format(table=text, summary=summary, n=n, per=a.per_task,
                                  tasks=len(tasks), reps=a.reps,
                                  command=" ".join(["benchmarks/farm/run.py"] + sys.argv[1:])))


REPORT = """# Build farm: measurements per second, local runner against Ray

Written by `.venv/bin/python {command}`, one run.

{n} measurements ({per} configs drawn with a fixed seed among the valid ones of each of ResNet-18's
{tasks} tasks, one batch per task), best of {reps} passes per engine after a warm-up batch; every
Ray result equal to the local runner's.

{table}

{summary}.

How it is kept from serialising: the driver's RayExecutor submits up to 2 measurements per CPU
and waits in `ray.wait` (the GIL released); each worker is a warm process (Ray reuses it; the task
rebuilt from its key is cached) whose measurement is the C++ `measure_npu`, run with the GIL
released. The overhead per batch is the wall time of a batch of configs that fail at once, on Ray
minus on the local pool: Ray's round trips, nothing measured.

The machine has 2 cores, shared with whatever else runs (the load average above); the figures
move with it.
"""

if __name__ == "__main__":
    main()
