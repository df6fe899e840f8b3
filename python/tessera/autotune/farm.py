"""tessera.autotune.farm: measurement on a build farm (a Ray cluster), behind the Executor interface.

The driver (tune(), the tuning job) keeps the search, the model and the log; an executor only
runs the plain measurement (task, config, target) -> result. RayExecutor sends each measurement
of a batch to a Ray cluster as a Ray task, addressed by what crosses a process boundary: the task
key (canonical JSON), the config's canonical JSON and the target's JSON. A worker rebuilds the
task from its key (task_from_key: the NPU templates' table, in C++) and runs the same measurement
the local executor runs (measure_npu, the GIL released), so a farm job's log equals a local job's
with the same seed (timestamps aside): results come back in the batch's order.

    from tessera import autotune as at
    from tessera.autotune import farm
    task = at.NpuTask("dense", dict(M=8, K=64, N=64, multiplier=1, shift=0))
    ex = farm.make_executor("ray", address="auto", timeout=30)   # or "local", workers=2
    at.tune(task.tuning, at.make_tuner("xgb", task.tuning, seed=1), ex, target=task.target)

Faults (docs in the README's farm section):
- a worker process that dies mid-measurement (killed, out of memory, a crash) and a worker node
  that goes away: Ray runs the measurement again elsewhere (the task's `max_retries`); a
  measurement that kills its worker every time is recorded as an internal error.
- the time limit (`timeout`, per measurement): the worker measures with a LocalExecutor of one
  thread and that limit, so a measurement that overruns is cancelled and recorded as a timeout
  exactly as locally; one that does not stop within `abandon_grace` seconds of its cancellation is
  abandoned and recorded as a timeout, as locally, and its worker process then exits (a thread
  cannot be stopped; Ray starts another worker). A worker that cannot answer at all is stopped
  by force by the driver (`unresponsive_seconds`). The job goes on.
- back-pressure: at most `max_in_flight` measurements are submitted at once (default: twice the
  cluster's CPUs, so every worker has its next measurement waiting), whatever the batch size.
- an address that cannot be reached fails at once with a FarmError naming it.

Workers import this module, so every node needs the same tessera and Ray as the driver: install
the package (`pip install .`) into the same virtual environment path on each node and start Ray
from it (README: "Tuning on a farm"). Ray's usage statistics are turned off.

Another engine goes behind the same interface: an Executor subclass with measure(batch), and a
line in make_executor's table.
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


def measure_on_worker(measurement, key_text, config_text, target_json, timeout, grace):
    """One measurement, as a worker runs it: the task rebuilt from its key (cached per process, so
    a worker stays warm), the config from its canonical JSON, measured by a one-thread
    LocalExecutor with the time limit and grace, so that an overrun is recorded exactly as
    locally. Returns the result as a dict (MeasureResult.to_dict)."""
    task, target = _worker_task(measurement, key_text, target_json)
    config = task.space.from_text(config_text)
    ex = _worker_executors.get((measurement.name, timeout, grace))
    if ex is None:
        if len(_worker_executors) >= _WORKER_CACHE_SIZE:
            _worker_executors.clear()
        ex = LocalExecutor(measurement.function(), workers=1, timeout=timeout,
                           abandon_grace=grace)
        _worker_executors[(measurement.name, timeout, grace)] = ex
    abandoned = ex.abandoned_count
    [result] = ex.measure(task, [config], target)
    if ex.abandoned_count != abandoned:
        # The measurement runs on in a thread that cannot be stopped: this process retires once
        # its answer is on the way (Ray starts another worker, and runs again whatever it had
        # already sent here).
        threading.Timer(_RETIRE_SECONDS, os._exit, (0,)).start()
    return result.to_dict()


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
    """Measures each batch on a Ray cluster, one Ray task per measurement; see the module's
    docstring. `address`: HOST:PORT or 'auto'. `timeout`: seconds per measurement (0: none);
    `abandon_grace`: seconds after cancellation before the worker is stopped by force.
    `max_in_flight`: measurements submitted at once (default 2 x the cluster's CPUs).
    `max_retries`: runs again after a worker dies. `measurement`: a Measurement.
    `unresponsive_seconds`: a worker that has not answered this long after a measurement's limit
    and grace (counted from when the measurement is estimated to have started) is stopped by
    force and the measurement recorded as a timeout: the last resort for a worker that cannot
    answer at all (its Python is stuck), since a worker enforces the limit itself."""

    def __init__(self, address="auto", *, timeout=0.0, abandon_grace=1.0, max_in_flight=None,
                 max_retries=DEFAULT_MAX_RETRIES, measurement=None, connect_timeout=5.0,
                 unresponsive_seconds=30.0):
        Executor.__init__(self)
        if timeout < 0 or abandon_grace < 0:
            raise FarmError(f"Ray executor: timeout {timeout} and abandon_grace "
                            f"{abandon_grace} must not be negative (timeout 0: no limit)")
        if max_in_flight is not None and max_in_flight < 1:
            raise FarmError(f"Ray executor: max_in_flight must be at least 1, not "
                            f"{max_in_flight}")
        if max_retries < 0:
            raise FarmError(f"Ray executor: max_retries {max_retries} < 0")
        self.address = address
        self.timeout = float(timeout)
        self.abandon_grace = float(abandon_grace)
        self.unresponsive_seconds = float(unresponsive_seconds)
        self.max_retries = int(max_retries)
        self.measurement = measurement or Measurement()
        self._ray = ray = connect(address, connect_timeout)
        self.cpus = _cluster_cpus(ray)
        if self.cpus < 1:
            raise FarmError(f"the Ray cluster at {address} has no CPUs to measure on (start a "
                            "worker node: `ray start --address=HEAD:PORT --num-cpus=N`)")
        self.max_in_flight = int(max_in_flight or 2 * self.cpus)
        self._remote = ray.remote(measure_on_worker).options(
            num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)
        self._measurement_ref = ray.put(self.measurement)
        self._tasks = {}  # what workers will rebuild, checked once here
        self.killed = 0   # workers stopped by force (they did not answer)
        self.batches = 0

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
        ray = self._ray
        target_json = batch.target.to_json()
        key_text = batch.task.key_text
        self._check_task(batch.task, target_json)
        configs = [batch.task.space.to_text(c) for c in batch.configs]
        results = [None] * len(configs)
        pending = {}  # ref -> [index, estimated start], in submission order
        nxt = 0
        limit = (self.timeout + self.abandon_grace + self.unresponsive_seconds
                 if self.timeout > 0 else None)
        while nxt < len(configs) or pending:
            while nxt < len(configs) and len(pending) < self.max_in_flight:
                ref = self._remote.remote(self._measurement_ref, key_text, configs[nxt],
                                          target_json, self.timeout, self.abandon_grace)
                pending[ref] = [nxt, None]
                nxt += 1
            now = time.monotonic()
            # Ray starts tasks in about submission order: the oldest `cpus` are running.
            for slot in list(pending.values())[:self.cpus]:
                if slot[1] is None:
                    slot[1] = now
            wait = None
            if limit is not None:
                wait = max(0.0, min(s[1] for s in pending.values() if s[1] is not None) +
                           limit - now)
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=wait)
            for ref in ready:
                i, _ = pending.pop(ref)
                results[i] = self._collect(ref, batch.trials[i], key_text)
            if limit is not None:
                now = time.monotonic()
                for ref, (i, start) in list(pending.items()):
                    if start is not None and now >= start + limit:
                        ray.cancel(ref, force=True)
                        del pending[ref]
                        self.killed += 1
                        results[i] = MeasureResult.failure(
                            "timeout", f"measurement exceeded its time limit of "
                            f"{self.timeout:g} s and its Ray worker did not answer "
                            f"{self.abandon_grace + self.unresponsive_seconds:g} s after "
                            "it; the worker was stopped")
        self.batches += 1
        return results

    def _collect(self, ref, trial, key_text):
        ray = self._ray
        try:
            return result_from_dict(ray.get(ref))
        except ray.exceptions.RayTaskError as e:
            # The worker function itself failed (not the measurement: that is a result): a
            # node without tessera, or another version of it.
            raise FarmError(f"Ray executor: a worker could not measure trial {trial} of task "
                            f"{key_text}: {e.cause if e.cause is not None else e} (every "
                            "node needs the same tessera and Ray as the driver)") from None
        except ray.exceptions.RayError as e:
            # Ray gave up after max_retries: the measurement kills its worker (a crash in
            # tessera), or the cluster lost every node able to run it.
            return MeasureResult.failure(
                "internal_error", f"the Ray worker measuring this trial died "
                f"{self.max_retries + 1} time(s) ({type(e).__name__}: "
                f"{str(e).splitlines()[0] if str(e) else ''})")

    def __repr__(self):
        return (f"<RayExecutor {self.address}: {self.cpus} CPU(s), {self.max_in_flight} in "
                f"flight, timeout {self.timeout:g} s>")



# --- the factory and the CLI -----------------------------------------------------------------

def make_executor(kind="local", *, address=None, workers=1, timeout=0.0, abandon_grace=1.0,
                  max_in_flight=None, measure=None):
    """An executor by engine: 'local' (a pool of `workers` threads measuring `measure`, default
    measure_npu) or 'ray' (the cluster at `address`, default 'auto'; `measure`, if given, a
    Measurement). Both take the per-measurement `timeout` (0: none) and `abandon_grace`."""
    if kind == "local":
        return LocalExecutor(measure or measure_npu, workers=workers, timeout=timeout,
                             abandon_grace=abandon_grace)
    if kind == "ray":
        return RayExecutor(address or "auto", timeout=timeout, abandon_grace=abandon_grace,
                           max_in_flight=max_in_flight, measurement=measure)
    raise FarmError(f"no executor engine '{kind}'; the engines: {', '.join(ENGINES)}")


def add_executor_arguments(parser, timeout=True):
    """Adds --ray ADDRESS (and --max-in-flight) and, unless the command has its own, --timeout."""
    g = parser.add_argument_group("measurement on a Ray cluster (build farm)")
    g.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="measure on the Ray cluster at ADDRESS (HOST:PORT of the head, as "
                        "`ray start --head --port=PORT` printed it) or 'auto' (the cluster "
                        "started on this machine); default: the local thread pool")
    g.add_argument("--max-in-flight", type=int, default=None, metavar="N",
                   help="with --ray: measurements submitted at once (default: 2 x the "
                        "cluster's CPUs)")
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
                             max_in_flight=getattr(args, "max_in_flight", None), measure=measure)
    return make_executor("local", workers=workers, timeout=timeout, measure=measure)
