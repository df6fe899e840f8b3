"""The `tessera` command (also `python -m tessera`).

    tessera log-summary LOG            tasks, trials, best cycles, errors by class
    tessera pick-best LOG -o BEST      one best record per task, written as a log
    tessera plot-log LOG -o curve.png  tuning curves: best cycles against trials per search

`tune` and `replay` come with the tunable operator templates (docs/autotune_python.md has their
arguments). Results go to stdout, warnings and errors to stderr; the exit status is 0 on
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
    rows = at.summarize_log(records)
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


def _parser():
    p = argparse.ArgumentParser(
        prog="tessera",
        description="tessera: a TVM-style tensor compiler for NPUs.",
        epilog="Tuning logs: docs/tuning_log.md. The auto-tuner from Python: "
               "docs/autotune_python.md.")
    p.add_argument("--version", action="version", version=f"tessera {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("log-summary", help="per task of a tuning log: trials, best cycles, errors",
                       description="Prints, for each task of a tuning log, its trials, its "
                       "searches (tuner/seed:trials), its best cycles, the true-work fraction "
                       "(when the task's template gives its bound) and its trials per error "
                       "class.")
    s.add_argument("log", help="the tuning log (JSON lines)")
    s.add_argument("--json", action="store_true", help="one JSON object per task instead of a table")
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
