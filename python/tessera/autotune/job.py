"""Tuning jobs over a workloads file (docs/workloads.md), the core of `tessera tune`.

    wl = at.load_workloads("benchmarks/workloads/resnet18_tasks.json")
    results = at.tune_workloads(wl, trials=32, tuner="xgb", seed=1, log="resnet18.jsonl",
                                workers=2, progress=True)
    for r in results:
        print(r.id, r.default_result.cycles, r.report.best.result.cycles, r.bound_cycles)

The job runs in C++ (autotune/job/tune_job.h) with the GIL released: for each task, trial 0 is the
template's default config, then the tuner's trials; the tasks advance together, in rounds (a batch
of every task per round, measured as one executor call); one log for the whole job, resumed per
task.
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
    """The job's progress: its tasks advance together, a batch of each per round.

    On a terminal: one bar for the whole job (trials of every task against the job's budget,
    which shrinks when a task stops early), its postfix the tasks finished and the last task
    that advanced with its best and fraction of bound; a finished task leaves a line above the
    bar ("[3/12] l2_3x3: 24/24 trials, best ... cycles, ..."). Otherwise (a CI log, a pipe):
    one plain line per task batch, "[3/12] l2_3x3: 6/9 trials, best ..., errors ...", as a
    TuneProgressBar of that task prints it."""

    def __init__(self, stream=None):
        import sys
        self.stream = sys.stderr if stream is None else stream
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.tasks = {}  # task index -> its TuneProgressBar, undrawn: its lines and fields
        self.done = {}   # task index -> trials done
        self.total = {}  # task index -> its budget (its trials when it stopped)
        self.finished = set()
        self.bar = None

    def _label(self, p):
        return f"[{p.task + 1}/{p.tasks}] {p.id}"

    def update(self, p):
        if p.task not in self.tasks:  # before the first round: the task is announced
            self.tasks[p.task] = TuneProgressBar(self._label(p), p.tune.total, stream=_Null(),
                                                 bound_cycles=p.bound_cycles)
            self.done[p.task], self.total[p.task] = 0, p.tune.total
            if self.tty and self.bar is None:
                from tqdm import tqdm
                self.bar = tqdm(total=0, desc=f"{p.tasks} task(s)", file=self.stream,
                                unit="trial", dynamic_ncols=True, leave=True)
            if self.bar is not None:
                self.bar.total += p.tune.total
                self.bar.refresh()
            return
        task = self.tasks[p.task]
        if not self.tty:
            print(task.line(p.tune), file=self.stream, flush=True)
            return
        step = p.tune.trials - self.done[p.task]
        self.done[p.task] = p.tune.trials
        if p.finished and p.task not in self.finished:
            self.finished.add(p.task)
            self.bar.total -= self.total[p.task] - p.tune.trials  # stopped early: less to do
            self.bar.write(task.line(p.tune), file=self.stream)
        self.bar.update(step)
        post = {"finished": f"{len(self.finished)}/{p.tasks}", "last": p.id}
        post.update(task._fields(p.tune))
        self.bar.set_postfix(post, refresh=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class _Null:
    """A stream that is not a terminal and keeps nothing."""

    def isatty(self):
        return False

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def tune_workloads(workloads, *, trials=64, tuner="xgb", seed=0, batch_size=8,
                   early_stopping=0, log=None, transfer_log=None, workers=1, timeout=0.0,
                   progress=None, stream=None, executor=None):
    """Tunes every task of `workloads` (a Workloads, or a path) with `trials` trials each (the
    default config's trial 0 included); returns a list of TuneJobTask (id, key, bound_cycles,
    default_result, report). `progress`: True for the job's progress bar on `stream` (default
    stderr; _JobBars), or a callable(TuneJobProgress). Log warnings are TuningLogWarnings; internal errors
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
