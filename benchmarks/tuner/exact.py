"""The exact optimum of a config space by branch and bound over a sound cycles bound.

A template with a cycles bound (NpuTask.has_cycles_bound; autotune/templates/cycles_bound.h)
gives, from the task and a config alone, a lower bound on the timing simulator's cycles. The
search enumerates the space's valid configs, computes their bounds, and measures them in
increasing bound order (batches through LocalExecutor(measure_npu), kernels identical to one
measured before not simulated again) until the next bound exceeds `margin` x the best measured:
every config is then either measured or proven by its bound to be more than (margin - 1) slower
than the optimum, so the optimum, and every config within (margin - 1) of it, is exact. A template
without a bound gives every config the bound 0: the search is then a plain sweep.

Results are appended per batch to a JSON-lines file (one {"index", "status", "cycles",
"fingerprint"} per config) that a later run resumes from. Every measured config is checked
against its bound: a config measured faster than its bound stops the run, naming the workload and
the config.
"""
import json
import os
import threading
import time

from tessera import autotune as at


class BoundViolation(RuntimeError):
    pass


def valid_bounds(task):
    """(indices, bounds) of every valid config, index order; bounds 0 without a template bound."""
    if task.has_cycles_bound:
        return task.valid_bounds()
    space = task.space
    idx = [i for i in range(task.space_size) if space.is_valid(space.at(i))]
    return idx, [0] * len(idx)


class ResultTable:
    """Measured results of one task, keyed by config index, kept in a JSON-lines file (resumed;
    a cut-short last line is ignored). Configs not in it are measured on demand (`get_many`), with
    their bound checked."""

    def __init__(self, name, task, path, workers):
        self.name, self.task, self.path = name, task, path
        self.workers = workers
        self.rows = {}
        self.lock = threading.Lock()
        self._bound_cache = {}
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue  # a line cut short by a killed run
                    self.rows[r["index"]] = (r["status"], r["cycles"], r["fingerprint"])
        self.resumed = len(self.rows)
        for i, (status, cycles, _) in sorted(self.rows.items()):
            if status == "ok":
                self.check(i, cycles)

    def bound(self, index):
        if not self.task.has_cycles_bound:
            return 0
        b = self._bound_cache.get(index)
        if b is None:
            b = self._bound_cache[index] = self.task.cycles_bound(self.task.config(index))["cycles"]
        return b

    def check(self, index, cycles, bound=None):
        b = self.bound(index) if bound is None else bound
        if b > cycles:
            raise BoundViolation(
                f"{self.name}: cycles bound {b} exceeds the simulator's {cycles} cycles for config "
                f"{self.task.to_json(self.task.config(index))} (index {index}): the bound is not "
                "sound")

    def _append(self, items):
        with open(self.path, "a") as f:
            for i, (status, cycles, fp) in items:
                f.write(json.dumps({"index": i, "status": status, "cycles": cycles,
                                    "fingerprint": fp}, sort_keys=True) + "\n")
            f.flush()

    def measure(self, indices, bounds=None):
        """Measures the configs of `indices` not in the table (2 workers, identical kernels not
        simulated again), appends them, checks each against its bound."""
        todo = [i for i in dict.fromkeys(indices) if i not in self.rows]
        if not todo:
            return 0
        known = {}
        for status, cycles, fp in self.rows.values():
            if status == "ok" and fp and fp not in known:
                known[fp] = at.MeasureResult.success(cycles, fp)
        ex = at.LocalExecutor(at.measure_npu, workers=self.workers)
        res = ex.measure(self.task.tuning, [self.task.config(i) for i in todo],
                         self.task.target, known)
        items = []
        for i, r in zip(todo, res):
            row = (r.status, r.cycles if r.ok else 0, r.fingerprint)
            items.append((i, row))
        with self.lock:
            for i, row in items:
                self.rows[i] = row
            self._append(items)
        for i, (status, cycles, _) in items:
            if status == "ok":
                self.check(i, cycles, None if bounds is None else bounds.get(i))
        return len(todo)

    def get_live(self, index):
        """One config's row, measured now (one worker, no fingerprint look-up) when it is not in
        the table; thread-safe (the C++ tuners' Python measurement runs on executor threads)."""
        with self.lock:
            row = self.rows.get(index)
        if row is not None:
            return row
        m = self.task.measure(self.task.config(index))
        row = (m["status"], m.get("cycles") or 0, m.get("fingerprint") or "")
        if row[0] == "ok":
            self.check(index, row[1])
        with self.lock:
            if index not in self.rows:
                self.rows[index] = row
                self._append([(index, row)])
        return row


def exact_search(name, task, table, margin, batch, deadline, log=print):
    """Branch and bound (module docstring). Returns a dict: optimum, measured, pruned, valid,
    threshold, complete (False when `deadline`, a time.time(), stopped it first), seconds,
    within (fraction -> count of configs within it of the optimum), bounds (index -> bound)."""
    t0 = time.time()
    idx, bnd = valid_bounds(task)
    bounds = dict(zip(idx, bnd))
    order = sorted(idx, key=lambda i: (bounds[i], i))

    def best():
        ok = [c for s, c, _ in table.rows.values() if s == "ok"]
        return min(ok) if ok else None

    pos, complete = 0, True
    while pos < len(order):
        b = best()
        if b is not None and bounds[order[pos]] > margin * b:
            break
        if time.time() > deadline:
            complete = False
            break
        take = []
        while pos < len(order) and len(take) < batch:
            i = order[pos]
            if b is not None and bounds[i] > margin * b:
                break
            pos += 1
            if i not in table.rows:
                take.append(i)
        table.measure(take, bounds)
        if take:
            log(f"{name}: {pos} of {len(order)} configs in bound order done, best {best()}, "
                f"next bound {bounds[order[pos]] if pos < len(order) else '-'}")
    opt = best()
    measured = [i for i in order[:pos]]
    within = {}
    for w in (0.02, 0.05):
        within[w] = sum(1 for i in measured
                        if table.rows[i][0] == "ok" and table.rows[i][1] <= opt * (1 + w))
    return dict(optimum=opt, valid=len(order), measured=pos, pruned=len(order) - pos,
                threshold=(margin * opt if opt else None), complete=complete,
                seconds=time.time() - t0, within=within, bounds=bounds,
                has_bound=task.has_cycles_bound, measured_set=set(measured),
                min_bound=bnd and min(bnd))
