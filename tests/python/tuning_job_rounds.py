"""A tuning job (tune_workloads) as its own process, for the kill -9 test of its rounds:
    tuning_job_rounds.py WORKLOADS LOG TRIALS BATCH SEED WORKERS SLEEP MARKER
xgb on the local pool of WORKERS threads, each measurement SLEEP seconds slower, so that the job
spends its time in the middle of its rounds' measurements (where a kill then lands). MARKER is
created when the first measurement of this process starts."""
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from tessera import autotune as at  # noqa: E402


def main(workloads, log, trials, batch, seed, workers, sleep, marker):
    pause = float(sleep)

    def measure(inp, ctx):
        if not os.path.exists(marker):
            open(marker, "w").close()
        time.sleep(pause)
        return at.run_measurement(at.measure_npu, inp.task, inp.config, inp.target)

    warnings.simplefilter("ignore")  # a resumed log's cut line
    results = at.tune_workloads(workloads, trials=int(trials), batch_size=int(batch),
                                tuner="xgb", seed=int(seed), log=log,
                                executor=at.LocalExecutor(measure, workers=int(workers)))
    print(f"measured {sum(r.report.measured for r in results)} "
          f"resumed {sum(r.report.resumed for r in results)}")


if __name__ == "__main__":
    main(*sys.argv[1:])
