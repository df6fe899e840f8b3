"""What `tessera log-summary` prints: per task, its trials, searches, best cycles and errors by
class, from a log's records alone."""
import json

from . import STATUSES


def task_text(key):
    """A task key's canonical text (the C++ side's key_text(): sorted keys, no spaces)."""
    return json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def true_work_bound(task_key, target=None):
    """The true-work roofline bound (cycles) of a task of the NPU templates on `target` (an
    npu.Target; None: npu-v1), or None for a task no template knows (a Python-defined one): the
    template's tensor expression's true MACs and minimum DDR traffic (DESIGN.md), the same for
    every config. What log-summary and the progress bar divide by the best cycles."""
    from . import NpuTask, task_bound_cycles
    from .. import UserError
    try:
        return task_bound_cycles(NpuTask.from_key(task_key, target))
    except UserError:
        return None


def summarize_log(records, bound=true_work_bound):
    """One dict per task (in the order of the task's canonical key text): task (its key text),
    trials, searches ([(tuner, seed, trials)]), best_cycles (None if nothing ran), bound and
    fraction (None when the bound is unknown), errors {status: count} for every status but ok."""
    tasks = {}
    for r in records:
        key = task_text(r["task"])
        t = tasks.setdefault(key, {"task": key, "trials": 0, "searches": {}, "best_cycles": None,
                                   "errors": {s: 0 for s in STATUSES if s != "ok"},
                                   "_key": r["task"]})
        t["trials"] += 1
        search = (r["tuner"], r["seed"])
        t["searches"][search] = t["searches"].get(search, 0) + 1
        res = r["result"]
        if res["status"] == "ok":
            if t["best_cycles"] is None or res["cycles"] < t["best_cycles"]:
                t["best_cycles"] = res["cycles"]
        else:
            t["errors"][res["status"]] += 1
    out = []
    for key in sorted(tasks):
        t = tasks[key]
        b = bound(t.pop("_key"))
        t["bound"] = b
        t["fraction"] = b / t["best_cycles"] if b and t["best_cycles"] else None
        t["searches"] = [(tu, seed, n) for (tu, seed), n in sorted(t["searches"].items())]
        out.append(t)
    return out
