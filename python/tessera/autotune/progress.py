"""The tuning progress bar (tqdm): trials done of the budget, best cycles, errors.

On a terminal it is one redrawn line on stderr. When stderr is not a terminal (a CI log, a pipe)
the bar is not drawn: it prints one plain line per update instead, so no carriage return or
escape sequence reaches a file, and stdout is never written to.
"""
import sys

from tqdm import tqdm


class TuneProgressBar:
    """Pass `update` as tune()'s progress callback; close() when done."""

    def __init__(self, label, total, stream=None, bound_cycles=None):
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        self.total = total
        self.bound_cycles = bound_cycles  # true-work bound, when the template knows it
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=total, desc=label, file=self.stream, unit="trial",
                        dynamic_ncols=True, leave=True) if self.tty else None
        self.done = 0

    def _fields(self, p):
        f = {"best": f"{p.best_cycles} cycles" if p.best_cycles else "-", "errors": p.errors}
        if self.bound_cycles and p.best_cycles:
            f["of bound"] = f"{self.bound_cycles / p.best_cycles:.2f}"
        return f

    def update(self, p):
        if self.bar is not None:
            self.bar.total = p.total
            self.bar.update(p.trials - self.done)
            self.bar.set_postfix(self._fields(p), refresh=True)
        else:
            print(self.line(p), file=self.stream, flush=True)
        self.done = p.trials

    def line(self, p):
        """The plain line of progress `p`: "LABEL: 6/9 trials, best N cycles, errors E"."""
        fields = ", ".join(f"{k} {v}" for k, v in self._fields(p).items())
        return f"{self.label}: {p.trials}/{p.total} trials, {fields}"

    def close(self):
        if self.bar is not None:
            self.bar.close()
