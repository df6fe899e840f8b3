"""tessera.autotune: the auto-tuner from Python (docs/autotune_python.md).

A thin layer over the C++ core (autotune/, bound in python/src/tuning.cpp): config spaces, tasks,
tuners, the local executor, tune(), tuning logs. A task and its measurement may be written in
Python ("Python can define templates too"):

    from tessera import autotune as at
    space = at.ConfigSpace().add(at.Knob.split("tile", 64, [1, 2, 4, 8]))
    task = at.TuningTask({"template": "my_op", "args": {"n": 64}}, space)

    def measure(inp, ctx):                      # inp.task, inp.config, inp.values, inp.target
        f = tessera.build(my_schedule(inp.values["tile"]), args, target="npu")
        return at.MeasureResult.success(f.timing()["cycles"])

    report = at.tune(task, at.make_tuner("xgb", task, seed=1), at.LocalExecutor(measure),
                     trials=64, log="tuning.jsonl", progress=True)

The NPU operator library's templates are tasks already (docs/npu_templates.md):

    task = at.NpuTask("conv2d", dict(C=64, H=56, W=56, K=64, R=3, S=3, stride=1, pad=1,
                                     multiplier=1 << 14, shift=22))
    report = at.tune(task.tuning, at.make_tuner("xgb", task.tuning, seed=1),
                     at.LocalExecutor(at.measure_npu, workers=2), target=task.target, trials=64)

A whole network from a workloads file (docs/workloads.md), and replay of the log:

    results = at.tune_workloads("benchmarks/workloads/resnet18_tasks.json", trials=32,
                                log="resnet18.jsonl", workers=2, progress=True)
    with at.apply_history_best("resnet18.jsonl", strict=True):
        op = tessera.npu_ops.conv2d(...)        # built with the task's best record

The GIL is released while tuning; it is taken only to call Python (the measurement, a validity
check, a featurizer, the progress bar). Warnings about a log (a skipped line, a cut-short last
line) are Python warnings of class TuningLogWarning naming the file and line; an internal error in
a measurement is recorded in the log and raised as an InternalErrorWarning when it happens.
"""
import warnings as _warnings

from .._tessera import tuning as _t

Knob = _t.Knob
Config = _t.Config
ConfigSpace = _t.ConfigSpace
TuningTask = _t.TuningTask
MeasureResult = _t.MeasureResult
MeasureContext = _t.MeasureContext
MeasureInput = _t.MeasureInput
MeasureFunction = _t.MeasureFunction
MeasureBatch = _t.MeasureBatch
Trial = _t.Trial
Tuner = _t.Tuner
Executor = _t.Executor
LocalExecutor = _t.LocalExecutor
TuneProgress = _t.TuneProgress
TuneReport = _t.TuneReport
TunerOptions = _t.TunerOptions
CostModel = _t.CostModel
CostModelOptions = _t.CostModelOptions
TrainingGroup = _t.TrainingGroup
ConfigError = _t.ConfigError
TuningLogError = _t.TuningLogError
MeasurementCancelled = _t.MeasurementCancelled
run_measurement = _t.run_measurement
knob_features = _t.knob_features
knob_feature_names = _t.knob_feature_names
loop_features = _t.loop_features
kernel_features = _t.kernel_features
program_features = _t.program_features
loop_feature_names = _t.loop_feature_names
kernel_feature_names = _t.kernel_feature_names
program_feature_names = _t.program_feature_names
missing_program_features = _t.missing_program_features
make_training_group = _t.make_training_group
prior_scores = _t.prior_scores
pairwise_rank_accuracy = _t.pairwise_rank_accuracy
compiler_version = _t.compiler_version
target_id = _t.target_id
TUNING_LOG_VERSION = _t.TUNING_LOG_VERSION
TUNERS = ("xgb", "random", "grid", "ga")
STATUSES = ("ok", "invalid_config", "compile_error", "simulation_error", "timeout",
            "internal_error")


class TuningLogWarning(UserWarning):
    """A tuning log line that was skipped or repaired; the message names the file and line."""


class InternalErrorWarning(RuntimeWarning):
    """A measurement failed with an internal error (a bug in tessera or in the measurement)."""


def _warn_log(message):
    _warnings.warn(message, TuningLogWarning, stacklevel=2)


def make_tuner(kind, task, seed=0, *, epsilon=None, diversity=None, chains=None, steps=None,
               rounds=None, population=None, mutation=None, transfer=None):
    """A tuner by name (xgb, random, grid, ga) for `task`, seeded. Keyword options set the xgb
    tuner's (epsilon, diversity, annealing chains and steps, boosting rounds, transfer groups)
    and the genetic tuner's (population, mutation); unset ones keep the C++ defaults."""
    o = TunerOptions()
    x, g = o.xgb, o.genetic
    if epsilon is not None:
        x.epsilon = epsilon
    if diversity is not None:
        x.diversity = diversity
    a = x.annealing
    if chains is not None:
        a.chains = chains
    if steps is not None:
        a.steps = steps
    x.annealing = a
    m = x.model
    if rounds is not None:
        m.rounds = rounds
    x.model = m
    if transfer is not None:
        x.transfer = list(transfer)
    if population is not None:
        g.population = population
    if mutation is not None:
        g.mutation = mutation
    o.xgb, o.genetic = x, g
    return _t.make_tuner(kind, task, seed, o)


def _internal_error_warning(task):
    def report(trial):
        _warnings.warn(
            f"INTERNAL ERROR (a bug in tessera or in the measurement) in trial {trial.index} "
            f"of task {task.key_text}, config {task.space.to_text(trial.config)}: "
            f"{trial.result.message}", InternalErrorWarning, stacklevel=2)
    return report


def tune(task, tuner, executor, *, target=None, trials=None, batch_size=None, early_stopping=0,
         log=None, progress=None, on_internal_error=None):
    """Tunes `task` (autotune/tune.h): returns a TuneReport. `log`: the tuning log to append to and
    resume from; `trials` and `batch_size` default to the C++ driver's. `progress`: True for a progress bar (tqdm, on stderr; plain lines when stderr is
    not a terminal), or a callable(TuneProgress) called after each batch. Internal errors are
    recorded and raised as InternalErrorWarning (or passed to on_internal_error(trial))."""
    from .progress import TuneProgressBar
    sizes = {k: v for k, v in (("trials", trials), ("batch_size", batch_size)) if v is not None}
    bar = None
    if progress is True:
        bar = TuneProgressBar(task.key_text, trials or 0)
        progress = bar.update
    try:
        return _t.tune(task, tuner, executor, target=target, **sizes,
                       early_stopping=early_stopping, log="" if log is None else str(log),
                       progress=progress, warn=_warn_log,
                       on_internal_error=on_internal_error or _internal_error_warning(task))
    finally:
        if bar is not None:
            bar.close()


def read_tuning_log(path, target=None):
    """The records of a tuning log, as dicts in file order. Broken lines are skipped with a
    TuningLogWarning naming the file and line; a log of another format version or target
    (`target`, or else its first record's) raises TuningLogError naming both."""
    log = _t.read_tuning_log(str(path), target)
    for w in log["warnings"]:
        _warnings.warn(w, TuningLogWarning, stacklevel=2)
    return log["records"]


def read_tuning_log_lines(path, target=None):
    """read_tuning_log, with each record's line number: a list of (line, record)."""
    log = _t.read_tuning_log(str(path), target)
    for w in log["warnings"]:
        _warnings.warn(w, TuningLogWarning, stacklevel=2)
    return list(zip(log["lines"], log["records"]))


def pick_best(records):
    """Each task's best valid record (fewest cycles, then the canonical config text), as a dict
    keyed by the task's canonical JSON text, in that text's order."""
    return _t.pick_best(list(records))


def append_tuning_log(path, records):
    """Appends records (dicts, as read_tuning_log returns them) to a log: one write and an fsync,
    under the log's lock, in the log's canonical byte form."""
    _t.append_tuning_log(str(path), list(records))


def transfer_groups(records, task_of, exclude, source):
    """Training groups from other tasks' records (autotune/transfer_groups.h), for
    make_tuner("xgb", ..., transfer=groups). task_of(key) -> TuningTask or None."""
    g = _t.transfer_groups(list(records), task_of, exclude, str(source))
    for w in g["warnings"]:
        _warnings.warn(w, TuningLogWarning, stacklevel=2)
    return g["groups"]


# The NPU operator templates (autotune/templates, docs/npu_templates.md): their table, tasks and
# the C++ measurement (a MeasureFunction for LocalExecutor).
from .._tessera import npu_templates as _nt  # noqa: E402

NpuTask = _nt.NpuTask
templates = _nt.templates
measure_npu = _nt.measure_function()
npu_tuning_task = _nt.tuning_task
template_feature_names = _nt.template_feature_names

from .job import (WorkloadsError, Workloads, TuneJobTask, TuneJobProgress,  # noqa: E402
                  load_workloads, tune_workloads, task_bound_cycles)
from .replay import (ApplyHistoryBest, HistoryBest, ReplayWarning,  # noqa: E402
                     apply_history_best, current_history_best, stale_record)
from .summary import summarize_log, task_text, true_work_bound  # noqa: E402
from .plot import plot_tuning_curves, tuning_curves  # noqa: E402

__all__ = [n for n in dir() if not n.startswith("_")]
