"""The tuning CLI end to end on a log (python -m tessera log-summary / pick-best / plot-log), and
the progress bar when stdout and stderr are not terminals."""
import json
import os
import struct
import subprocess
import sys

import pytest

from tessera import autotune as at
from tuning_tasks import analytic_task, conv_task

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python"))


def tessera_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tessera", *args], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """Two tasks; the analytic one by two searches, with invalid, compile and internal errors."""
    path = str(tmp_path_factory.mktemp("cli") / "tuning.jsonl")
    task, measure = analytic_task(invalid_tile=1, overflow_tile=2, bug_tile=4)
    with pytest.warns(at.InternalErrorWarning):
        for tuner, seed in (("random", 1), ("xgb", 2)):
            at.tune(task, at.make_tuner(tuner, task, seed=seed), at.LocalExecutor(measure),
                    trials=40, batch_size=10, log=path)
    conv, cmeasure, _ = conv_task()
    at.tune(conv, at.make_tuner("grid", conv), at.LocalExecutor(cmeasure), trials=12,
            batch_size=6, log=path)
    return path


def records_of(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def test_log_summary_prints_each_tasks_trials_best_and_errors(log):
    out = tessera_cli("log-summary", log)
    assert out.returncode == 0, out.stderr
    records = records_of(log)
    lines = out.stdout.splitlines()
    assert lines[0].split()[:4] == ["task", "trials", "searches", "best"]
    assert lines[-1] == f"2 task(s), {len(records)} trial(s) in {log}"
    rows = {line.split()[0]: line.split() for line in lines[2:-1]}
    for key in {json.dumps(r["task"], sort_keys=True, separators=(",", ":")) for r in records}:
        mine = [r for r in records if json.dumps(r["task"], sort_keys=True,
                                                 separators=(",", ":")) == key]
        row = rows[key]
        assert int(row[1]) == len(mine)
        ok = [r["result"]["cycles"] for r in mine if r["result"]["status"] == "ok"]
        statuses = [r["result"]["status"] for r in mine]
        searches = sorted({(r["tuner"], r["seed"]) for r in mine})
        searches_text = [f"{t}/{s}:{sum(1 for r in mine if (r['tuner'], r['seed']) == (t, s))}"
                         for t, s in searches]
        assert row[2:2 + len(searches)] == searches_text
        rest = row[2 + len(searches):]
        assert rest[0] == str(min(ok))
        assert rest[1] == "-"  # the true-work fraction: no template gives the bound yet
        counts = [str(statuses.count(s)) for s in at.STATUSES if s != "ok"]
        assert rest[2:] == counts
    analytic = rows['{"args":{"n":64},"template":"py_analytic"}']
    assert analytic[-6:-3] != ["0", "0", "0"]  # the fixture's errors are there


def test_log_summary_json_gives_one_object_per_task(log):
    out = tessera_cli("log-summary", "--json", log)
    assert out.returncode == 0
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["task"] for r in rows] == sorted(r["task"] for r in rows)
    assert sum(r["trials"] for r in rows) == len(records_of(log))
    assert all(r["fraction"] is None for r in rows)


def test_pick_best_writes_one_best_record_per_task_as_a_log(log, tmp_path):
    best = str(tmp_path / "best.jsonl")
    out = tessera_cli("pick-best", log, "-o", best)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"2 best record(s) of 2 task(s) written to {best}"
    picked = records_of(best)
    records = records_of(log)
    assert len(picked) == 2
    for p in picked:
        ok = [r for r in records if r["task"] == p["task"] and r["result"]["status"] == "ok"]
        want = min(ok, key=lambda r: (r["result"]["cycles"],
                                      json.dumps(r["config"], sort_keys=True,
                                                 separators=(",", ":"))))
        assert p == want
    # The output is itself a log, in canonical bytes: picking from it again changes nothing.
    again = str(tmp_path / "again.jsonl")
    assert tessera_cli("pick-best", best, "-o", again).returncode == 0
    with open(best) as a, open(again) as b:
        assert a.read() == b.read()
    refused = tessera_cli("pick-best", log, "-o", best)
    assert refused.returncode == 1 and "exists (use --force" in refused.stderr
    assert tessera_cli("pick-best", log, "-o", best, "--force").returncode == 0


def test_plot_log_writes_a_png_with_one_curve_per_search(log, tmp_path):
    png = str(tmp_path / "curve.png")
    out = tessera_cli("plot-log", log, "-o", png, "--title", "tuning curves")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"3 tuning curve(s) written to {png}"
    with open(png, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert width >= 800 and height >= 300


def test_tuning_curves_are_the_running_best_of_each_search(log):
    records = records_of(log)
    curves = at.tuning_curves(records)
    for key, searches in curves.items():
        for (tuner, seed), curve in searches.items():
            mine = sorted((r for r in records if at.task_text(r["task"]) == key and
                           r["tuner"] == tuner and r["seed"] == seed), key=lambda r: r["trial"])
            best = None
            for r, c in zip(mine, curve):
                if r["result"]["status"] == "ok":
                    best = r["result"]["cycles"] if best is None else min(best, r["result"]["cycles"])
                assert c == best
            assert len(curve) == len(mine)


def test_a_broken_log_line_is_a_warning_on_stderr_and_the_rest_is_summarised(log, tmp_path):
    broken = tmp_path / "broken.jsonl"
    text = open(log).read().splitlines(keepends=True)
    broken.write_text("".join(text[:5] + ["{not json\n"] + text[5:]))
    out = tessera_cli("log-summary", str(broken))
    assert out.returncode == 0
    assert f"tessera log-summary: warning: {broken}:6: not valid JSON; line skipped" in out.stderr
    assert out.stdout.splitlines()[-1].startswith(f"2 task(s), {len(text)} trial(s)")


def test_errors_are_one_line_on_stderr_with_status_1(tmp_path):
    log = tmp_path / "v2.jsonl"
    log.write_text('{"version":2}\n')
    out = tessera_cli("log-summary", str(log))
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith(f"tessera log-summary: error: tuning log {log} line 1: format "
                                 "version 2")
    out = tessera_cli("plot-log", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "x.png"))
    assert out.returncode == 1 and "no record to plot" in out.stderr


def test_every_subcommand_has_help_and_usage_errors_exit_2():
    out = tessera_cli("--help")
    assert out.returncode == 0
    for cmd in ("log-summary", "pick-best", "plot-log"):
        assert cmd in out.stdout
        sub = tessera_cli(cmd, "--help")
        assert sub.returncode == 0 and sub.stdout.startswith(f"usage: tessera {cmd}")
    assert tessera_cli("pick-best", "a.jsonl").returncode == 2  # -o is required


PROGRESS_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from tessera import autotune as at
from tuning_tasks import analytic_task
task, measure = analytic_task(invalid_tile=1)
r = at.tune(task, at.make_tuner("random", task, seed=4), at.LocalExecutor(measure), trials=24,
            batch_size=8, progress=True)
print("best", r.best.result.cycles)
"""


def test_the_progress_bar_writes_plain_lines_to_stderr_when_it_is_not_a_terminal():
    out = subprocess.run([sys.executable, "-c", PROGRESS_SCRIPT.format(here=HERE)],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert out.returncode == 0, out.stderr
    # stdout has the script's own output only; stderr one plain line per batch.
    assert out.stdout.splitlines()[0].startswith("best ") and len(out.stdout.splitlines()) == 1
    lines = out.stderr.splitlines()
    assert "\r" not in out.stderr and "\x1b" not in out.stderr
    assert [line.split(": ")[1].split(" trials")[0] for line in lines] == ["8/24", "16/24", "24/24"]
    assert lines[-1].endswith("errors " + lines[-1].split("errors ")[1])
    assert "best " in lines[-1] and "cycles" in lines[-1]


def test_the_progress_bar_draws_on_a_terminal(tmp_path):
    import io
    from tessera.autotune.progress import TuneProgressBar

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = TuneProgressBar("task", 10, stream=stream)
    task, measure = analytic_task()
    at.tune(task, at.make_tuner("random", task, seed=1), at.LocalExecutor(measure), trials=10,
            batch_size=5, progress=bar.update)
    bar.close()
    text = stream.getvalue()
    assert "\r" in text and "10/10" in text and "best=" in text and "errors=0" in text


def test_log_summary_of_another_targets_log_says_which_target_it_needs(tmp_path):
    target_dir = os.path.join(HERE, "..", "..", "runtime", "npu", "targets")
    from tessera import npu
    small = npu.load_target(os.path.join(target_dir, "npu-8x8.json"))
    task = at.NpuTask("dense", dict(M=8, K=40, N=24, multiplier=1 << 14, shift=12), small)
    path = str(tmp_path / "small.jsonl")
    at.tune(task.tuning, at.make_tuner("random", task.tuning, seed=1),
            at.LocalExecutor(at.measure_npu), target=small, trials=4, log=path)
    out = tessera_cli("log-summary", path)
    assert out.returncode == 0, out.stderr
    assert "the log is for target npu-8x8" in out.stderr and "--target PATH" in out.stderr
    assert out.stdout.splitlines()[2].split()[4] == "-"  # no bound without the target
    wrong = tessera_cli("log-summary", path, "--target", os.path.join(target_dir, "npu-32x32.json"))
    assert wrong.returncode != 0
    assert "is npu-32x32" in wrong.stderr and "for npu-8x8" in wrong.stderr
    right = tessera_cli("log-summary", path, "--target", os.path.join(target_dir, "npu-8x8.json"))
    assert right.returncode == 0 and right.stderr == ""
    frac = float(right.stdout.splitlines()[2].split()[4])
    assert 0 < frac <= 1
