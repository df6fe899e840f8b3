"""Tuning jobs over a workloads file (docs/workloads.md), the core of `tessera tune`.

    wl = at.load_workloads("benchmarks/workloads/resnet18_tasks.json")
    results = at.tune_workloads(wl, trials=32, tuner="xgb", seed=1, log="resnet18.jsonl",
                                workers=2, progress=True)
    for r in results:
        print(r.id, r.default_result.cycles, r.report.best.result.cycles, r.bound_cycles)

The job runs in C++ (autotune/job/tune_job.h) with the GIL released: for each task, trial 0 is the
template's default config, then the tuner's trials; one log for the whole job, resumed per task.
"""
import warnings as _warnings

from .._tessera import tuning_job as _j
from .progress import TuneProgressBar

WorkloadsError = _j.WorkloadsError
Workloads = _j.Workloads
TuneJobTask = _j.TuneJobTask
TuneJobProgress = _j.TuneJobProgress
task_bound_cycles = _j.task_bound_cycles
WORKLOADS_VERSION = _j.WORKLOADS_VERSION


def load_workloads(path, target=None):
    """The tasks of a workloads file, checked (WorkloadsError naming the file and the entry).
    `target`: an npu.Target for tasks that name none (None: npu-v1)."""
    return _j.load_workloads(str(path), target)


class _JobBars:
    """One progress bar per task (TuneProgressBar: tqdm on a terminal, plain lines otherwise)."""

    def __init__(self, stream=None):
        self.stream = stream
        self.bar = None
        self.task = None

    def update(self, p):
        if p.task != self.task:
            self.close()
            self.task = p.task
            self.bar = TuneProgressBar(f"[{p.task + 1}/{p.tasks}] {p.id}", p.tune.total,
                                       stream=self.stream, bound_cycles=p.bound_cycles)
            return
        self.bar.update(p.tune)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def tune_workloads(workloads, *, trials=64, tuner="xgb", seed=0, batch_size=8,
                   early_stopping=0, log=None, transfer_log=None, workers=1, timeout=0.0,
                   progress=None, stream=None, executor=None):
    """Tunes every task of `workloads` (a Workloads, or a path) with `trials` trials each (the
    default config's trial 0 included); returns a list of TuneJobTask (id, key, bound_cycles,
    default_result, report). `progress`: True for a progress bar per task on `stream` (default
    stderr), or a callable(TuneJobProgress). Log warnings are TuningLogWarnings; internal errors
    are recorded in the log and raised as InternalErrorWarning as they happen. `executor`: an
    Executor to measure with instead of the local pool of `workers` threads (a farm's, say:
    tessera.autotune.farm.make_executor)."""
    from . import InternalErrorWarning, TuningLogWarning
    if not isinstance(workloads, Workloads):
        workloads = load_workloads(workloads)
    bars = None
    if progress is False:
        progress = None
    if progress is True:
        bars = _JobBars(stream)
        progress = bars.update

    def warn(message):
        _warnings.warn(message, TuningLogWarning, stacklevel=2)

    def internal_error(task_id, trial):
        _warnings.warn(f"INTERNAL ERROR (a bug in tessera) in trial {trial.index} of task "
                       f"'{task_id}' of {workloads.path}: {trial.result.message}",
                       InternalErrorWarning, stacklevel=2)

    try:
        return _j.tune_job(workloads, tuner=tuner, trials=trials, batch_size=batch_size,
                           early_stopping=early_stopping, seed=seed,
                           log="" if log is None else str(log),
                           transfer_log="" if transfer_log is None else str(transfer_log),
                           workers=workers, timeout=timeout, progress=progress, warn=warn,
                           on_internal_error=internal_error, executor=executor)
    finally:
        if bars is not None:
            bars.close()
