"""Replay (TVM's apply_history_best): build the NPU operator library's operators with the best
configs of a tuning log.

    with at.apply_history_best("tuning_logs/npu-v1/resnet18.jsonl", strict=True):
        op = tessera.npu_ops.conv2d(C=64, H=56, W=56, K=64, R=3, S=3, stride=1, pad=1,
                                    multiplier=1 << 14, shift=22)
    f = tessera.build(op.schedule, op.args, target="npu")

Inside the block, every operator of tessera.npu_ops is built with its task's best valid record
(fewest cycles, then the canonical config text; chosen in C++, autotune/job/history_best.h); knobs
given by name still override it. A task with no record is an error naming it (a TuningLogError)
in strict mode; otherwise its default config is used with a ReplayWarning. Blocks nest (the
innermost applies); the choice is per context (contextvars), so other threads are unaffected.
The same log and compiler version give the same kernel bytes on any machine and thread count.

A log outlives compilers: `stale_record(task, config, record)` rebuilds a record's kernel and says
why the record no longer describes it (another kernel fingerprint or cycle count than the log
measured), or None. `tessera replay` checks every task this way; a stale task fails the command
with --strict and is a ReplayWarning otherwise.
"""
import contextvars
import warnings as _warnings

from .._tessera import tuning_job as _j

HistoryBest = _j.HistoryBest
_current = contextvars.ContextVar("tessera_apply_history_best", default=None)


class ReplayWarning(UserWarning):
    """A task replayed without a record: its default config is used (the message says why)."""


class ApplyHistoryBest:
    """The context manager apply_history_best returns; also usable directly: config_for(task)."""

    def __init__(self, log, strict=False):
        from . import TuningLogWarning
        self.history = HistoryBest(str(log))
        self.strict = bool(strict)
        for w in self.history.warnings:
            _warnings.warn(w, TuningLogWarning, stacklevel=3)
        self._tokens = []

    @property
    def path(self):
        return self.history.path

    def choose(self, task, label=""):
        """(config, record dict or None) for an NpuTask; warns (or raises, strict) without one."""
        config, record, why = self.history.choose(task, self.strict, label)
        if why:
            _warnings.warn(why, ReplayWarning, stacklevel=3)
        return config, record

    def config_for(self, task, label=""):
        return self.choose(task, label)[0]

    def __enter__(self):
        self._tokens.append(_current.set(self))
        return self

    def __exit__(self, *exc):
        _current.reset(self._tokens.pop())
        return False


def stale_record(task, config, record, label=""):
    """Why `record` (a log record of `task` whose config is `config`) no longer describes the
    kernel this compiler builds from it, or None when it still does. A record without a kernel
    fingerprint (a failed trial, or a log from before fingerprints) is checked by cycles only."""
    from . import compiler_version
    result = record.get("result", {})
    if result.get("status") != "ok":
        return None
    m = task.measure(config)
    want_fp, want_cycles = result.get("fingerprint", ""), result.get("cycles")
    if m["status"] == "ok" and m["cycles"] == want_cycles and (
            not want_fp or m["fingerprint"] == want_fp):
        return None
    now = (f"kernel {m['fingerprint']}, {m['cycles']} cycles" if m["status"] == "ok"
           else f"{m['status']}: {m.get('message', '')}")
    name = f"task '{label}' ({task.key_text})" if label else f"task {task.key_text}"
    return (f"{name}: its logged config no longer builds the kernel the log measured (log: kernel "
            f"{want_fp or '?'}, {want_cycles} cycles, written by {record.get('compiler', '?')}; "
            f"now: {now}, {compiler_version()}): the log is stale for this compiler; "
            f"re-tune the task into a new log (tessera tune)")


def apply_history_best(log, strict=False):
    """A context manager under which tessera.npu_ops builds each operator with its best record
    in `log` (see the module docstring)."""
    return ApplyHistoryBest(log, strict)


def current_history_best():
    """The innermost active apply_history_best, or None."""
    return _current.get()
