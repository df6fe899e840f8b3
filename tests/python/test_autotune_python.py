"""The auto-tuner from Python (tessera.autotune): a task defined in Python tuned end to end on the
NPU simulator, the log's guarantees (resume after kill -9, same log with 1 and 2 workers, broken
lines warned about by line, other versions and targets refused), and how measurement errors of
Python code are classified and surfaced."""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings

import pytest

import tessera
from tessera import autotune as at
from tessera import npu
from tuning_tasks import analytic_cycles, analytic_task, build_conv, conv_task

HERE = os.path.dirname(os.path.abspath(__file__))


def lines_without_timestamps(path):
    with open(path) as fh:
        return [re.sub(r'"timestamp":"[^"]*"', '"timestamp":""', line) for line in fh]


def tune_analytic(log, workers=1, tuner="xgb", seed=5, trials=48, batch=8, **task_args):
    task, measure = analytic_task(**task_args)
    return at.tune(task, at.make_tuner(tuner, task, seed=seed),
                   at.LocalExecutor(measure, workers=workers), trials=trials, batch_size=batch,
                   log=log)


# ---- a Python-defined template, end to end ------------------------------------------------------

def test_a_python_defined_npu_task_tunes_end_to_end_and_logs_true_measurements(tmp_path):
    task, measure, shape = conv_task()
    log = str(tmp_path / "conv.jsonl")
    report = at.tune(task, at.make_tuner("xgb", task, seed=3), at.LocalExecutor(measure, workers=2),
                     trials=20, batch_size=5, log=log)
    records = at.read_tuning_log(log)
    assert [r["trial"] for r in records] == list(range(20))
    assert len({json.dumps(r["config"], sort_keys=True) for r in records}) == 20
    # Every logged result is the simulator's cycles for that config, built again here directly.
    for r in records:
        assert r["result"]["status"] == "ok"
        assert r["result"]["cycles"] == build_conv(shape, r["config"]).timing()["cycles"]
        assert r["task"] == {"template": "py_conv2d", "args": shape}
        assert r["target"] == at.target_id(npu.default_target())
    best = min(records, key=lambda r: (r["result"]["cycles"], json.dumps(r["config"])))
    assert report.best.result.cycles == best["result"]["cycles"]
    assert task.space.to_json(report.best.config) == best["config"]
    assert at.pick_best(records)[task.key_text]["result"]["cycles"] == best["result"]["cycles"]


def test_identical_kernels_are_not_simulated_again_and_are_logged_as_duplicates():
    # A measurement whose kernel depends on the tile only (its fingerprint): in grid order the
    # first 36 configs have tile 1, so they are all the first trial's kernel.
    task, _ = analytic_task()
    simulated = []

    def measure(inp, ctx):
        fingerprint = f"tile{inp.values['tile']}"
        known = ctx.known_result(fingerprint)
        if known is not None:
            return known
        simulated.append(inp.config)
        return at.MeasureResult.success(1000 + inp.values["tile"], fingerprint)

    report = at.tune(task, at.make_tuner("grid", task), at.LocalExecutor(measure), trials=24,
                     batch_size=4)
    # The first batch ran before anything was known; every later one found the first result.
    assert len(simulated) == 4
    assert report.trials[0].result.duplicate_of is None
    for t in report.trials[1:]:
        assert t.result.duplicate_of == 0
        assert (t.result.cycles, t.result.fingerprint) == (1001, "tile1")


# ---- the log's guarantees -----------------------------------------------------------------------

def start_job(log, tuner="xgb", seed=3, trials=64, batch=4, workers=2, sleep=0.002):
    return subprocess.Popen(
        [sys.executable, os.path.join(HERE, "tuning_job.py"), log, tuner, str(seed), str(trials),
         str(batch), str(workers), str(sleep)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python")))


def test_a_python_job_killed_at_seeded_moments_resumes_to_the_uninterrupted_log(tmp_path):
    full = str(tmp_path / "full.jsonl")
    t0 = time.monotonic()
    job = start_job(full)
    assert job.wait(timeout=120) == 0, job.stderr.read()
    whole = time.monotonic() - t0

    killed = str(tmp_path / "killed.jsonl")
    rng = random.Random(11)
    kills = 0
    for attempt in range(8):
        job = start_job(killed)
        if attempt == 7:
            assert job.wait(timeout=120) == 0
            break
        try:
            # Early in the run: a resumed job has less left to do than the whole one.
            job.wait(timeout=whole * (0.15 + 0.4 * rng.random()))
            break  # finished before the kill
        except subprocess.TimeoutExpired:
            os.kill(job.pid, signal.SIGKILL)
            job.wait()
            kills += 1
    assert kills >= 2
    assert lines_without_timestamps(killed) == lines_without_timestamps(full)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no broken line left behind
        records = at.read_tuning_log(killed)
    assert sorted(r["trial"] for r in records) == list(range(64))


def test_one_and_two_workers_write_the_same_log(tmp_path):
    one, two = str(tmp_path / "one.jsonl"), str(tmp_path / "two.jsonl")
    # Measurements sleep 1..3 ms by config, so that two workers finish out of order.
    tune_analytic(one, workers=1, sleep=0.001, trials=40)
    tune_analytic(two, workers=2, sleep=0.001, trials=40)
    assert len(lines_without_timestamps(one)) == 40
    assert lines_without_timestamps(one) == lines_without_timestamps(two)


def test_a_rerun_of_a_finished_search_measures_nothing_and_a_larger_budget_continues_it(tmp_path):
    log = str(tmp_path / "t.jsonl")
    first = tune_analytic(log, trials=24)
    again = tune_analytic(log, trials=24)
    assert (again.measured, again.resumed) == (0, 24)
    more = tune_analytic(log, trials=32)
    assert (more.measured, more.resumed) == (8, 24)
    assert [t.result for t in more.trials[:24]] == [t.result for t in first.trials]
    assert sorted(r["trial"] for r in at.read_tuning_log(log)) == list(range(32))


def test_a_truncated_last_line_and_a_garbage_line_are_skipped_with_warnings_naming_them(tmp_path):
    log = tmp_path / "t.jsonl"
    tune_analytic(str(log), trials=8)
    lines = log.read_text().splitlines(keepends=True)
    lines.insert(3, "this is not json\n")                 # line 4
    lines.append(lines[0][:40])                          # line 10, cut short (no newline)
    log.write_text("".join(lines))
    with pytest.warns(at.TuningLogWarning) as caught:
        records = at.read_tuning_log(str(log))
    messages = [str(w.message) for w in caught]
    assert any(m.startswith(f"{log}:4: not valid JSON") for m in messages), messages
    assert any(m.startswith(f"{log}:10: truncated last line") for m in messages), messages
    assert len(records) == 8
    with pytest.warns(at.TuningLogWarning):
        lines = [line for line, _ in at.read_tuning_log_lines(str(log))]
    assert lines == [1, 2, 3, 5, 6, 7, 8, 9]


def test_a_log_of_another_format_version_is_refused_naming_both_versions(tmp_path):
    log = tmp_path / "t.jsonl"
    tune_analytic(str(log), trials=4)
    lines = log.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"version":1', '"version":2')
    log.write_text("".join(lines))
    with pytest.raises(at.TuningLogError) as e:
        at.read_tuning_log(str(log))
    assert f"tuning log {log} line 3: format version 2" in str(e.value)
    assert "reads format version 1 only" in str(e.value)
    assert isinstance(e.value, tessera.UserError)


def test_a_log_of_another_target_is_refused_naming_both_targets(tmp_path):
    log = str(tmp_path / "t.jsonl")
    tune_analytic(log, trials=4)
    desc = json.loads(npu.default_target().to_json())
    desc["name"] = "npu-small"
    desc["sram_bytes"] //= 2
    other = npu.parse_target(json.dumps(desc))
    with pytest.raises(at.TuningLogError) as e:
        at.read_tuning_log(log, target=other)
    msg = str(e.value)
    assert "npu-v1 (hash " in msg and "npu-small (hash " in msg
    # A job on the other target refuses to resume from (or append to) the log.
    task, measure = analytic_task()
    with pytest.raises(at.TuningLogError, match="npu-small"):
        at.tune(task, at.make_tuner("random", task), at.LocalExecutor(measure), target=other,
                trials=4, log=log)


# ---- measurement errors of Python code ----------------------------------------------------------

def test_an_internal_error_in_a_python_measurement_is_recorded_and_surfaced(tmp_path):
    log = str(tmp_path / "t.jsonl")
    with pytest.warns(at.InternalErrorWarning) as caught:
        report = tune_analytic(log, tuner="random", trials=30, batch=10, bug_tile=2)
    bad = [t for t in report.trials if t.result.status == "internal_error"]
    assert bad and report.internal_errors and len(report.internal_errors) == len(bad)
    assert len(caught) == len(bad)
    for t in bad:
        assert "ZeroDivisionError" in t.result.message
        assert "tuning_tasks.py:" in t.result.message and " in measure" in t.result.message
    assert f"trial {bad[0].index} of task" in str(caught[0].message)
    logged = [r for r in at.read_tuning_log(log) if r["result"]["status"] == "internal_error"]
    assert [r["trial"] for r in logged] == [t.index for t in bad]
    assert all(r["config"]["tile"] == 2 for r in logged)


def test_tessera_errors_raised_in_python_are_classified_like_the_cpp_ones():
    task, measure = analytic_task(invalid_tile=1, overflow_tile=4)
    # Grid order: 36 configs per tile (the first knob), tiles 1, 2, 4.
    report = at.tune(task, at.make_tuner("grid", task), at.LocalExecutor(measure), trials=108,
                     batch_size=36)
    by_tile = {}
    for t in report.trials:
        by_tile.setdefault(task.space.to_json(t.config)["tile"], set()).add(t.result.status)
    assert by_tile[1] == {"invalid_config"} and by_tile[4] == {"compile_error"}
    assert by_tile[2] == {"ok"}
    msgs = {t.result.message for t in report.trials if t.result.status == "invalid_config"}
    assert msgs == {"tile 1 does not divide the rows of stage C"}
    assert report.internal_errors == []


def test_a_measurement_returning_something_else_is_an_internal_error():
    task, _ = analytic_task()
    r = at.run_measurement(lambda inp, ctx: 1234, task, task.space.at(0))
    assert r.status == "internal_error"
    assert "returned a int; a measurement returns a MeasureResult" in r.message


def test_a_python_measurement_that_overruns_its_limit_is_a_timeout():
    task, _ = analytic_task()

    def slow(inp, ctx):
        while not ctx.cancelled():
            time.sleep(0.001)
        ctx.throw_if_cancelled()

    ex = at.LocalExecutor(slow, workers=2, timeout=0.05)
    results = ex.measure(task, [task.space.at(0), task.space.at(1)])
    assert [r.status for r in results] == ["timeout", "timeout"]
    assert ex.abandoned_count == 0


def test_results_of_python_and_cpp_measurement_paths_agree():
    task, measure = analytic_task()
    configs = [task.space.at(i) for i in range(0, task.space.size, 7)]
    direct = [at.run_measurement(measure, task, c) for c in configs]
    pooled = at.LocalExecutor(at.MeasureFunction(measure), workers=2).measure(task, configs)
    assert direct == pooled
    assert [r.cycles for r in direct] == [analytic_cycles(task.space.to_json(c)) for c in configs]


# ---- an executor written in Python (as a farm's) ------------------------------------------------

class SerialExecutor(at.Executor):
    """Measures each batch in this process, in reverse order, as a farm may complete it."""

    def __init__(self, measure):
        super().__init__()
        self.measure_fn = measure
        self.batches = 0

    def measure(self, batch):
        self.batches += 1
        out = {}
        for i in reversed(range(len(batch.configs))):
            out[i] = at.run_measurement(self.measure_fn, batch.task, batch.configs[i], batch.target)
        return [out[i] for i in range(len(batch.configs))]


def test_an_executor_written_in_python_gives_the_local_executors_log(tmp_path):
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    task, measure = analytic_task()
    tune_analytic(a, trials=24)
    ex = SerialExecutor(measure)
    at.tune(task, at.make_tuner("xgb", task, seed=5), ex, trials=24, batch_size=8, log=b)
    assert ex.batches == 3
    assert lines_without_timestamps(a) == lines_without_timestamps(b)


# ---- spaces, configs, tasks ---------------------------------------------------------------------

def test_configs_round_trip_through_index_and_json():
    space = at.ConfigSpace().add(at.Knob.split("t", 12, [1, 2, 3, 4, 6, 12]))
    space.add(at.Knob.permutation("o", ["a", "b", "c"])).add(at.Knob.flag("f"))
    assert space.size == 6 * 6 * 2
    for i in (0, 1, 37, 71):
        c = space.at(i)
        assert space.index_of(c) == i
        assert space.from_json(space.to_json(c)) == c
        assert space.from_text(space.to_text(c)) == c
    c = space.at(37)  # mixed radix, last knob fastest: 37 = (3 * 6 + 0) * 2 + 1
    assert space.to_json(c) == {"t": 4, "o": ["a", "b", "c"], "f": True}
    assert space.to_text(c) == '{"f":true,"o":["a","b","c"],"t":4}'


def test_a_config_of_another_space_is_a_config_error_naming_the_knob():
    space = at.ConfigSpace().add(at.Knob.split("tile", 8, [1, 2, 4, 8]))
    with pytest.raises(at.ConfigError, match="tile") as e:
        space.from_json({"tile": 3})
    assert isinstance(e.value, ValueError)
    with pytest.raises(at.ConfigError, match="unroll"):
        space.from_json({"tile": 2, "unroll": 4})
    with pytest.raises(tessera.UserError, match="unknown tuner 'bayes'; tuners: xgb, random"):
        at.make_tuner("bayes", at.TuningTask({"template": "t"}, space))


def test_a_python_validity_check_and_featurizer_are_used_by_the_tuner():
    space = at.ConfigSpace().add(at.Knob.split("tile", 64, [1, 2, 4, 8, 16, 32, 64]))
    space.add(at.Knob.flag("db"))
    space.set_validity_check(lambda s, c: s.split(c, "tile") * (2 if s.flag(c, "db") else 1) <= 32)
    calls = []

    def featurize(s, c):
        calls.append(1)
        return [float(s.split(c, "tile")), float(s.flag(c, "db"))]

    task = at.TuningTask({"template": "t"}, space, featurize)

    def measure(inp, ctx):
        v = inp.values
        return at.MeasureResult.success(1000 + 10 * abs(v["tile"] - 8) + v["db"])

    report = at.tune(task, at.make_tuner("xgb", task, seed=2), at.LocalExecutor(measure),
                     trials=20, batch_size=3)
    configs = [t.config for t in report.trials]
    assert all(space.is_valid(c) for c in configs)
    # Every valid config once, then the tuner has none left.
    assert sorted(space.index_of(c) for c in configs) == [
        i for i in range(space.size) if space.is_valid(space.at(i))]
    assert len(configs) == 11 and report.exhausted
    assert calls  # the model read the Python features
    assert task.features(space.at(3)) == [2.0, 1.0]
