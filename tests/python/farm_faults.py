"""Measurements with injected faults, for the farm tests: each is a tessera.autotune.farm.Measurement
that measures with the real measure_npu except at one chosen config, where it kills its Ray worker
process (once, or every time), kills its worker node's raylet (once), hangs, or holds the GIL
for ever. Once-only faults leave a marker file, so the retry measures normally. A journal file, if
given, gets a line per measurement that ran to the end (its config), so a test can count them
across worker processes. The test module registers this module with cloudpickle by value, so the
workers need no copy of it."""
import os
import re
import signal
import time

from tessera import autotune as at
from tessera.autotune import farm


def _first_time(marker):
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.close(fd)
    return True


class Faulty(farm.Measurement):
    """measure_npu, except when measuring `config_text`: `fault()` first."""

    def __init__(self, config_text, marker, journal=None):
        self.config_text = config_text
        self.marker = marker
        self.journal = journal
        self.name = f"{type(self).__name__}:{config_text}:{marker}:{journal}"

    def fault(self, ctx):
        raise NotImplementedError

    def function(self):
        def measure(inp, ctx):
            text = inp.task.space.to_text(inp.config)
            if text == self.config_text:
                self.fault(ctx)
            result = at.run_measurement(at.measure_npu, inp.task, inp.config, inp.target)
            if self.journal:
                # One write of one short line with O_APPEND: lines of concurrent workers do not mix.
                fd = os.open(self.journal, os.O_CREAT | os.O_APPEND | os.O_WRONLY)
                os.write(fd, (text + "\n").encode())
                os.close(fd)
            return result
        return measure


class KillWorker(Faulty):
    """The worker process measuring the config dies (SIGKILL) the first time."""

    def fault(self, ctx):
        if _first_time(self.marker):
            os.kill(os.getpid(), signal.SIGKILL)


class KillWorkerAlways(Faulty):
    """The worker process measuring the config dies (SIGKILL) every time: a crash in tessera."""

    def fault(self, ctx):
        os.kill(os.getpid(), signal.SIGKILL)


class KillNode(Faulty):
    """The first time, the worker's node goes away: its raylet (the worker's parent) is killed."""

    def fault(self, ctx):
        if _first_time(self.marker):
            with open(self.marker, "w") as f:
                f.write(str(os.getppid()))
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(60)  # the worker dies with its raylet


class Hang(Faulty):
    """Never returns on the config (and never looks at its cancellation)."""

    def fault(self, ctx):
        while True:
            time.sleep(1)


class HangPolling(Faulty):
    """Runs until it is cancelled, polling its cancellation as measure_npu does."""

    def fault(self, ctx):
        while True:
            ctx.throw_if_cancelled()
            time.sleep(0.01)


class HoldGil(Faulty):
    """Never returns and holds the GIL all along (a regular expression that backtracks for
    ever): the worker's process cannot answer at all, even to say the measurement overran."""

    def fault(self, ctx):
        re.match(r"(a+)+$", "a" * 64 + "b")


class Slow(farm.Measurement):
    """measure_npu after a pause: a job that lasts long enough to be killed part way."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.name = f"Slow:{seconds}"

    def function(self):
        def measure(inp, ctx):
            time.sleep(self.seconds)
            return at.run_measurement(at.measure_npu, inp.task, inp.config, inp.target)
        return measure


def ship_by_value():
    """Lets Ray send this module's classes to workers that cannot import it."""
    import sys
    import ray.cloudpickle
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
