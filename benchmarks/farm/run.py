"""Measurement throughput of the build farm against the local runner, on ResNet-18's tasks.

    .venv/bin/python benchmarks/farm/run.py [--per-task 24] [--reps 3] [--no-report]

In one run, on the same fixed set of configs (per ResNet-18 workload, --per-task configs drawn
with a fixed seed among those the space's validity check accepts: a batch per task), measured
as a tuning job measures them: the 12 tasks' batches as ONE round, one executor call
(measure_many):
  local-1       the local thread pool with 1 worker (LocalExecutor(measure_npu, workers=1)),
                timed before the cluster starts and again after it is stopped
  ray-1         a Ray cluster of this machine with one worker node of 1 CPU (1 worker process),
                the round's configs pooled into chunks sized per round (RayExecutor's default)
  ray-2         the same cluster with a second worker node of 1 CPU (2 worker processes)
  ray-2/batch   ray-2 measuring the round batch by batch (a measure() call per task's batch),
                as jobs measured before rounds: what rounds buy, in the same run
measurements per second (best of --reps passes over the round, after warm-up rounds that let
each worker import tessera and the executor time each task; the ray-2 variants' passes
alternate), each engine's ratio to the best local-1 pass of this run, the CPU seconds the driver
and Ray's own processes (GCS, raylets: not the workers) spent in that pass, the Ray tasks (chunks)
a pass took, and Ray's overhead per round and per chunk: the wall time of a round of --per-task
configs per task that fail at once (invalid_config, little work) on Ray minus on the local pool
(divided by the workers: that little work is measured in parallel). Every Ray result is checked equal to the local one. The load average is printed at
each phase. The cluster runs on loopback (head 127.0.0.2 with no CPUs, nodes 127.0.0.3 and
127.0.0.4), usage statistics off, and is stopped at the end. Target: ray-2 >= 1.6 x local-1.
Writes benchmarks/farm/REPORT.md unless --no-report.
"""
import argparse
import glob
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# This run's own loopback cluster, without token authentication even where the user has a Ray
# token (~/.ray/auth_token makes a new head require one, which the nodes started here would not
# send).
os.environ["RAY_AUTH_MODE"] = "disabled"
# The cluster's workers import tessera from this tree (a farm installs the package instead).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.abspath(os.path.join(ROOT, "python"))] + os.environ.get("PYTHONPATH", "").split(
        os.pathsep)).rstrip(os.pathsep)

from tessera import autotune as at  # noqa: E402
from tessera import npu  # noqa: E402
from tessera.autotune import farm  # noqa: E402

MULT, SHIFT = 1 << 14, 22
HEAD, NODES, PORT = "127.0.0.2", ["127.0.0.3", "127.0.0.4"], 26395
TICKS = os.sysconf("SC_CLK_TCK")


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


def batches(work):
    return [at.MeasureBatch(t.tuning, cs, t.target) for t, cs in work]


def measure(ex, work, per_batch=False):
    """The results of a round (a list of (task, configs)): one measure_many call, or (per_batch)
    a measure call per batch."""
    if per_batch:
        return [ex.measure(b) if not isinstance(ex, at.LocalExecutor) else
                ex.measure(b.task, b.configs, b.target) for b in batches(work)]
    return ex.measure_many(batches(work))


class Cluster:
    """The processes of this run's Ray cluster (those whose command line holds its temp
    directory, and their children), for CPU accounting and for stopping it."""

    def __init__(self, temp):
        self.temp = temp.encode()

    def pids(self):
        own, parent = set(), {}
        for p in glob.glob("/proc/[0-9]*/stat"):
            pid = int(p.split("/")[2])
            try:
                stat = open(p).read()
                if self.temp in open(f"/proc/{pid}/cmdline", "rb").read():
                    own.add(pid)
                parent[pid] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        # A raylet's children: its worker processes, and its agents (Ray's own, not workers).
        workers = set()
        for p, pp in parent.items():
            if pp in own and p not in own:
                try:
                    name = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0]
                except OSError:
                    continue
                (own if name.endswith(b"Agent") else workers).add(p)
        return own, workers

    def cpu(self):
        """CPU seconds so far of Ray's own processes and of its worker processes."""
        own, workers = self.pids()
        return _cpu(own), _cpu(workers)

    def stop(self):
        own, workers = self.pids()
        for p in own | workers:
            try:
                os.kill(p, 9)
            except OSError:
                pass


def _cpu(pids):
    total = 0
    for p in pids:
        try:
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
    return total / TICKS


def driver_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def dicts(results):
    return [[r.to_dict() for r in batch] for batch in results]


def timed_pass(ex, work, cluster=None, per_batch=False):
    """(wall s, results, driver CPU s, Ray's own processes' CPU s, Ray tasks) of one round."""
    c0, r0 = driver_cpu(), cluster.cpu()[0] if cluster else 0.0
    k0 = getattr(ex, "ray_tasks", 0)
    t0 = time.perf_counter()
    results = dicts(measure(ex, work, per_batch))
    wall = time.perf_counter() - t0
    return (wall, results, driver_cpu() - c0, (cluster.cpu()[0] - r0) if cluster else 0.0,
            getattr(ex, "ray_tasks", 0) - k0)


def round_seconds(ex, probe, reps=5):
    """(wall s, Ray tasks) of a round, on average."""
    k0 = getattr(ex, "ray_tasks", 0)
    t0 = time.perf_counter()
    for _ in range(reps):
        measure(ex, probe)
    return (time.perf_counter() - t0) / reps, (getattr(ex, "ray_tasks", 0) - k0) / reps


def measurement_seconds(ex, work):
    """Each measurement's wall time on the local pool, measured alone."""
    out = []
    for t, cs in work:
        row = []
        for c in cs:
            t0 = time.perf_counter()
            ex.measure(t.tuning, [c], t.target)
            row.append(time.perf_counter() - t0)
        out.append(row)
    return out


def makespan(seconds, sizes, workers):
    """The wall time of one batch (or round) whose measurements take `seconds`, cut into chunks
    of `sizes` handed in order to whichever of `workers` is free, with no cost but measuring."""
    free, i = [0.0] * workers, 0
    for k in sizes:
        w = free.index(min(free))
        free[w] += sum(seconds[i:i + k])
        i += k
    return max(free)


def load():
    return os.getloadavg()[0]


def ray_start(*args):
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ray"), "start", *args],
                   check=True, capture_output=True, timeout=180)


def wait_cpus(ray, n, seconds=60):
    deadline = time.monotonic() + seconds
    while farm._cluster_cpus(ray) != n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the cluster did not reach {n} CPUs")
        time.sleep(0.5)


def ray_passes(work, reference, probe, local_round, reps, loads, say):
    """Starts the cluster, times ray-1 then ray-2 (and ray-2/batch, alternating with it), stops
    the cluster. Returns {engine: (executor, best pass)} and {engine: (overhead per round, Ray
    tasks per round)}."""
    best, overhead = {}, {}
    temp = tempfile.mkdtemp(prefix="tessera-farm-bench.")
    cluster = Cluster(temp)
    common = ["--disable-usage-stats", "--object-store-memory=80000000", f"--temp-dir={temp}"]
    try:
        ray_start("--head", f"--node-ip-address={HEAD}", f"--port={PORT}", "--num-cpus=0",
                  "--include-dashboard=false", *common)
        ray = farm.connect(f"{HEAD}:{PORT}")
        for k, ip in enumerate(NODES, start=1):
            ray_start(f"--address={HEAD}:{PORT}", f"--node-ip-address={ip}", "--num-cpus=1",
                      *common)
            wait_cpus(ray, k)
            ex = farm.RayExecutor(f"{HEAD}:{PORT}")
            engines = {f"ray-{k}": (ex, False)}
            if k == len(NODES):
                engines[f"ray-{k}/batch"] = (ex, True)
            # Warm-up: every worker imports tessera and builds the tasks, and the executor
            # times each task (which it sends first from then on).
            measure(ex, work)
            loads.append((f"{k} node(s)", load()))
            passes = {name: [] for name in engines}
            for _ in range(reps):
                for name, (e, per_batch) in engines.items():
                    p = timed_pass(e, work, cluster, per_batch)
                    assert p[1] == reference, f"{name}'s results differ from the local runner's"
                    passes[name].append(p)
            for name, (e, per_batch) in engines.items():
                best[name] = (e, min(passes[name], key=lambda p: p[0]))
                say(f"{name}: best {best[name][1][0]:.2f} s, load {load():.1f}")
            s, chunks = round_seconds(ex, probe)
            overhead[f"ray-{k}"] = (s - local_round / k, chunks)
    finally:
        try:
            import ray as _ray
            _ray.shutdown()
        finally:
            cluster.stop()
            shutil.rmtree(temp, ignore_errors=True)
    return best, overhead


def planned_order(work, alone):
    """The measurement times of the round in the order RayExecutor sends its configs once it
    has timed every task (tasks slowest per config first, each batch in its order)."""
    mean = [sum(r) / len(r) for r in alone]
    order = sorted(range(len(work)), key=lambda i: (-mean[i], i))
    return [x for i in order for x in alone[i]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=24, help="configs per ResNet-18 task")
    ap.add_argument("--reps", type=int, default=3, help="passes per engine (best is kept)")
    ap.add_argument("--no-report", action="store_true", help="print only; keep REPORT.md")
    a = ap.parse_args()

    target = npu.default_target()
    wls = json.load(open(os.path.join(ROOT, "benchmarks", "workloads", "resnet18.json")))
    tasks = [task_of(w, target) for w in wls["workloads"]]
    rng = random.Random(12)
    work = [(t, sample(t, a.per_task, rng)) for t in tasks]
    n = sum(len(cs) for _, cs in work)
    # Configs that fail at once, a batch per task: for the overhead per round.
    probe = []
    for t in tasks:
        fast = [c for c in (t.config(rng.randrange(t.space_size)) for _ in range(100 * a.per_task))
                if not t.is_valid(c)]
        probe.append((t, fast[:a.per_task]))
    loads = [("start", load())]

    def say(*args):
        print(*args, flush=True)

    local = at.LocalExecutor(at.measure_npu, workers=1)
    measure(local, work)
    say(f"{n} measurements, a round of {len(work)} batches; load {load():.1f}")
    before = [timed_pass(local, work) for _ in range(a.reps)]
    reference = before[0][1]
    local_round = round_seconds(local, probe)[0]
    alone = measurement_seconds(local, work)
    say(f"local-1 before the cluster: best {min(p[0] for p in before):.2f} s")
    best, overhead = ray_passes(work, reference, probe, local_round, a.reps, loads, say)
    time.sleep(2)  # the cluster's processes gone
    after = [timed_pass(local, work) for _ in range(a.reps)]
    loads.append(("end", load()))
    say(f"local-1 after the cluster: best {min(p[0] for p in after):.2f} s")
    local_s = min(p[0] for p in before + after)

    rows = [("local-1", "local thread pool, 1 worker, the round in one call", local_s, None,
             None, None)]
    for name, (ex, (s, _, drv, own, chunks)) in best.items():
        how = ("a call per task's batch (as before rounds)" if name.endswith("/batch") else
               "the round in one call, chunks sized per round")
        rows.append((name, f"Ray, {ex.cpus} worker node(s) of 1 CPU, {how}", s, drv, own, chunks))
    lines = [f"| engine | how | wall s ({n} measurements) | measurements/s | x local-1 | "
             "Ray tasks | driver CPU s | Ray's own CPU s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, how, s, drv, own, chunks in rows:
        cpu = "| - | - | - |" if drv is None else f"| {chunks} | {drv:.2f} | {own:.2f} |"
        lines.append(f"| {name} | {how} | {s:.2f} | {n / s:.1f} | {local_s / s:.2f} {cpu}")
    table = "\n".join(lines)
    speedup = local_s / best["ray-2"][1][0]
    # What two workers could do if Ray cost nothing: a round (a batch) ends with its last
    # measurement, so its slowest one bounds it.
    flat = [x for r in alone for x in r]
    total = sum(flat)
    bound = total / max(total / 2, max(flat))
    order = planned_order(work, alone)
    planned = total / makespan(order, farm.chunk_sizes(n, 2), 2)
    batch_bound = total / sum(max(sum(r) / 2, max(r)) for r in alone)
    batch_planned = total / sum(makespan(r, farm.chunk_sizes(len(r), 2), 2) for r in alone)
    summary = (
        f"ray-2 / local-1 = {speedup:.2f} (target >= 1.6: {'met' if speedup >= 1.6 else 'NOT met'})"
        f"; local-1's best pass before the cluster {min(p[0] for p in before):.2f} s, after it "
        f"{min(p[0] for p in after):.2f} s. If Ray cost nothing, this round would allow two "
        f"workers at most {bound:.2f}x one ({planned:.2f}x in the farm's chunks, slowest tasks "
        f"first); measured batch by batch, at most {batch_bound:.2f}x ({batch_planned:.2f}x in "
        f"chunks per batch); from each measurement's time alone (sum {total:.2f} s; the slowest "
        f"{max(flat) * 1e3:.0f} ms, the median {sorted(flat)[n // 2] * 1e3:.1f} ms). Ray's "
        f"overhead per round of {len(probe)} x {a.per_task} configs that fail at once (its "
        f"wall time minus the local pool's divided among the workers): "
        + ", ".join(f"{o * 1e3:.1f} ms on {k} in {c:.0f} Ray tasks ({o / c * 1e3:.1f} ms per "
                    f"task)" for k, (o, c) in overhead.items())
        + f" (the local pool's round: {local_round * 1e3:.2f} ms). Load average (1 min) "
        + ", ".join(f"{w} {v:.1f}" for w, v in loads) + f", on {os.cpu_count()} cores")
    print(table)
    print(summary)
    if not a.no_report:
        with open(os.path.join(HERE, "REPORT.md"), "w") as f:
            f.write(REPORT.format(
                table=table, summary=summary, n=n, per=a.per_task, tasks=len(tasks), reps=a.reps,
                chunks=farm.chunk_sizes(n, 2), chunks1=farm.chunk_sizes(n, 1),
                command=" ".join(["benchmarks/farm/run.py"] + sys.argv[1:])))


REPORT = """# Build farm: measurements per second, local runner against Ray

Written by `.venv/bin/python {command}`, one run.

{n} measurements ({per} configs drawn with a fixed seed among the valid ones of each of ResNet-18's
{tasks} tasks: a batch per task) measured as a tuning job's round, the {tasks} batches in one
executor call (measure_many), best of {reps} passes per engine after a warm-up round; every Ray
result equal to the local runner's. local-1 is timed before the cluster starts and after it
stops (its best pass of either); the ray-2 variants' passes alternate.

{table}

{summary}.

"Ray tasks" is the number of chunks a pass sent, "driver CPU s" the CPU time of the benchmark's
own process (the driver) over the pass, "Ray's own CPU s" that of the cluster's GCS, raylets and
their agents (not the workers, whose CPU is the measurements): what the farm takes from the two
cores the workers measure on. The bound "if Ray cost nothing" replays the round on two workers
from each measurement's time alone (timed on the local pool, one at a time): measurement times
are uneven (a few configs take many times the median), a round is done when its last
measurement is, and no schedule makes it shorter than its slowest measurement or half the sum;
what is left between the bound and ray-2 is Ray's (and the machine's other load).

Why rounds: a tuning job used to measure one task's batch at a time, and a batch ends with its
slowest measurement while the other worker idles (ray-2/batch, and the bound "measured batch by
batch"). Now each round takes the next batch of every task and the executor pools all their
configs: the Ray executor cuts the round into chunks, largest first ({n} configs on two CPUs:
{chunks}; on one: {chunks1}), the configs of the tasks that measured slowest per config so far
first (the workers time each task's share of a chunk), so the long measurements start early
and the quick ones fill the single-measurement tail that keeps both workers busy to the end of
the round. Ray's cost per task (its scheduling and round trips) is paid once per chunk: a round
takes about as many chunks as one batch did before, for twelve times the configs. While the
workers measure, the driver sleeps in `ray.wait` until the round is done. Each worker is a warm
process (Ray reuses it; the tasks rebuilt from their keys are cached) whose measurement is the
C++ `measure_npu`, run with the GIL released. The overhead is the wall time of a round of
configs that fail at once on Ray minus on the local pool (divided among the workers): Ray's
round trips, almost nothing measured.

The machine has 2 cores, shared with whatever else runs (the load averages above); the figures
move with it, and under load a farm of several processes gets a larger share of the machine
than the one local thread: a fair comparison needs a quiet machine.
"""

if __name__ == "__main__":
    main()
