"""The `tessera` command (also `python -m tessera`).

    tessera tune WORKLOADS --log LOG [--trials N] [--tuner xgb|random|grid|ga] [--seed S]
                 [--workers W] [--batch-size B] [--early-stopping N] [--transfer-log LOG]
                                       tunes every task of a workloads file into a tuning log
    tessera replay LOG WORKLOADS -o DIR [--strict]
                                       builds each task with its best record: one kernel file each
    tessera log-summary LOG            tasks, trials, best cycles, true-work fraction, errors
    tessera pick-best LOG -o BEST      one best record per task, written as a log
    tessera plot-log LOG -o curve.png  tuning curves: best cycles against trials per search

Workloads files: docs/workloads.md; tuning logs: docs/tuning_log.md; the Python API:
docs/autotune_python.md. Results go to stdout; progress bars, warnings and errors to stderr (a
progress bar is drawn only on a terminal, plain lines otherwise). The exit status is 0 on
success, 1 when the command failed, 2 for a usage error.
"""
import argparse
import sys
import warnings


def _version():
    from importlib import metadata
    try:
        return metadata.version("tessera")
    except metadata.PackageNotFoundError:  # running from the source tree (scripts/setup.sh)
        return "source tree"


def _fmt_int(n):
    return "-" if n is None else str(n)


def cmd_log_summary(args):
    from . import autotune as at
    records = at.read_tuning_log(args.log)
    target = _log_target(records, args.target)
    rows = at.summarize_log(records, bound=lambda key: None if target is None
                            else at.true_work_bound(key, target))
    if args.json:
        import json
        for r in rows:
            r["searches"] = [list(s) for s in r["searches"]]
            print(json.dumps(r, sort_keys=True))
        return 0
    errors = [s for s in at.STATUSES if s != "ok"]
    head = ["task", "trials", "searches", "best cycles", "true-work fraction"] + errors
    table = [head]
    for r in rows:
        searches = " ".join(f"{t}/{seed}:{n}" for t, seed, n in r["searches"])
        frac = "-" if r["fraction"] is None else f"{r['fraction']:.3f}"
        table.append([r["task"], str(r["trials"]), searches, _fmt_int(r["best_cycles"]), frac] +
                     [str(r["errors"][s]) for s in errors])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for i, row in enumerate(table):
        print("  ".join(c.ljust(w) if j < 3 else c.rjust(w)
                        for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    total = sum(r["trials"] for r in rows)
    print(f"{len(rows)} task(s), {total} trial(s) in {args.log}")
    return 0


def _target_arg(path):
    from . import npu
    return npu.default_target() if path is None else npu.load_target(path)


def _log_target(records, path):
    """The npu.Target a log's records were measured on, if it is npu-v1 or --target's; else
    None (the true-work bound is then unknown)."""
    import sys
    from . import autotune as at
    if not records:
        return None
    target = _target_arg(path)
    if records[0]["target"] == at.target_id(target):
        return target
    log_t, given = records[0]["target"], at.target_id(target)
    if path is not None:
        raise at.TuningLogError(
            f"--target {path} is {given['name']} (hash {given['hash']}) but the log's records are "
            f"for {log_t['name']} (hash {log_t['hash']}); pass that target's description")
    print(f"tessera log-summary: the log is for target {log_t['name']} (hash {log_t['hash']}), "
          f"not npu-v1: true-work fractions need its description (--target PATH)",
          file=sys.stderr)
    return None


def _fraction(bound, cycles):
    return "-" if not bound or not cycles else f"{bound / cycles:.3f}"


def cmd_tune(args):
    import time
    from . import autotune as at
    workloads = at.load_workloads(args.workloads, _target_arg(args.target))
    if args.only:
        workloads = _only(workloads, args.only, _target_arg(args.target))
    executor = None
    if args.ray:  # the farm; otherwise the job's own local pool of --workers threads
        from .autotune import farm
        executor = farm.make_executor_from_args(args)
    t0 = time.monotonic()
    results = at.tune_workloads(workloads, trials=args.trials, tuner=args.tuner, seed=args.seed,
                                batch_size=args.batch_size, early_stopping=args.early_stopping,
                                log=args.log, transfer_log=args.transfer_log,
                                workers=args.workers, timeout=args.timeout,
                                progress=not args.quiet, executor=executor)
    wall = time.monotonic() - t0
    head = ["task", "trials", "measured", "errors", "default cycles", "best cycles",
            "default fraction", "tuned fraction"]
    table = [head]
    for r in results:
        rep = r.report
        best = rep.best.result.cycles if rep.best is not None else None
        default = r.default_result.cycles if r.default_result.ok else None
        table.append([r.id, str(len(rep.trials)), str(rep.measured),
                      str(len(rep.trials) - rep.by_status["ok"]), _fmt_int(default),
                      _fmt_int(best), _fraction(r.bound_cycles, default),
                      _fraction(r.bound_cycles, best)])
    _print_table(table)
    print(f"{len(results)} task(s) tuned with {args.tuner} (seed {args.seed}) in {wall:.1f} s; "
          f"log {args.log}")
    return 0


def cmd_replay(args):
    import hashlib
    import os
    import tessera
    from . import autotune as at
    workloads = at.load_workloads(args.workloads, _target_arg(args.target))
    replay = at.apply_history_best(args.log, strict=args.strict)
    os.makedirs(args.output, exist_ok=True)
    table = [["task", "config from", "cycles", "sha256", "kernel file"]]
    stale = []
    for wid, task in workloads.tasks:
        config, record = replay.choose(task, label=wid)
        why = None if record is None else at.stale_record(task, config, record, label=wid)
        if why is not None:
            if args.strict:
                raise at.TuningLogError(f"{args.log}: {why}")
            warnings.warn(why, at.ReplayWarning)
            stale.append(wid)
        op = task.build(config)
        module = tessera.build(op.schedule, op.args, target=task.target, name=wid)
        path = os.path.join(args.output, f"{wid}.tnpu")
        module.save(path)
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:12]
        source = "default" if record is None else "log (stale)" if wid in stale else "log"
        table.append([wid, source, str(module.timing()["cycles"]), digest, path])
    _print_table(table)
    print(f"{len(workloads)} kernel(s) written to {args.output}")
    return 0


def _only(workloads, ids, target):
    """A workloads file of only the tasks `ids` (comma-separated) name, in file order."""
    import json
    import os
    import tempfile
    from . import autotune as at
    wanted = [i for i in ids.split(",") if i]
    unknown = [i for i in wanted if i not in workloads.ids]
    if unknown:
        raise ValueError(f"--only: no task {', '.join(unknown)} in {workloads.path}; tasks: "
                         f"{', '.join(workloads.ids)}")
    with open(workloads.path) as fh:
        doc = json.load(fh)
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in wanted]
    base = os.path.dirname(os.path.abspath(workloads.path))
    for holder in [doc] + doc["tasks"]:  # keep relative target paths pointing where they did
        if isinstance(holder.get("target"), str) and not os.path.isabs(holder["target"]):
            holder["target"] = os.path.join(base, holder["target"])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, os.path.basename(workloads.path))
        with open(path, "w") as fh:
            json.dump(doc, fh)
        return at.load_workloads(path, target)


def _print_table(table):
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for i, row in enumerate(table):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))


def cmd_pick_best(args):
    import os
    from . import autotune as at
    records = at.read_tuning_log(args.log)
    best = at.pick_best(records)
    tasks = {at.task_text(r["task"]) for r in records}
    missing = sorted(tasks - set(best))
    for key in missing:
        print(f"tessera pick-best: warning: task {key} has no valid record; it is left out",
              file=sys.stderr)
    if os.path.exists(args.output):
        if not args.force:
            print(f"tessera pick-best: error: {args.output} exists (use --force to replace it)",
                  file=sys.stderr)
            return 1
        os.remove(args.output)
    at.append_tuning_log(args.output, best.values())
    print(f"{len(best)} best record(s) of {len(tasks)} task(s) written to {args.output}")
    return 0


def cmd_plot_log(args):
    from . import autotune as at
    records = at.read_tuning_log(args.log)
    n = at.plot_tuning_curves(records, args.output, title=args.title)
    print(f"{n} tuning curve(s) written to {args.output}")
    return 0


def _positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _natural(text):
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {n}")
    return n


def _parser():
    p = argparse.ArgumentParser(
        prog="tessera",
        description="tessera: a TVM-style tensor compiler for NPUs.",
        epilog="Tuning logs: docs/tuning_log.md. The auto-tuner from Python: "
               "docs/autotune_python.md.")
    p.add_argument("--version", action="version", version=f"tessera {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("tune", help="tune every task of a workloads file into a tuning log",
                       description="Tunes the tasks of a workloads file together, a batch of each "
                       "per round: trial 0 is the template's default config, then the tuner's "
                       "trials, all appended to LOG. "
                       "Run again with the same arguments, it resumes from LOG (a killed job "
                       "loses nothing). Prints per task the default and best cycles and their "
                       "fractions of the true-work bound.")
    s.add_argument("workloads", help="the workloads file (JSON, docs/workloads.md)")
    s.add_argument("-l", "-o", "--log", required=True,
                   help="the tuning log to append to and resume from")
    s.add_argument("-n", "--trials", type=_positive, default=64,
                   help="trials per task, the default config's included (default: 64)")
    s.add_argument("--tuner", choices=["xgb", "random", "grid", "ga"], default="xgb",
                   help="the search (default: xgb)")
    s.add_argument("--seed", type=_natural, default=0, help="the search's seed (default: 0)")
    s.add_argument("-j", "--workers", type=_positive, default=1,
                   help="measurement threads (default: 1)")
    s.add_argument("--batch-size", type=_positive, default=8,
                   help="configs measured per batch (default: 8)")
    s.add_argument("--early-stopping", type=_natural, default=0, metavar="N",
                   help="stop a task after N trials without improvement (default: 0, never)")
    s.add_argument("--transfer-log", "--transfer", metavar="LOG",
                   help="warm-start the xgb model from other tasks' records in LOG")
    s.add_argument("--timeout", type=float, default=0.0, metavar="SECONDS",
                   help="time limit per measurement (default: 0, none)")
    s.add_argument("--target", metavar="JSON",
                   help="target description for tasks that name none (default: npu-v1)")
    s.add_argument("--only", metavar="ID[,ID...]",
                   help="tune only these tasks of the workloads file")
    s.add_argument("-q", "--quiet", "--no-progress", action="store_true", help="no progress bars")
    from .autotune import farm
    farm.add_executor_arguments(s, timeout=False)
    s.set_defaults(run=cmd_tune)

    s = sub.add_parser("replay", help="build each task with its best record: kernel files",
                       description="For each task of a workloads file, builds the NPU kernel "
                       "of its best valid record in LOG (fewest cycles, then the canonical "
                       "config text) and writes it to OUTPUT/<id>.tnpu. A task without a record "
                       "is built with its default config and a warning, or fails the command "
                       "with --strict. Each record's kernel is rebuilt and compared with the one "
                       "the log measured (fingerprint and cycles): a stale record is a warning, "
                       "or fails the command with --strict. The same log and compiler version "
                       "give the same bytes.")
    s.add_argument("log", help="the tuning log to replay")
    s.add_argument("workloads", help="the workloads file (JSON, docs/workloads.md)")
    s.add_argument("-o", "--output", required=True, help="the directory for the kernel files")
    s.add_argument("--strict", action="store_true",
                   help="fail when a task has no record or its record is stale")
    s.add_argument("--target", metavar="JSON",
                   help="target description for tasks that name none (default: npu-v1)")
    s.set_defaults(run=cmd_replay)

    s = sub.add_parser("log-summary", help="per task of a tuning log: trials, best cycles, errors",
                       description="Prints, for each task of a tuning log, its trials, its "
                       "searches (tuner/seed:trials), its best cycles, the true-work fraction "
                       "(when the task's template gives its bound) and its trials per error "
                       "class.")
    s.add_argument("log", help="the tuning log (JSON lines)")
    s.add_argument("--json", action="store_true", help="one JSON object per task instead of a table")
    s.add_argument("--target", metavar="JSON",
                   help="the log's target description, for the true-work bound (default: npu-v1)")
    s.set_defaults(run=cmd_log_summary)

    s = sub.add_parser("pick-best", help="one best record per task, written as a log",
                       description="Writes each task's best valid record (fewest cycles, ties "
                       "broken by the canonical config text) as a new tuning log: what replay "
                       "reads.")
    s.add_argument("log", help="the tuning log to read")
    s.add_argument("-o", "--output", required=True, help="the log to write")
    s.add_argument("-f", "--force", action="store_true", help="replace OUTPUT if it exists")
    s.set_defaults(run=cmd_pick_best)

    s = sub.add_parser("plot-log", help="tuning curves of a log as a PNG",
                       description="Draws best cycles against trials, one panel per task and one "
                       "curve per search (tuner and seed), as a PNG (matplotlib).")
    s.add_argument("log", help="the tuning log to read")
    s.add_argument("-o", "--output", required=True, help="the PNG to write")
    s.add_argument("--title", help="a title over the panels")
    s.set_defaults(run=cmd_plot_log)
    return p


def main(argv=None):
    p = _parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return 0
    from . import TesseraError
    # Warnings (a skipped log line) go to stderr as one plain line each.
    warnings.formatwarning = lambda msg, cat, *rest: f"tessera {args.command}: warning: {msg}\n"
    try:
        return args.run(args)
    except (TesseraError, OSError, ValueError) as e:
        print(f"tessera {args.command}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
