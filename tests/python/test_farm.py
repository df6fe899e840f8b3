"""The build farm (tessera.autotune.farm): tuning measured on a Ray cluster gives the local
runner's log, whatever dies on the way. Run by scripts/farm_test.sh, which starts a cluster of
this machine on loopback (a head and two one-CPU worker nodes) and passes its address in
TESSERA_FARM_ADDRESS; without it the cluster tests are skipped (the others run everywhere).

Logs are compared record by record, timestamps aside; the reference is the local thread pool
with the same tuner and seed."""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest

from tessera import autotune as at
from tessera.autotune import farm

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import farm_faults  # noqa: E402
from farm_job import ARGS  # noqa: E402

ADDRESS = os.environ.get("TESSERA_FARM_ADDRESS")
needs_cluster = pytest.mark.skipif(not ADDRESS, reason="needs the Ray cluster of "
                                   "scripts/farm_test.sh (TESSERA_FARM_ADDRESS)")
TRIALS, BATCH, SEED = 24, 8, 7


def task():
    return at.NpuTask("conv2d", ARGS)


def records(path):
    out = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            r.pop("timestamp")
            out.append(r)
    return out


def tune(executor, log, trials=TRIALS, seed=SEED, tuner="xgb"):
    t = task()
    return at.tune(t.tuning, at.make_tuner(tuner, t.tuning, seed=seed), executor,
                   target=t.target, trials=trials, batch_size=BATCH, log=str(log))


@pytest.fixture(scope="module")
def local_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("local") / "local.jsonl"
    tune(at.LocalExecutor(at.measure_npu, workers=2), log)
    recs = records(log)
    assert [r["trial"] for r in recs] == list(range(TRIALS))
    assert sum(r["result"]["status"] == "ok" for r in recs) >= TRIALS // 2
    return recs


@pytest.fixture(scope="module")
def cluster():
    farm_faults.ship_by_value()
    ray = farm.connect(ADDRESS)
    yield ray
    ray.shutdown()


def seeded_trial(recs, salt):
    """A trial that ran (so its measurement reaches the fault), chosen by a fixed seed."""
    ok = [r for r in recs if r["result"]["status"] == "ok" and "duplicate_of" not in r["result"]]
    return random.Random(f"{SEED}-{salt}").choice(ok[BATCH:])  # not in the first batch


def config_text(record):
    return json.dumps(record["config"], sort_keys=True, separators=(",", ":"))


# --- without a cluster ---------------------------------------------------------------------

def test_an_unreachable_address_fails_fast_naming_it():
    t0 = time.monotonic()
    with pytest.raises(farm.FarmError, match=r"cannot reach the Ray cluster at 127\.0\.0\.1:9"):
        farm.RayExecutor("127.0.0.1:9")
    assert time.monotonic() - t0 < 10


def test_an_address_without_a_port_is_rejected_saying_what_is_legal():
    with pytest.raises(farm.FarmError, match="'headnode' is not HOST:PORT"):
        farm.connect("headnode")


def test_an_unknown_engine_is_rejected_listing_the_engines():
    with pytest.raises(farm.FarmError, match="no executor engine 'mpi'; the engines: local, ray"):
        farm.make_executor("mpi")


def test_a_key_of_no_template_is_an_error_naming_it_and_the_templates():
    target = task().target.to_json()
    with pytest.raises(at.ConfigError, match="no NPU template named 'convolution'.*conv2d"):
        farm.task_from_key('{"args":{},"template":"convolution"}', target)
    t = farm.task_from_key(task().key_text, target)
    assert t.key_text == task().key_text and t.space.size == task().space_size


def test_chunks_go_largest_first_and_end_with_single_measurements():
    # Each a quarter of what is left on two CPUs (rounded up), at most `largest`.
    assert farm.chunk_sizes(32, 2) == [8, 6, 5, 4, 3, 2, 1, 1, 1, 1]
    assert farm.chunk_sizes(8, 2) == [2, 2, 1, 1, 1, 1]
    assert farm.chunk_sizes(8, 1) == [4, 2, 1, 1]
    assert farm.chunk_sizes(100, 2) == [24, 19, 15, 11, 8, 6, 5, 3, 3, 2, 1, 1, 1, 1]
    assert farm.chunk_sizes(100, 2, largest=16) == [16, 16, 16, 13, 10, 8, 6, 4, 3, 2, 2, 1, 1,
                                                    1, 1]
    assert farm.chunk_sizes(1, 8) == [1] and farm.chunk_sizes(0, 2) == []
    # A chunk size asked for: chunks of it, the last one shorter, never above `largest`.
    assert farm.chunk_sizes(8, 2, chunk_size=3) == [3, 3, 2]
    assert farm.chunk_sizes(8, 2, chunk_size=5, largest=4) == [4, 4]
    assert farm.chunk_sizes(3, 2, chunk_size=1) == [1, 1, 1]


def test_a_chunk_size_below_one_is_rejected_saying_what_is_legal():
    with pytest.raises(farm.FarmError, match="chunk_size must be at least 1.*not 0"):
        farm.RayExecutor("127.0.0.1:9", chunk_size=0)
    with pytest.raises(farm.FarmError, match="chunks of 0 at most 24"):
        farm.chunk_sizes(8, 2, chunk_size=0)


def test_the_cli_arguments_make_the_local_pool_or_ask_for_ray():
    import argparse
    p = farm.add_executor_arguments(argparse.ArgumentParser())
    p.add_argument("--workers", type=int, default=1)
    a = p.parse_args(["--workers", "2", "--timeout", "3"])
    ex = farm.make_executor_from_args(a)
    assert isinstance(ex, at.LocalExecutor) and ex.workers == 2
    a = p.parse_args(["--ray", "127.0.0.1:9"])
    assert a.ray == "127.0.0.1:9" and a.timeout == 0.0 and a.chunk_size is None
    assert p.parse_args(["--ray", "auto", "--chunk-size", "4"]).chunk_size == 4
    with pytest.raises(farm.FarmError, match="127.0.0.1:9"):
        farm.make_executor_from_args(a)
    # A command with its own --timeout keeps it.
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=float, default=5.0)
    a = farm.add_executor_arguments(p, timeout=False).parse_args(["--ray", "auto"])
    assert a.ray == "auto" and a.timeout == 5.0


# --- on the cluster ------------------------------------------------------------------------

@needs_cluster
@pytest.mark.parametrize("chunk_size", [None, 3])
def test_the_same_seed_on_the_cluster_gives_the_local_runners_log(cluster, local_log, tmp_path,
                                                                 chunk_size):
    ex = farm.RayExecutor(ADDRESS, chunk_size=chunk_size)
    assert ex.cpus == 2
    tune(ex, tmp_path / "ray.jsonl")
    assert records(tmp_path / "ray.jsonl") == local_log
    assert ex.killed == 0 and ex.split == 0 and ex.batches == TRIALS // BATCH
    # Each batch of 8 went as chunks: 2, 2, 1, 1, 1, 1 (sized from the batch), or 3, 3, 2.
    assert ex.ray_tasks == TRIALS // BATCH * (6 if chunk_size is None else 3)


@needs_cluster
def test_the_cli_tune_with_ray_writes_the_local_jobs_log(tmp_path):
    """`tessera tune --ray ADDRESS` (a job over a workloads file, the default config as trial 0)
    gives the log of the same command on the local thread pool."""
    wl = tmp_path / "wl.json"
    wl.write_text(json.dumps({"version": 1, "name": "farm", "tasks": [
        {"id": "small_conv", "template": "conv2d", "args": ARGS},
        {"id": "small_fc", "template": "dense",
         "args": dict(M=8, K=32, N=40, multiplier=1 << 14, shift=22)}]}))
    logs = {}
    for name, extra in (("local", ["--workers", "2"]),
                        ("ray", ["--ray", ADDRESS, "--chunk-size", "3"])):
        logs[name] = tmp_path / f"{name}.jsonl"
        out = subprocess.run([sys.executable, "-m", "tessera", "tune", str(wl), "--log",
                              str(logs[name]), "--trials", "10", "--batch-size", "4", "--seed",
                              "3", "--quiet"] + extra, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        assert "2 task(s) tuned with xgb (seed 3)" in out.stdout
    local = records(logs["local"])
    assert len(local) == 20 and records(logs["ray"]) == local


JOB = {"version": 1, "name": "farm-rounds", "tasks": [
    {"id": "small_conv", "template": "conv2d", "args": ARGS},
    {"id": "small_fc", "template": "dense",
     "args": dict(M=8, K=32, N=40, multiplier=1 << 14, shift=22)},
    {"id": "small_add", "template": "add", "args": dict(C=16, H=4, W=4)}]}


@needs_cluster
@pytest.mark.parametrize("chunk_size", [None, 2])
def test_a_multi_task_job_on_the_cluster_gives_the_local_log_a_round_per_call(
        cluster, tmp_path, chunk_size):
    """A job's round (a batch of each task) goes to Ray as one pool of configs: its chunks may
    hold configs of several tasks, and the log is the local pool's, record for record."""
    wl = tmp_path / "wl.json"
    wl.write_text(json.dumps(JOB))
    kw = dict(trials=10, batch_size=4, tuner="xgb", seed=3)
    at.tune_workloads(str(wl), log=str(tmp_path / "local.jsonl"), workers=1, **kw)
    ex = farm.RayExecutor(ADDRESS, chunk_size=chunk_size)
    at.tune_workloads(str(wl), log=str(tmp_path / "ray.jsonl"), executor=ex, **kw)
    local = records(tmp_path / "local.jsonl")
    assert len(local) == 30 and records(tmp_path / "ray.jsonl") == local
    # Three rounds of the three tasks' batches (up to 4 trials each; a batch can be one short
    # when the tuner proposes the default again, default_first_tuner.h): three calls for nine
    # batches, every trial pooled once.
    assert ex.rounds == 3 and ex.batches == 9 and ex.killed == 0 and ex.split == 0
    assert len(ex.round_sizes) == 3 and sum(ex.round_sizes) == 30
    # Each round is cut into chunks as one pool (chunk_sizes, tested on its own above: test_
    # chunks_go_largest_first_and_end_with_single_measurements), not one set of chunks per batch: a round of 12 configs on 2 CPUs is
    # 3, 3, 2, 1, 1, 1, 1 (or 2 x 6), where its three batches of 4 alone would be 3 x (1, 1, 1, 1)
    # (or 3 x (2, 2)).
    want = sum(len(farm.chunk_sizes(n, 2, chunk_size)) for n in ex.round_sizes)
    assert ex.ray_tasks == want
    if chunk_size is None:
        assert want < sum(len(farm.chunk_sizes(b, 2)) for b in (4, 4, 4, 4, 4, 4, 2, 2, 2))
    assert sorted(ex._seconds) == sorted(
        at.NpuTask(t["template"], t["args"]).key_text for t in JOB["tasks"])


@needs_cluster
def test_a_process_on_one_cluster_cannot_ask_for_another(cluster):
    with pytest.raises(farm.FarmError, match="connected to the Ray cluster at .*cannot also "
                       "measure on 127.0.0.1:9"):
        farm.RayExecutor("127.0.0.1:9")


@needs_cluster
def test_back_pressure_keeps_the_log_with_one_measurement_in_flight(cluster, local_log, tmp_path):
    ex = farm.RayExecutor(ADDRESS, max_in_flight=1)
    tune(ex, tmp_path / "ray.jsonl", trials=BATCH)
    assert records(tmp_path / "ray.jsonl") == local_log[:BATCH]
    assert ex.ray_tasks == BATCH  # no chunk holds more than may be in flight


CHUNK = 4  # the fault tests' chunks: trials 0-3 and 4-7 of each batch


def mid_chunk(recs, salt, first_batch=False, chunk=CHUNK):
    """A seeded trial that ran, not last in its chunk (of `chunk`; nor first if more than two),
    whose kernel no other trial has (so a fault in it changes no other record)."""
    copied = {r["result"].get("duplicate_of") for r in recs}
    where = range(1 if chunk > 2 else 0, chunk - 1)
    ok = [r for r in (recs[:BATCH] if first_batch else recs[BATCH:])
          if r["result"]["status"] == "ok" and "duplicate_of" not in r["result"]
          and r["trial"] not in copied and r["trial"] % chunk in where]
    return random.Random(f"{SEED}-{salt}").choice(ok)


@needs_cluster
def test_a_worker_killed_mid_chunk_is_retried_and_the_log_is_unchanged(cluster, local_log,
                                                                      tmp_path):
    victim = mid_chunk(local_log, "worker")
    marker, journal = tmp_path / "killed", tmp_path / "measured"
    ex = farm.RayExecutor(ADDRESS, chunk_size=CHUNK, measurement=farm_faults.KillWorker(
        config_text(victim), str(marker), str(journal)))
    tune(ex, tmp_path / "ray.jsonl")
    assert marker.exists(), "the fault never happened"
    assert records(tmp_path / "ray.jsonl") == local_log
    # The chunk ran again from its start: what its worker had measured before it died was
    # measured twice, yet recorded once (the log above); everything else was measured once.
    measured = open(journal).read().splitlines()
    first = victim["trial"] - victim["trial"] % CHUNK
    again = {config_text(r) for r in local_log[first:victim["trial"]]}
    assert len(measured) == TRIALS + len(again)
    for r in local_log:
        assert measured.count(config_text(r)) == (2 if config_text(r) in again else 1), r
    assert ex.split == 0 and ex.ray_tasks == TRIALS // CHUNK


@needs_cluster
def test_a_config_that_kills_every_worker_is_an_internal_error_and_its_chunk_is_measured(
        cluster, local_log, tmp_path):
    """Ray gives the chunk up after its retries; its configs go again one per task, so only the
    config at fault is recorded as failed."""
    victim = mid_chunk(local_log, "always", first_batch=True)
    ex = farm.RayExecutor(ADDRESS, chunk_size=CHUNK, max_retries=1, measurement=(
        farm_faults.KillWorkerAlways(config_text(victim), str(tmp_path / "m"))))
    t, errors = task(), []
    at.tune(t.tuning, at.make_tuner("xgb", t.tuning, seed=SEED), ex, target=t.target,
            trials=BATCH, batch_size=BATCH, log=str(tmp_path / "ray.jsonl"),
            on_internal_error=errors.append)
    got = records(tmp_path / "ray.jsonl")
    assert [e.index for e in errors] == [victim["trial"]]
    bad = got[victim["trial"]]["result"]
    assert bad["status"] == "internal_error" and "died 2 time(s)" in bad["message"], bad
    assert [r for r in got if r["trial"] != victim["trial"]] == \
        [r for r in local_log[:BATCH] if r["trial"] != victim["trial"]]
    assert ex.split == 1 and ex.ray_tasks == BATCH // CHUNK + CHUNK


@needs_cluster
def test_a_measurement_that_hangs_in_a_chunk_is_a_timeout_and_the_rest_is_measured(
        cluster, local_log, tmp_path):
    trials = BATCH  # one batch: its wall time bounds the hung measurement's
    victim = mid_chunk(local_log, "hang", first_batch=True)
    # A limit well above a measurement of this task even on a loaded machine (0.05 s idle).
    for fault, message in ((farm_faults.HangPolling, "exceeded its time limit of 3 s$"),
                           (farm_faults.Hang, "did not stop within 1 s of its cancellation; it was "
                                             "abandoned$")):
        ex = farm.RayExecutor(ADDRESS, timeout=3.0, abandon_grace=1.0, chunk_size=CHUNK,
                              measurement=fault(config_text(victim), str(tmp_path / "m")))
        log = tmp_path / f"{fault.__name__}.jsonl"
        t0 = time.monotonic()
        tune(ex, log, trials=trials)
        wall = time.monotonic() - t0
        got = records(log)
        hung = got[victim["trial"]]
        assert hung["result"]["status"] == "timeout", hung
        assert hung["result"]["message"].startswith("measurement exceeded its time limit of 3 s")
        assert re.search(message, hung["result"]["message"])
        # Every other trial as the local runner had it (a duplicate of the hung one aside),
        # those after it in its chunk included.
        for r, want in zip(got, local_log[:trials]):
            if r["trial"] != victim["trial"] and r["result"].get("duplicate_of") != victim["trial"]:
                assert r == want
        # The limit and its grace, plus a worker's start when one was stopped.
        assert wall < 3.0 + 1.0 + 6.0, wall
        # The workers stopped the measurement themselves, inside the chunk.
        assert ex.killed == 0 and ex.split == 0 and ex.ray_tasks == trials // CHUNK


@needs_cluster
def test_a_worker_that_cannot_answer_is_stopped_and_only_its_stuck_measurement_is_lost(
        cluster, local_log, tmp_path):
    """The measurement holds the GIL for ever: its worker cannot even report the overrun. The
    driver stops it after the chunk's limits, graces and `unresponsive_seconds`, then measures
    the chunk again one config per task: the stuck one is a timeout, the others are measured."""
    chunk = 2  # the chunk's limit is the sum of its measurements'
    victim = mid_chunk(local_log, "gil", first_batch=True, chunk=chunk)
    # Limits well above a measurement of this task even on a loaded machine (0.05 s idle), and
    # above a worker's start (the stopped worker is replaced while the driver counts).
    limit, grace, unresponsive = 3.0, 0.5, 10.0
    ex = farm.RayExecutor(ADDRESS, timeout=limit, abandon_grace=grace, chunk_size=chunk,
                          unresponsive_seconds=unresponsive, measurement=farm_faults.HoldGil(
                              config_text(victim), str(tmp_path / "m")))
    t0 = time.monotonic()
    tune(ex, tmp_path / "ray.jsonl", trials=BATCH)
    wall = time.monotonic() - t0
    got = records(tmp_path / "ray.jsonl")
    stuck = got[victim["trial"]]["result"]
    assert stuck["status"] == "timeout" and "did not answer 10.5 s after it" in \
        stuck["message"], stuck
    for r, want in zip(got, local_log[:BATCH]):
        if r["trial"] != victim["trial"] and r["result"].get("duplicate_of") != victim["trial"]:
            assert r == want
    # The chunk, then the stuck config alone, were stopped by force.
    assert ex.killed == 2 and ex.split == 1 and ex.ray_tasks == BATCH // chunk + chunk
    chunk_wait = chunk * (limit + grace) + unresponsive
    assert wall < chunk_wait + limit + grace + unresponsive + 15, wall


@needs_cluster
def test_the_driver_killed_mid_job_resumes_to_the_same_log(cluster, local_log, tmp_path):
    log = tmp_path / "job.jsonl"
    cmd = [sys.executable, os.path.join(HERE, "farm_job.py"), str(log), ADDRESS, str(TRIALS),
           str(BATCH), str(SEED), "0.1"]
    kill_after = random.Random(f"{SEED}-driver").choice([BATCH, 2 * BATCH])  # lines in the log
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if log.exists() and sum(1 for _ in open(log)) >= kill_after:
            break
        time.sleep(0.05)
    assert p.poll() is None, "the job ended before it could be killed: " + p.stdout.read()
    p.send_signal(signal.SIGKILL)
    p.wait()
    done = len(records(log))
    assert kill_after <= done < TRIALS
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed {done}" in out.stdout
    assert records(log) == local_log


@needs_cluster
def test_a_worker_node_lost_mid_job_leaves_the_log_unchanged(cluster, local_log, tmp_path):
    """Last: it removes a node, then starts it again for whatever runs after."""
    victim = seeded_trial(local_log, "node")
    marker = tmp_path / "raylet"
    ex = farm.RayExecutor(ADDRESS, measurement=farm_faults.KillNode(config_text(victim),
                                                                    str(marker)))
    try:
        tune(ex, tmp_path / "ray.jsonl")
        assert marker.exists(), "the fault never happened"
        assert records(tmp_path / "ray.jsonl") == local_log
        assert _alive_worker_nodes(cluster, want=1) == 1, "a worker node should have gone"
    finally:
        _restart_lost_nodes(cluster)


def _alive_worker_nodes(ray, want, seconds=30):
    """The number of alive worker nodes, once it is `want` (or after `seconds`)."""
    deadline = time.monotonic() + seconds
    while True:
        n = sum(1 for x in ray.nodes() if x["Alive"] and x["Resources"].get("CPU"))
        if n == want or time.monotonic() > deadline:
            return n
        time.sleep(0.5)


def _restart_lost_nodes(ray):
    nodes = os.environ.get("TESSERA_FARM_NODES", "").split()
    _alive_worker_nodes(ray, want=len(nodes) - 1)
    alive = {x["NodeManagerAddress"] for x in ray.nodes() if x["Alive"]}
    for ip in nodes:
        if ip in alive:
            continue
        subprocess.run([os.path.join(os.path.dirname(sys.executable), "ray"), "start",
                        f"--address={ADDRESS}", f"--node-ip-address={ip}", "--num-cpus=1",
                        "--disable-usage-stats", "--object-store-memory=80000000",
                        f"--temp-dir={os.environ['TESSERA_FARM_TEMP']}"],
                       check=True, capture_output=True, timeout=120)
    assert _alive_worker_nodes(ray, want=len(nodes)) == len(nodes)
