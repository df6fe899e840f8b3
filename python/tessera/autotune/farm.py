"""tessera.autotune.farm: measurement on a build farm (a Ray cluster), behind the Executor interface.

The driver (tune(), the tuning job) keeps the search, the model and the log; an executor only
runs the plain measurement (task, config, target) -> result. RayExecutor sends each batch, or a
tuning job's whole round of batches (measure_many: the next batch of every task), to a Ray
cluster as a few Ray tasks, each measuring a chunk of the round's configs (of one task or
several), addressed by what crosses a process boundary: the task key (canonical JSON), the
configs' canonical JSON and the target's JSON. A worker rebuilds the task from its key (task_from_key: the NPU templates' table,
in C++) and runs the same measurement the local executor runs (measure_npu, the GIL released),
so a farm job's log equals a local job's with the same seed (timestamps aside): results come
back in the batch's order.

    from tessera import autotune as at
    from tessera.autotune import farm
    task = at.NpuTask("dense", dict(M=8, K=64, N=64, multiplier=1, shift=0))
    ex = farm.make_executor("ray", address="auto", timeout=30)   # or "local", workers=2
    at.tune(task.tuning, at.make_tuner("xgb", task.tuning, seed=1), ex, target=task.target)

Chunks: a Ray task costs milliseconds of round trips and scheduling on top of its measurement
(benchmarks/farm), so a round's configs, pooled, go as chunks, largest first (chunk_sizes: each
1/4 of what is left on two CPUs, at most DEFAULT_MAX_CHUNK) and single measurements last; Ray
gives the next chunk to whichever worker is free, so the workers stay busy to the end of the
round. Measurement times are uneven (a few configs take 100x the median) and a round ends with
its last measurement, so the configs of the tasks that measured slowest per config so far (the
workers time each task's share of a chunk) go first, in the large chunks, and the quick ones
fill the single-measurement tail. Pooling a round instead of a batch is what lets two workers
approach twice one: a batch alone ends with its slowest measurement while the other worker
idles. While they measure, the driver sleeps in `ray.wait` until the round is done (or, with a
time limit, until the next chunk is due), leaving the cores to the workers.

Faults (docs in the README's farm section):
- a worker process that dies mid-chunk (killed, out of memory, a crash) and a worker node that
  goes away: Ray runs the chunk again elsewhere (the task's `max_retries`) and its results
  replace nothing, since a chunk's results are taken once, when it returns (measuring a config
  again gives its result again). A chunk whose workers die every time is measured again one
  config per task, so a measurement that kills its worker every time is recorded alone as an
  internal error.
- the time limit (`timeout`, per measurement): the worker measures its chunk with a
  LocalExecutor of one thread and that limit, so a measurement that overruns is cancelled and
  recorded as a timeout exactly as locally, and the rest of the chunk is measured; one that
  does not stop within `abandon_grace` seconds of its cancellation is abandoned and recorded as a
  timeout, as locally, and its worker process exits once the chunk's answer is sent (a thread
  cannot be stopped; Ray starts another worker). A worker that cannot answer at all is stopped
  by force by the driver (`unresponsive_seconds`) and its chunk measured again one config per
  task. The job goes on.
- back-pressure: at most `max_in_flight` measurements are submitted at once (default: two of the
  largest chunks per CPU, so every worker has its next chunk waiting), whatever the round's size.
- an address that cannot be reached fails at once with a FarmError naming it.

Workers import this module, so every node needs the same tessera and Ray as the driver: install
the package (`pip install .`) into the same virtual environment path on each node and start Ray
from it (README: "Tuning on a farm"). Ray's usage statistics are turned off.

Another engine goes behind the same interface: an Executor subclass with measure(batch) (and,
to pool a round, measure_many(batches)), and a line in make_executor's table.
"""
import collections
import os
import socket
import threading
import time

from .. import UserError
from .. import npu as _npu
from . import Executor, LocalExecutor, MeasureResult, measure_npu

# Never report usage statistics, whoever imports Ray after this module.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

ENGINES = ("local", "ray")
DEFAULT_MAX_RETRIES = 3
DEFAULT_MAX_CHUNK = 24  # measurements per Ray task at most, when chunks are sized per round
GUIDED_SHARE = 2        # a chunk takes 1/(GUIDED_SHARE x CPUs) of what is left of a batch


class FarmError(UserError):
    """The farm cannot be used: an unreachable cluster, a worker that cannot run tessera, a task
    that workers cannot rebuild. The message names the address or the object."""


def task_from_key(key, target_json):
    """The TuningTask of an NPU template task key (dict or canonical JSON text) for a target given
    as its JSON text: what a worker rebuilds from what crossed the process boundary. A key of no
    template is a ConfigError naming it and listing the templates."""
    from . import npu_tuning_task
    return npu_tuning_task(key, _npu.parse_target(target_json, "<target of a farm measurement>"))


class Measurement:
    """What a worker runs: how to rebuild a task from its key and which measurement function to
    call. The default is the NPU templates' (task_from_key and the C++ measure_npu). A subclass
    (pickled to the workers, so module-level or registered with cloudpickle by value) may rebuild
    other tasks or measure otherwise; `name` keys the worker's cached executors."""

    name = "measure_npu"

    def task(self, key_text, target_json):
        return task_from_key(key_text, target_json)

    def function(self):
        return measure_npu


# --- the worker side: a plain function of (key, config, target) -------------------------------

_WORKER_CACHE_SIZE = 32
_worker_tasks = collections.OrderedDict()  # (name, key, target) -> (TuningTask, Target)
_worker_executors = {}                     # (name, timeout, grace) -> LocalExecutor
_RETIRE_SECONDS = 1.0


def _worker_task(measurement, key_text, target_json):
    k = (measurement.name, key_text, target_json)
    hit = _worker_tasks.get(k)
    if hit is None:
        hit = (measurement.task(key_text, target_json),
               _npu.parse_target(target_json, "<target of a farm measurement>"))
        _worker_tasks[k] = hit
        while len(_worker_tasks) > _WORKER_CACHE_SIZE:
            _worker_tasks.popitem(last=False)
    else:
        _worker_tasks.move_to_end(k)
    return hit


def _worker_executor(measurement, timeout, grace):
    ex = _worker_executors.get((measurement.name, timeout, grace))
    if ex is None:
        if len(_worker_executors) >= _WORKER_CACHE_SIZE:
            _worker_executors.clear()
        ex = LocalExecutor(measurement.function(), workers=1, timeout=timeout,
                           abandon_grace=grace)
        _worker_executors[(measurement.name, timeout, grace)] = ex
    return ex


def measure_chunk_on_worker(measurement, segments, timeout, grace):
    """A chunk of measurements, as a worker runs it: `segments`, a list of (task key text,
    target JSON, [config canonical JSON]) (a chunk of a round may hold configs of several
    tasks), each task rebuilt from its key (cached per process, so a worker stays warm), its
    configs measured one after the other by a one-thread LocalExecutor with the time limit and
    grace, so that an overrun is recorded exactly as locally and the rest of the chunk is still
    measured. Returns (the results in the chunk's order, as dicts (MeasureResult.to_dict), and
    the wall seconds of each segment): the driver estimates from them which tasks measure
    slowly, to send those first."""
    results, seconds = [], []
    ex = _worker_executor(measurement, timeout, grace)
    abandoned = ex.abandoned_count
    for key_text, target_json, config_texts in segments:
        t0 = time.perf_counter()
        task, target = _worker_task(measurement, key_text, target_json)
        configs = [task.space.from_text(c) for c in config_texts]
        results.extend(r.to_dict() for r in ex.measure(task, configs, target))
        seconds.append(time.perf_counter() - t0)
    if ex.abandoned_count != abandoned:
        # A measurement runs on in a thread that cannot be stopped: this process retires once
        # its answer is on the way (Ray starts another worker, and runs again whatever it had
        # already sent here).
        threading.Timer(_RETIRE_SECONDS, os._exit, (0,)).start()
    return results, seconds


def chunk_sizes(n, cpus, chunk_size=None, largest=DEFAULT_MAX_CHUNK):
    """The sizes of the Ray tasks a batch of `n` measurements is cut into, in submission order.
    `chunk_size` k: chunks of k (the last one shorter). None: guided self-scheduling, each chunk
    1/(GUIDED_SHARE x cpus) of what is left of the batch, so the largest chunks go first and
    the last ones are single measurements: Ray hands the next chunk to whichever worker is
    free, so every worker stays busy to the end of the batch and none waits long for a
    straggler. No chunk is larger than `largest`."""
    if n < 0 or cpus < 1 or largest < 1 or (chunk_size is not None and chunk_size < 1):
        raise FarmError(f"chunk_sizes: {n} measurements, {cpus} CPU(s), chunks of "
                        f"{chunk_size} at most {largest}: need n >= 0 and the others >= 1")
    sizes = []
    while n > 0:
        k = chunk_size or -(-n // (GUIDED_SHARE * cpus))
        k = min(k, largest, n)
        sizes.append(k)
        n -= k
    return sizes


def result_from_dict(d):
    """The MeasureResult of a worker's dict (MeasureResult.to_dict)."""
    if d["status"] == "ok":
        return MeasureResult.success(d["cycles"], d.get("fingerprint", ""))
    return MeasureResult.failure(d["status"], d.get("message", ""), d.get("fingerprint", ""))


# --- the driver side -------------------------------------------------------------------------

def _probe(address, seconds):
    """Fails fast, naming the address, when nothing listens at host:port."""
    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise FarmError(f"Ray address '{address}' is not HOST:PORT (the head's GCS port, as "
                        "`ray start --head --port=PORT` printed it) or 'auto'")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=seconds):
            pass
    except OSError as e:
        raise FarmError(f"cannot reach the Ray cluster at {address}: {e.strerror or e} (is "
                        f"`ray start --head --port={port}` running there?)") from None


_connected = None  # the address this process connected to


def connect(address="auto", connect_timeout=5.0):
    """Connects this process to the Ray cluster at `address` (HOST:PORT, or 'auto': the cluster
    started on this machine, or RAY_ADDRESS). Returns the `ray` module. FarmError naming the
    address when it cannot be reached; a process already connected keeps its connection."""
    global _connected
    import ray
    if not address:
        raise FarmError("no Ray address: give HOST:PORT of the head node or 'auto'")
    if ray.is_initialized():
        if address in ("auto", _connected) or _connected is None:
            return ray
        raise FarmError(f"this process is connected to the Ray cluster at {_connected}; it "
                        f"cannot also measure on {address} (one cluster per process)")
    if address != "auto":
        _probe(address, connect_timeout)
    try:
        ray.init(address=address, logging_level="WARNING", log_to_driver=False,
                 configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as e:
        where = "auto (no cluster started on this machine?)" if address == "auto" else address
        raise FarmError(f"cannot connect to the Ray cluster at {where}: {e}") from None
    _connected = address
    return ray


def _cluster_cpus(ray):
    return int(sum(n["Resources"].get("CPU", 0) for n in ray.nodes() if n["Alive"]))


class RayExecutor(Executor):
    """Measures each batch, or a round of batches (measure_many), on a Ray cluster as a few Ray
    tasks, each measuring a chunk of the round's configs; see the module's docstring. `address`: HOST:PORT or 'auto'. `timeout`:
    seconds per measurement (0: none); `abandon_grace`: seconds after cancellation before a
    measurement is abandoned. `chunk_size`: measurements per Ray task (None: sized from the
    round and the cluster's CPUs, chunk_sizes(); 1: a task per measurement). `max_in_flight`:
    measurements submitted at once (default: two of the largest chunks per CPU). `max_retries`:
    runs of a chunk again after its worker dies. `measurement`: a Measurement.
    `unresponsive_seconds`: a worker that has not answered this long after its chunk's limits and
    graces (counted from when the chunk is estimated to have started) is stopped by force: the
    last resort for a worker that cannot answer at all (its Python is stuck), since a worker
    enforces the limit itself. Its chunk is measured again one config per task, so that only the
    measurement that cannot be stopped is recorded as a timeout. The start is an estimate (the
    oldest chunks in flight, one per CPU), so keep `unresponsive_seconds` above the time a node
    takes to start a worker process (seconds on a loaded machine)."""

    def __init__(self, address="auto", *, timeout=0.0, abandon_grace=1.0, chunk_size=None,
                 max_in_flight=None, max_retries=DEFAULT_MAX_RETRIES, measurement=None,
                 connect_timeout=5.0, unresponsive_seconds=30.0):
        Executor.__init__(self)
        if timeout < 0 or abandon_grace < 0:
            raise FarmError(f"Ray executor: timeout {timeout} and abandon_grace "
                            f"{abandon_grace} must not be negative (timeout 0: no limit)")
        if max_in_flight is not None and max_in_flight < 1:
            raise FarmError(f"Ray executor: max_in_flight must be at least 1, not "
                            f"{max_in_flight}")
        if chunk_size is not None and chunk_size < 1:
            raise FarmError(f"Ray executor: chunk_size must be at least 1 (measurements per Ray "
                            f"task), not {chunk_size}; None sizes chunks from the batch")
        if max_retries < 0:
            raise FarmError(f"Ray executor: max_retries {max_retries} < 0")
        self.address = address
        self.timeout = float(timeout)
        self.abandon_grace = float(abandon_grace)
        self.unresponsive_seconds = float(unresponsive_seconds)
        self.max_retries = int(max_retries)
        self.chunk_size = None if chunk_size is None else int(chunk_size)
        self.measurement = measurement or Measurement()
        self._ray = ray = connect(address, connect_timeout)
        self.cpus = _cluster_cpus(ray)
        if self.cpus < 1:
            raise FarmError(f"the Ray cluster at {address} has no CPUs to measure on (start a "
                            "worker node: `ray start --address=HEAD:PORT --num-cpus=N`)")
        self.max_in_flight = int(max_in_flight or
                                 2 * self.cpus * (self.chunk_size or DEFAULT_MAX_CHUNK))
        self._remote = ray.remote(measure_chunk_on_worker).options(
            num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)
        self._measurement_ref = ray.put(self.measurement)
        self._tasks = {}  # what workers will rebuild, checked once here
        self.killed = 0   # workers stopped by force (they did not answer)
        self.batches = 0
        self.rounds = 0     # measure_many calls (measure() is one of a single batch)
        self.round_sizes = []  # configs pooled by each measure_many call, in call order
        self._seconds = {}  # task key -> seconds per measurement, as workers timed them
        self.ray_tasks = 0  # Ray tasks submitted (chunks, and their configs again one by one)
        self.split = 0      # chunks measured again one config per task

    def _check_task(self, task, target_json):
        k = (task.key_text, target_json)
        if k in self._tasks:
            return
        try:
            rebuilt = self.measurement.task(task.key_text, target_json)
        except Exception as e:
            raise FarmError(f"Ray executor: the workers cannot rebuild task {task.key_text} "
                            f"from its key: {e}") from None
        if rebuilt.space.size != task.space.size:
            raise FarmError(f"Ray executor: task {task.key_text} rebuilt from its key has "
                            f"{rebuilt.space.size} configs, not {task.space.size}: a worker "
                            "would measure another space")
        self._tasks[k] = True

    def measure(self, batch):
        return self.measure_many([batch])[0]

    def _order(self, batches):
        """The order in which the batches' configs go out: batches whose task measured slowest
        per config so far first (unknown tasks count as the slowest: measured early, they are
        known for the next round), each batch in its own order. Ties keep the batches' order.
        Only the schedule depends on it; results go back to their batch and slot."""
        def cost(i):
            b = batches[i]
            return -self._seconds.get(b.task.key_text, float("inf"))
        return sorted(range(len(batches)), key=lambda i: (cost(i), i))

    def measure_many(self, batches):
        """The results of each batch, in order; the configs of all the batches are pooled and
        cut into chunks as one (largest first, the tasks that measure slowest first), so that
        no worker waits at the end of one batch for its slowest measurement while configs of
        other batches are still to measure."""
        ray = self._ray
        items = []  # (batch index, slot): the pooled configs, in the order they go out
        texts, keys, targets = [], [], []
        for i in self._order(batches):
            b = batches[i]
            target_json = b.target.to_json()
            self._check_task(b.task, target_json)
            for j, c in enumerate(b.configs):
                items.append((i, j))
                texts.append(b.task.space.to_text(c))
                keys.append(b.task.key_text)
                targets.append(target_json)
        results = [[None] * len(b.configs) for b in batches]
        flat = [None] * len(items)
        todo = collections.deque()  # (first, stop): ranges of `items`, to submit in order
        first = 0
        for k in chunk_sizes(len(items), self.cpus, self.chunk_size,
                             largest=min(self.max_in_flight, self.chunk_size or DEFAULT_MAX_CHUNK)):
            todo.append((first, first + k))
            first += k

        def segments(a, b):
            out = []
            for k in range(a, b):
                if out and out[-1][0] == keys[k] and out[-1][1] == targets[k]:
                    out[-1][2].append(texts[k])
                else:
                    out.append((keys[k], targets[k], [texts[k]]))
            return out

        pending = {}  # ref -> [first, stop, estimated start], in submission order
        in_flight = 0
        per = self.timeout + self.abandon_grace if self.timeout > 0 else None
        while todo or pending:
            while todo and (not pending or
                            in_flight + todo[0][1] - todo[0][0] <= self.max_in_flight):
                a, b = todo.popleft()
                ref = self._remote.remote(self._measurement_ref, segments(a, b), self.timeout,
                                          self.abandon_grace)
                pending[ref] = [a, b, None]
                in_flight += b - a
                self.ray_tasks += 1
            if per is None:
                # Nothing to watch: sleep until the round is done, or room for the next chunk.
                ready, _ = ray.wait(list(pending), num_returns=1 if todo else len(pending))
            else:
                now = time.monotonic()
                # Ray starts tasks in about submission order: the oldest `cpus` are running.
                for slot in list(pending.values())[:self.cpus]:
                    if slot[2] is None:
                        slot[2] = now
                deadline = min(s[2] + (s[1] - s[0]) * per + self.unresponsive_seconds
                               for s in pending.values() if s[2] is not None)
                ready, _ = ray.wait(list(pending), num_returns=1,
                                    timeout=max(0.0, deadline - now))
            for ref in ready:
                a, b, _ = pending.pop(ref)
                in_flight -= b - a
                i, j = items[a]
                got = self._collect(ref, batches[i].trials[j], keys[a], b - a, segments(a, b))
                if got is None:
                    self._split(todo, a, b)
                else:
                    flat[a:b] = got
            if per is not None:
                now = time.monotonic()
                for ref, (a, b, start) in list(pending.items()):
                    if start is not None and now >= start + (b - a) * per + \
                            self.unresponsive_seconds:
                        ray.cancel(ref, force=True)
                        del pending[ref]
                        in_flight -= b - a
                        self.killed += 1
                        if b - a > 1:
                            self._split(todo, a, b)
                            continue
                        flat[a] = MeasureResult.failure(
                            "timeout", f"measurement exceeded its time limit of "
                            f"{self.timeout:g} s and its Ray worker did not answer "
                            f"{self.abandon_grace + self.unresponsive_seconds:g} s after "
                            "it; the worker was stopped")
        for (i, j), r in zip(items, flat):
            results[i][j] = r
        self.batches += len(batches)
        self.rounds += 1
        self.round_sizes.append(len(items))
        return results

    def _split(self, todo, a, b):
        """The chunk [a, b) failed as a whole: its configs go first, one per task, so that only
        the one at fault is recorded as failed (measuring a config again gives its result)."""
        self.split += 1
        todo.extendleft((i, i + 1) for i in reversed(range(a, b)))

    def _collect(self, ref, trial, key_text, n, segments):
        """The chunk's results; None when its workers died every time and it is more than one
        config (to be split). Notes the seconds per config of each of its tasks."""
        ray = self._ray
        try:
            dicts, seconds = ray.get(ref)
        except ray.exceptions.RayTaskError as e:
            # The worker function itself failed (not the measurement: that is a result): a
            # node without tessera, or another version of it.
            raise FarmError(f"Ray executor: a worker could not measure trial {trial} of task "
                            f"{key_text}: {e.cause if e.cause is not None else e} (every "
                            "node needs the same tessera and Ray as the driver)") from None
        except ray.exceptions.RayError as e:
            # Ray gave up after max_retries: a measurement kills its worker (a crash in
            # tessera), or the cluster lost every node able to run it.
            if n > 1:
                return None
            return [MeasureResult.failure(
                "internal_error", f"the Ray worker measuring this trial died "
                f"{self.max_retries + 1} time(s) ({type(e).__name__}: "
                f"{str(e).splitlines()[0] if str(e) else ''})")]
        for (key, _, configs), s in zip(segments, seconds):
            per = s / len(configs)
            old = self._seconds.get(key)
            self._seconds[key] = per if old is None else (old + per) / 2
        return [result_from_dict(d) for d in dicts]

    def __repr__(self):
        chunks = "sized per round" if self.chunk_size is None else f"of {self.chunk_size}"
        return (f"<RayExecutor {self.address}: {self.cpus} CPU(s), chunks {chunks}, "
                f"{self.max_in_flight} measurement(s) in flight, timeout {self.timeout:g} s>")


# --- the factory and the CLI -----------------------------------------------------------------

def make_executor(kind="local", *, address=None, workers=1, timeout=0.0, abandon_grace=1.0,
                  max_in_flight=None, chunk_size=None, measure=None):
    """An executor by engine: 'local' (a pool of `workers` threads measuring `measure`, default
    measure_npu) or 'ray' (the cluster at `address`, default 'auto'; `chunk_size` and
    `max_in_flight` as RayExecutor's; `measure`, if given, a Measurement). Both take the
    per-measurement `timeout` (0: none) and `abandon_grace`."""
    if kind == "local":
        return LocalExecutor(measure or measure_npu, workers=workers, timeout=timeout,
                             abandon_grace=abandon_grace)
    if kind == "ray":
        return RayExecutor(address or "auto", timeout=timeout, abandon_grace=abandon_grace,
                           max_in_flight=max_in_flight, chunk_size=chunk_size,
                           measurement=measure)
    raise FarmError(f"no executor engine '{kind}'; the engines: {', '.join(ENGINES)}")


def add_executor_arguments(parser, timeout=True):
    """Adds --ray ADDRESS (and --chunk-size, --max-in-flight) and, unless the command has its
    own, --timeout."""
    g = parser.add_argument_group("measurement on a Ray cluster (build farm)")
    g.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="measure on the Ray cluster at ADDRESS (HOST:PORT of the head, as "
                        "`ray start --head --port=PORT` printed it) or 'auto' (the cluster "
                        "started on this machine); default: the local thread pool")
    g.add_argument("--chunk-size", type=int, default=None, metavar="N",
                   help="with --ray: measurements per Ray task (default: sized from the round "
                        f"and the cluster's CPUs, largest first, at most {DEFAULT_MAX_CHUNK}; "
                        "1: a task per measurement)")
    g.add_argument("--max-in-flight", type=int, default=None, metavar="N",
                   help="with --ray: measurements submitted at once (default: two of the "
                        "largest chunks per CPU of the cluster)")
    if timeout:
        g.add_argument("--timeout", type=float, default=0.0, metavar="SECONDS",
                       help="time limit of one measurement; an overrun is recorded as a "
                            "timeout (default 0: none)")
    return parser


def make_executor_from_args(args, workers=None, measure=None):
    """The executor the parsed arguments ask for: Ray when --ray was given, else the local pool
    with `workers` threads (default: args.workers, else 1)."""
    if workers is None:
        workers = getattr(args, "workers", 1) or 1
    timeout = getattr(args, "timeout", 0.0) or 0.0
    if getattr(args, "ray", None):
        return make_executor("ray", address=args.ray, timeout=timeout,
                             max_in_flight=getattr(args, "max_in_flight", None),
                             chunk_size=getattr(args, "chunk_size", None), measure=measure)
    return make_executor("local", workers=workers, timeout=timeout, measure=measure)
