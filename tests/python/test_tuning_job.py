"""Tuning jobs over workloads files and replay (autotune/job): the workloads loader's errors, the
default config as trial 0 of every search, resume, the committed ResNet-18 log replayed strictly
and bit-exact, strict replay of a log missing a task, replay in two processes, and the CLI end to
end (tune -> log-summary -> pick-best -> replay --strict) with stdout and stderr not terminals."""
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tessera
from tessera import autotune as at

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
RESNET_TASKS = os.path.join(ROOT, "benchmarks", "workloads", "resnet18_tasks.json")
RESNET = os.path.join(ROOT, "benchmarks", "workloads", "resnet18.json")
COMMITTED_LOG = os.path.join(ROOT, "tuning_logs", "npu-v1", "resnet18.jsonl")
ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
Q = dict(multiplier=1 << 14, shift=22)

spec = importlib.util.spec_from_file_location(
    "npu_resnet18_run", os.path.join(ROOT, "benchmarks", "npu_resnet18", "run.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

TINY = {"version": 1, "name": "tiny", "tasks": [
    {"id": "tiny_fc", "template": "dense", "args": dict(M=8, K=32, N=32, **Q)},
    {"id": "tiny_conv", "template": "conv2d",
     "args": dict(C=16, H=8, W=8, K=16, R=3, S=3, stride=1, pad=1, **Q)},
    {"id": "tiny_add", "template": "add", "args": dict(C=16, H=4, W=4)}]}


def write_json(path, doc):
    with open(path, "w") as fh:
        json.dump(doc, fh)
    return str(path)


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tessera", *args], capture_output=True,
                          text=True, env=env or ENV, timeout=300)


def records(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def without_time(recs):
    return [{k: v for k, v in r.items() if k != "timestamp"} for r in recs]


# --- workloads files ---------------------------------------------------------------------------

@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["tasks"][1].update(tile=4), "task 2 ('tiny_conv'): unknown field \"tile\""),
    (lambda d: d["tasks"][1]["args"].pop("pad"), "task 2 ('tiny_conv'): "),
    (lambda d: d["tasks"][2].update(id="tiny_fc"), "task 3 ('tiny_fc'): the id is also task 1"),
    (lambda d: d["tasks"][0].update(template="gemm"), "task 1 ('tiny_fc'): "),
    (lambda d: d.update(version=2), "format version 2"),
    (lambda d: d["tasks"][0].update(target="missing.json"), "task 1 ('tiny_fc'): "),
    (lambda d: d.update(tasks=[]), "\"tasks\" must be a non-empty list"),
])
def test_a_wrong_workloads_entry_is_a_workloads_error_naming_the_file_and_entry(tmp_path, mutate,
                                                                               expected):
    doc = json.loads(json.dumps(TINY))
    mutate(doc)
    path = write_json(tmp_path / "w.json", doc)
    with pytest.raises(at.WorkloadsError) as e:
        at.load_workloads(path)
    assert f"workloads file {path}: " in str(e.value) and expected in str(e.value)
    assert isinstance(e.value, tessera.UserError) and isinstance(e.value, ValueError)


def test_the_resnet18_tasks_are_the_resnet18_benchmarks_layers():
    wl = at.load_workloads(RESNET_TASKS)
    layers = json.load(open(RESNET))["workloads"]
    assert wl.ids == [w["id"] for w in layers]
    for (wid, task), layer in zip(wl.tasks, layers):
        assert task.key == bench.task_of(layer).key, wid


def test_a_task_target_is_read_relative_to_the_workloads_file(tmp_path):
    doc = json.loads(json.dumps(TINY))
    doc["target"] = os.path.abspath(os.path.join(ROOT, "runtime", "npu", "targets",
                                                 "npu-8x8.json"))
    doc["tasks"][0]["target"] = os.path.relpath(
        os.path.join(ROOT, "runtime", "npu", "targets", "npu-32x32.json"), tmp_path)
    wl = at.load_workloads(write_json(tmp_path / "w.json", doc))
    assert [t.target.name for _, t in wl.tasks] == ["npu-32x32", "npu-8x8", "npu-8x8"]


# --- the job -----------------------------------------------------------------------------------

def test_each_search_starts_with_the_default_config_and_resumes_from_the_log(tmp_path):
    wl = at.load_workloads(write_json(tmp_path / "w.json", TINY))
    log = str(tmp_path / "job.jsonl")
    results = at.tune_workloads(wl, trials=6, batch_size=4, tuner="random", seed=3, log=log)
    recs = records(log)
    assert len(recs) == 18
    for (wid, task), r in zip(wl.tasks, results):
        assert r.id == wid and r.key == task.key_text
        assert r.report.trials[0].config == task.default_config()
        assert r.default_result.ok and r.report.best.result.cycles <= r.default_result.cycles
        mine = [x for x in recs if x["task"] == task.key]
        assert [x["trial"] for x in mine] == list(range(6))
        assert mine[0]["config"] == task.values(task.default_config())
        assert len({json.dumps(x["config"], sort_keys=True) for x in mine}) == 6  # no repeat
        assert r.bound_cycles == pytest.approx(task.measure(task.default_config())["bound"])
    again = at.tune_workloads(wl, trials=6, batch_size=4, tuner="random", seed=3, log=log)
    assert [r.report.measured for r in again] == [0, 0, 0]
    assert [r.report.resumed for r in again] == [6, 6, 6]
    assert records(log) == recs


def test_a_job_writes_the_same_log_with_one_and_two_workers(tmp_path):
    wl = at.load_workloads(write_json(tmp_path / "w.json", TINY))
    logs = []
    for workers in (1, 2):
        log = str(tmp_path / f"w{workers}.jsonl")
        at.tune_workloads(wl, trials=7, batch_size=3, tuner="xgb", seed=5, log=log,
                          workers=workers)
        logs.append(without_time(records(log)))
    assert logs[0] == logs[1]


def test_a_job_writing_one_log_refuses_tasks_of_two_targets(tmp_path):
    doc = json.loads(json.dumps(TINY))
    doc["tasks"][2]["target"] = os.path.abspath(
        os.path.join(ROOT, "runtime", "npu", "targets", "npu-8x8.json"))
    wl = at.load_workloads(write_json(tmp_path / "w.json", doc))
    with pytest.raises(tessera.UserError, match="task 'tiny_fc' is for npu-v1.*'tiny_add' for npu-8x8"):
        at.tune_workloads(wl, trials=2, log=str(tmp_path / "x.jsonl"))


# --- replay ------------------------------------------------------------------------------------

def python_pick_best(recs, key):
    """The tie-break written out again: fewest cycles, then the canonical config text."""
    ok = [r for r in recs if r["task"] == key and r["result"]["status"] == "ok"]
    text = lambda r: json.dumps(r["config"], sort_keys=True, separators=(",", ":"))  # noqa: E731
    return min(ok, key=lambda r: (r["result"]["cycles"], text(r)))


def test_the_committed_log_replays_strictly_and_picks_the_best_record_of_every_layer():
    history = at.HistoryBest(COMMITTED_LOG)
    assert history.warnings == []
    assert history.target == at.target_id(tessera.npu.default_target())
    recs = records(COMMITTED_LOG)
    for wid, task in at.load_workloads(RESNET_TASKS).tasks:
        record, why = history.best_record(task)
        assert record is not None, f"{wid}: {why}"
        assert without_time([record]) == without_time([python_pick_best(recs, task.key)]), wid


@pytest.mark.parametrize("layer", ["fc", "l4_1x1_s2"])
def test_replayed_layers_of_the_committed_log_are_bit_exact_against_numpy(layer):
    wl = {w["id"]: w for w in json.load(open(RESNET))["workloads"]}[layer]
    with at.apply_history_best(COMMITTED_LOG, strict=True) as replay:
        config, record = replay.choose(bench.task_of(wl))
    assert record is not None
    row = bench.run_layer(wl, np.random.default_rng(11), config=config)
    assert row["ok"], f"{layer}: the replayed kernel differs from numpy"
    assert row["cycles"] == record["result"]["cycles"]  # the log's cycles are the kernel's


def test_replay_does_not_depend_on_the_order_of_the_log(tmp_path):
    recs = records(COMMITTED_LOG)
    rev = str(tmp_path / "reversed.jsonl")
    at.append_tuning_log(rev, reversed(recs))
    a, b = at.HistoryBest(COMMITTED_LOG), at.HistoryBest(rev)
    for _, task in at.load_workloads(RESNET_TASKS).tasks:
        assert without_time([a.best_record(task)[0]]) == without_time([b.best_record(task)[0]])


def test_strict_replay_of_a_log_missing_a_task_fails_naming_it(tmp_path):
    fc = bench.task_of({"op": "dense", "M": 1, "K": 512, "N": 1000})
    partial = str(tmp_path / "partial.jsonl")
    at.append_tuning_log(partial, [r for r in records(COMMITTED_LOG) if r["task"] != fc.key])
    with at.apply_history_best(partial, strict=True):
        with pytest.raises(at.TuningLogError) as e:
            tessera.npu_ops.dense(M=1, K=512, N=1000, **Q)
    assert fc.key_text in str(e.value) and partial in str(e.value)
    # Not strict: the default config, with a warning naming the task.
    with at.apply_history_best(partial):
        with pytest.warns(at.ReplayWarning, match="has no record to replay"):
            op = tessera.npu_ops.dense(M=1, K=512, N=1000, **Q)
    default = tessera.npu_ops.dense(M=1, K=512, N=1000, **Q)
    kernel = lambda o: bytes(tessera.build(o.schedule, o.args, target="npu").kernel.to_bytes())  # noqa: E731
    assert kernel(op) == kernel(default)
    # The CLI names the workload's id.
    doc = json.loads(open(RESNET_TASKS).read())
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in ("l4_1x1_s2", "fc")]
    out = cli("replay", partial, write_json(tmp_path / "w.json", doc), "-o",
              str(tmp_path / "k"), "--strict")
    assert out.returncode == 1
    assert "task 'fc'" in out.stderr and "no record to replay" in out.stderr


def test_replay_of_a_record_whose_kernel_changed_says_the_log_is_stale(tmp_path):
    # A log written by a compiler whose kernels differ from this one's: the best record of fc
    # carries another fingerprint, the best record of l4_1x1_s2 other cycles.
    recs = records(COMMITTED_LOG)
    tasks = {wid: t for wid, t in at.load_workloads(RESNET_TASKS).tasks}
    best = {wid: python_pick_best(recs, tasks[wid].key) for wid in ("fc", "l4_1x1_s2")}
    for r in recs:
        if r == best["fc"]:
            r["result"]["fingerprint"] = "0123456789abcdef"
            r["compiler"] = "tessera 0.0.9"
        elif r == best["l4_1x1_s2"]:
            r["result"]["cycles"] -= 1
    old = str(tmp_path / "old.jsonl")
    at.append_tuning_log(old, recs)
    with at.apply_history_best(old) as replay:
        for wid in ("fc", "l4_1x1_s2"):
            config, record = replay.choose(tasks[wid])
            why = at.stale_record(tasks[wid], config, record, label=wid)
            assert why is not None and f"task '{wid}'" in why and "stale" in why
        assert "0123456789abcdef" in at.stale_record(tasks["fc"], *replay.choose(tasks["fc"]))
        assert "tessera 0.0.9" in at.stale_record(tasks["fc"], *replay.choose(tasks["fc"]))
    doc = json.loads(open(RESNET_TASKS).read())
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in ("l2_1x1_s2", "l4_1x1_s2", "fc")]
    wl = write_json(tmp_path / "w.json", doc)
    out = cli("replay", old, wl, "-o", str(tmp_path / "k"))
    assert out.returncode == 0, out.stderr
    assert "task 'fc'" in out.stderr and "task 'l4_1x1_s2'" in out.stderr
    assert "task 'l2_1x1_s2'" not in out.stderr  # its record still describes its kernel
    sources = {line.split()[0]: line.split()[1:3] for line in out.stdout.splitlines()[2:5]}
    assert sources == {"l2_1x1_s2": ["log", sources["l2_1x1_s2"][1]],
                       "l4_1x1_s2": ["log", "(stale)"], "fc": ["log", "(stale)"]}
    strict = cli("replay", old, wl, "-o", str(tmp_path / "k2"), "--strict")
    assert strict.returncode == 1
    assert "task 'l4_1x1_s2'" in strict.stderr and "stale" in strict.stderr
    # The committed log describes this compiler's kernels.
    doc["tasks"] = json.loads(open(RESNET_TASKS).read())["tasks"]
    ok = cli("replay", COMMITTED_LOG, write_json(tmp_path / "all.json", doc), "-o",
             str(tmp_path / "k3"), "--strict")
    assert ok.returncode == 0 and "stale" not in ok.stdout + ok.stderr, ok.stderr


def test_replay_in_two_processes_with_other_thread_counts_gives_the_same_kernel_bytes(tmp_path):
    doc = json.loads(open(RESNET_TASKS).read())
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in ("fc", "l2_1x1_s2", "l4_1x1_s2")]
    wl = write_json(tmp_path / "w.json", doc)
    digests = []
    for i, (threads, hashseed) in enumerate((("1", "0"), ("2", "12345"))):
        env = dict(ENV, OMP_NUM_THREADS=threads, PYTHONHASHSEED=hashseed)
        out = cli("replay", COMMITTED_LOG, wl, "-o", str(tmp_path / f"out{i}"), "--strict",
                  env=env)
        assert out.returncode == 0, out.stderr
        files = sorted(os.listdir(tmp_path / f"out{i}"))
        assert files == ["fc.tnpu", "l2_1x1_s2.tnpu", "l4_1x1_s2.tnpu"]
        digests.append([hashlib.sha256(open(tmp_path / f"out{i}" / f, "rb").read()).hexdigest()
                        for f in files])
    assert digests[0] == digests[1]


# --- the CLI end to end ------------------------------------------------------------------------

def test_the_cli_tunes_summarises_picks_and_replays_strictly_without_a_terminal(tmp_path):
    wl = write_json(tmp_path / "tiny.json", TINY)
    log = str(tmp_path / "tiny.jsonl")
    out = cli("tune", wl, "--log", log, "--trials", "5", "--batch-size", "3", "--workers", "2",
              "--tuner", "xgb", "--seed", "2")
    assert out.returncode == 0, out.stderr
    for stream in (out.stdout, out.stderr):
        assert "\r" not in stream and "\x1b" not in stream  # no bar drawn into a file
    assert "[1/3] tiny_fc: 5/5 trials" in out.stderr  # one plain progress line per batch
    assert "[3/3] tiny_add: 5/5 trials" in out.stderr
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()[2:5]}
    assert sorted(rows) == ["tiny_add", "tiny_conv", "tiny_fc"]
    recs = records(log)
    assert len(recs) == 15
    for key, row in ((t["id"], t) for t in TINY["tasks"]):
        task = at.NpuTask(row["template"], row["args"])
        best = python_pick_best(recs, task.key)["result"]["cycles"]
        assert rows[key][5] == str(best)
        assert float(rows[key][7]) == pytest.approx(at.task_bound_cycles(task) / best, abs=1e-3)

    summary = cli("log-summary", "--json", log)
    assert summary.returncode == 0, summary.stderr
    for r in map(json.loads, summary.stdout.splitlines()):
        assert r["trials"] == 5 and r["fraction"] is not None and 0 < r["fraction"] <= 1

    best = str(tmp_path / "best.jsonl")
    assert cli("pick-best", log, "-o", best).returncode == 0
    assert len(records(best)) == 3

    kernels = []
    for name, source in (("all", log), ("best", best)):
        rep = cli("replay", source, wl, "-o", str(tmp_path / name), "--strict")
        assert rep.returncode == 0, rep.stderr
        assert "\r" not in rep.stdout and "default" not in rep.stdout.split("\n", 2)[2]
        kernels.append([open(tmp_path / name / f"{t['id']}.tnpu", "rb").read()
                        for t in TINY["tasks"]])
    assert kernels[0] == kernels[1]


def test_tune_and_replay_have_help_and_reject_bad_flags():
    for cmd in ("tune", "replay"):
        out = cli(cmd, "--help")
        assert out.returncode == 0 and "usage: tessera " + cmd in out.stdout
    assert cli("tune", "w.json", "--log", "x", "--trials", "0").returncode == 2
    assert cli("tune", "w.json", "--log", "x", "--tuner", "tpe").returncode == 2
    assert cli("replay", "log").returncode == 2


def test_a_cli_job_killed_at_seeded_moments_resumes_to_the_uninterrupted_log(tmp_path):
    import random
    import signal
    import time
    wl = write_json(tmp_path / "tiny.json", TINY)
    args = ["--trials", "9", "--batch-size", "3", "--workers", "2", "--seed", "4", "--quiet"]
    whole = str(tmp_path / "whole.jsonl")
    assert cli("tune", wl, "--log", whole, *args).returncode == 0
    expected = without_time(records(whole))
    assert len(expected) == 27

    log = str(tmp_path / "killed.jsonl")
    cut_short = 0
    for point in sorted(random.Random(2026).sample(range(1, 26), 3)):
        proc = subprocess.Popen([sys.executable, "-m", "tessera", "tune", wl, "--log", log, *args],
                                env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            if os.path.exists(log) and open(log, "rb").read().count(b"\n") >= point:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
        proc.wait()
        cut_short += (proc.returncode == -signal.SIGKILL and
                      open(log, "rb").read().count(b"\n") < 27)
    assert cut_short >= 1  # at least one job was killed halfway
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cli("tune", wl, "--log", log, *args)
    assert out.returncode == 0, out.stderr
    assert without_time(records(log)) == expected


def test_a_transfer_log_warm_starts_the_xgb_model_from_the_other_tasks(tmp_path):
    doc = json.loads(open(RESNET_TASKS).read())
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] == "l2_3x3"] + TINY["tasks"][:2]
    wl = at.load_workloads(write_json(tmp_path / "w.json", doc))
    results = at.tune_workloads(wl, trials=3, batch_size=3, tuner="xgb", seed=1,
                                transfer_log=COMMITTED_LOG, log=str(tmp_path / "t.jsonl"))
    # Groups of the same template only (features carry across shapes, not templates); a task's
    # own records are its history, not transfer: l2_3x3 gets the 9 other conv2d layers, the
    # tiny dense layer fc, the tiny conv2d all 10 conv2d layers.
    assert [r.transfer_groups for r in results] == [9, 1, 10]
    plain = at.tune_workloads(wl, trials=3, batch_size=3, tuner="random", seed=1,
                              transfer_log=COMMITTED_LOG)
    assert [r.transfer_groups for r in plain] == [0, 0, 0]


# --- rounds: the tasks of a job tuned together -------------------------------------------------

def by_task(recs):
    """{task key text: its records in log order}."""
    out = {}
    for r in recs:
        out.setdefault(json.dumps(r["task"], sort_keys=True), []).append(r)
    return out


def tune_alone(doc, tmp_path, **kw):
    """Each task of `doc` tuned by a job of its own (one-task workloads file): the reference of
    what the task's search gives, whatever other tasks a job tunes with it."""
    out = {}
    for t in doc["tasks"]:
        one = dict(doc, tasks=[t])
        log = str(tmp_path / f"alone_{t['id']}.jsonl")
        at.tune_workloads(write_json(tmp_path / f"alone_{t['id']}.json", one), log=log, **kw)
        out.update(by_task(without_time(records(log))))
    return out


def round_order(workloads, alone, batch):
    """The log a job writes, from each task's own records: round r holds, tasks in file order,
    each task's trials [r x batch, (r + 1) x batch) in trial order."""
    keys = [json.dumps(task.key, sort_keys=True) for _, task in workloads.tasks]
    rounds = max(len(recs) for recs in alone.values()) // batch + 1
    return [r for n in range(rounds) for k in keys for r in alone[k]
            if n * batch <= r["trial"] < (n + 1) * batch]


def job_rounds(workloads, alone, recs, batch):
    """Checks that `recs` (a job's log) is written round by round: each round holds, tasks in
    file order, one batch (at most `batch` trials, the next ones of the task's own records) of
    every task not finished yet. A batch may be short: a wrapped tuner's proposal of the default
    (trial 0) is left out of its batch (default_first_tuner.h). Returns the batch sizes per task."""
    keys = [json.dumps(task.key, sort_keys=True) for _, task in workloads.tasks]
    task_of = [json.dumps(r["task"], sort_keys=True) for r in recs]
    pos = {k: 0 for k in keys}
    sizes = {k: [] for k in keys}
    i = 0
    while any(pos[k] < len(alone[k]) for k in keys):
        for k in [k for k in keys if pos[k] < len(alone[k])]:
            n = 0  # this task's batch: its next records, at most `batch`
            while i + n < len(recs) and task_of[i + n] == k and n < batch:
                n += 1
            assert n >= 1, (i, k)
            assert recs[i:i + n] == alone[k][pos[k]:pos[k] + n]
            pos[k] += n
            sizes[k].append(n)
            i += n
    assert i == len(recs)
    return sizes


def test_a_job_writes_its_tasks_round_by_round_and_each_task_as_if_tuned_alone(tmp_path):
    kw = dict(trials=7, batch_size=3, tuner="xgb", seed=5)
    alone = tune_alone(TINY, tmp_path, **kw)
    log = str(tmp_path / "job.jsonl")
    progress = []
    wl = at.load_workloads(write_json(tmp_path / "w.json", TINY))
    results = at.tune_workloads(wl, log=log,
                                progress=lambda p: progress.append(
                                    (p.task, p.tune.trials, p.finished)), **kw)
    recs = without_time(records(log))
    assert by_task(recs) == alone
    sizes = job_rounds(wl, alone, recs, 3)
    for r in results:
        assert [t.index for t in r.report.trials] == list(range(7))
    # Every task announced before the first round, then each round's batches in file order.
    keys = [json.dumps(task.key, sort_keys=True) for _, task in wl.tasks]
    want = [(i, 0, False) for i in range(3)]
    done = [0, 0, 0]
    for n in range(max(len(s) for s in sizes.values())):
        for i, k in enumerate(keys):
            if n < len(sizes[k]):
                done[i] += sizes[k][n]
                want.append((i, done[i], done[i] == 7))
    assert progress == want


class Reversed(at.Executor):
    """A Python executor measuring a round's batches last one first (measure_many), counting
    its calls: the log must not depend on the order an executor measures in."""

    def __init__(self):
        at.Executor.__init__(self)
        self.pool = at.LocalExecutor(at.measure_npu, workers=2)
        self.calls = []

    def measure(self, batch):
        raise AssertionError("a job measures a round with measure_many")

    def measure_many(self, batches):
        self.calls.append(len(batches))
        return list(reversed(self.pool.measure_many(list(reversed(batches)))))


class OneByOne(at.Executor):
    """A Python executor with measure() only: measure_many's default measures batch by batch."""

    def __init__(self):
        at.Executor.__init__(self)
        self.pool = at.LocalExecutor(at.measure_npu, workers=1)
        self.calls = 0

    def measure(self, batch):
        self.calls += 1
        return self.pool.measure(batch.task, batch.configs, batch.target)


def test_a_job_writes_the_same_log_on_every_executor(tmp_path):
    wl = write_json(tmp_path / "w.json", TINY)
    kw = dict(trials=8, batch_size=3, tuner="xgb", seed=9)
    logs, ex = {}, {}
    for name, e in (("local-1", None), ("local-2", at.LocalExecutor(at.measure_npu, workers=2)),
                    ("reversed", Reversed()), ("one-by-one", OneByOne())):
        logs[name], ex[name] = str(tmp_path / f"{name}.jsonl"), e
        at.tune_workloads(wl, log=logs[name], executor=e, workers=1, **kw)
    # A round is one call for the batches of every task still tuning (the batches: measure()
    # calls of the default measure_many); a task whose tuner runs short of configs takes
    # more rounds than the others.
    calls = ex["reversed"].calls
    assert calls[0] == 3 and calls == sorted(calls, reverse=True)
    assert sum(calls) == ex["one-by-one"].calls and len(calls) < ex["one-by-one"].calls
    want = without_time(records(logs["local-1"]))
    assert len(want) == 24
    for name, log in logs.items():
        assert without_time(records(log)) == want, name


def test_the_local_pool_measures_several_batches_in_one_call_as_each_alone():
    tasks = [at.NpuTask(t["template"], t["args"]) for t in TINY["tasks"]]
    batches = [at.MeasureBatch(t.tuning, [t.config(i) for i in range(0, 40, 7)
                                          if t.is_valid(t.config(i))], t.target) for t in tasks]
    pool = at.LocalExecutor(at.measure_npu, workers=2)
    many = pool.measure_many(batches)
    assert [len(m) for m in many] == [len(b.configs) for b in batches]
    for b, got in zip(batches, many):
        alone = at.LocalExecutor(at.measure_npu).measure(b.task, b.configs, b.target)
        assert [r.to_dict() for r in got] == [r.to_dict() for r in alone]
    assert pool.measure_many([]) == []


def test_early_stopping_stops_one_task_while_the_others_go_on(tmp_path):
    # Three layers where this search improves on the default at different times (the TINY
    # tasks' defaults are their best: every search would stop at once).
    doc = json.loads(open(RESNET_TASKS).read())
    doc["tasks"] = [t for t in doc["tasks"] if t["id"] in ("l2_1x1_s2", "l4_1x1_s2", "fc")]
    kw = dict(trials=15, batch_size=3, tuner="xgb", seed=3, workers=2)
    # No early stopping: the searches run to the end; each task's batch ends (a batch may be
    # short: job_rounds) from its progress.
    ends_in_order = []
    for t in doc["tasks"]:
        e = []
        at.tune_workloads(write_json(tmp_path / f"ends_{t['id']}.json", dict(doc, tasks=[t])),
                          progress=lambda p, e=e: p.tune.trials and e.append(p.tune.trials),
                          **kw)
        ends_in_order.append(e)
    alone = tune_alone(doc, tmp_path, **kw)  # its keys in file order
    ends = dict(zip(alone, ends_in_order))
    patience = 6

    def stop(recs):
        """(trials done when the task stops, whether early stopping stopped it): the first batch
        end with `patience` trials since the best last improved (tune.h; checked at the
        budget's end too), from the records alone."""
        best, improved = None, 0
        k = json.dumps(recs[0]["task"], sort_keys=True)
        start = 0
        for end in ends[k]:
            batch, start = recs[start:end], end
            for r in batch:
                c = r["result"].get("cycles") if r["result"]["status"] == "ok" else None
                if c is not None and (best is None or c < best):
                    best, improved = c, r["trial"] + 1
            if end - improved >= patience:
                return end, True
        return 15, False

    stops = {k: stop(v)[0] for k, v in alone.items()}
    stopped = {k: stop(v)[1] for k, v in alone.items()}
    # the case under test: one task stops while another goes on
    assert min(stops.values()) < 15 and min(stops.values()) < max(stops.values()), stops
    log = str(tmp_path / "es.jsonl")
    wl = at.load_workloads(write_json(tmp_path / "w.json", doc))
    results = at.tune_workloads(wl, log=log, early_stopping=patience, **kw)
    cut = {k: [r for r in v if r["trial"] < stops[k]] for k, v in alone.items()}
    job_rounds(wl, cut, without_time(records(log)), 3)
    for r in results:
        k = json.dumps(json.loads(r.key), sort_keys=True)
        assert len(r.report.trials) == stops[k]
        assert r.report.early_stopped == stopped[k]


def test_a_job_log_cut_at_any_byte_resumes_to_the_uninterrupted_log(tmp_path):
    """What a kill leaves is a prefix of the log (appends are sequential), cut anywhere: in a
    record, between two tasks of a round, between rounds."""
    import random
    wl = write_json(tmp_path / "w.json", TINY)
    kw = dict(trials=7, batch_size=3, tuner="xgb", seed=4)
    whole = str(tmp_path / "whole.jsonl")
    at.tune_workloads(wl, log=whole, **kw)
    data = open(whole, "rb").read()
    lines = data.count(b"\n")
    for cut in sorted(random.Random(12).sample(range(len(data)), 6)) + [0]:
        log = tmp_path / f"cut{cut}.jsonl"
        log.write_bytes(data[:cut])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the cut line
            results = at.tune_workloads(wl, log=str(log), **kw)
        assert without_time(records(log)) == without_time(records(whole)), cut
        assert sum(r.report.resumed for r in results) == data[:cut].count(b"\n")
        assert sum(r.report.measured for r in results) == lines - data[:cut].count(b"\n")


def test_a_job_killed_mid_round_at_seeded_moments_resumes_to_the_uninterrupted_log(tmp_path):
    """The job's process is killed (SIGKILL) while it measures a round (each measurement slowed
    down, so that rounds last), at seeded moments, and run again; the last run completes it."""
    import random
    import signal
    import time
    wl = write_json(tmp_path / "w.json", TINY)
    trials, batch, seed = 9, 3, 6
    whole = str(tmp_path / "whole.jsonl")
    at.tune_workloads(wl, trials=trials, batch_size=batch, tuner="xgb", seed=seed, log=whole)
    expected = without_time(records(whole))
    assert len(expected) == 27

    script = os.path.join(HERE, "tuning_job_rounds.py")
    log, marker = str(tmp_path / "killed.jsonl"), str(tmp_path / "measuring")
    cmd = [sys.executable, script, wl, log, str(trials), str(batch), str(seed), "2", "0.05",
           marker]
    # Rounds of 9 measurements of >= 50 ms on 2 workers: >= 0.25 s each, 3 rounds.
    mid_round = 0
    for delay in random.Random(2026).sample([0.05, 0.15, 0.3, 0.4, 0.55, 0.7], 3):
        before = len(records(log)) if os.path.exists(log) else 0
        if os.path.exists(marker):
            os.remove(marker)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not os.path.exists(marker) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)  # seeded: after this run's first measurement started
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        after = len(records(log)) if os.path.exists(log) else 0
        # Killed while measuring: its round's batches are not (all) in the log yet.
        mid_round += proc.returncode == -signal.SIGKILL and after < 27 and after % 9 == 0
        assert after >= before
    assert mid_round >= 1
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert without_time(records(log)) == expected


def test_the_job_progress_bar_draws_one_bar_for_the_tasks_tuned_together(tmp_path):
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    at.tune_workloads(write_json(tmp_path / "w.json", TINY), trials=5, batch_size=3,
                      progress=True, stream=stream)
    text = stream.getvalue()
    assert "3 task(s)" in text and "15/15" in text and "finished=3/3" in text
    # A line per finished task, above the bar, in the order they finished (a task whose batch
    # was short, its tuner having proposed the default again, finishes a round later).
    done = [line.split("\r")[-1] for line in text.split("\n") if " trials, best " in line]
    assert sorted(d.split(":")[0] for d in done) == ["[1/3] tiny_fc", "[2/3] tiny_conv",
                                                     "[3/3] tiny_add"]
    assert all("5/5 trials" in d for d in done)
