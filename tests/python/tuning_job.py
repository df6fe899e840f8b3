"""A Python tuning job as its own process, for the kill -9 test:
    tuning_job.py LOG TUNER SEED TRIALS BATCH WORKERS SLEEP
tunes the analytic task of tuning_tasks.py and appends to LOG."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tessera import autotune as at  # noqa: E402
from tuning_tasks import analytic_task  # noqa: E402


def main(log, tuner, seed, trials, batch, workers, sleep):
    task, measure = analytic_task(sleep=float(sleep))
    report = at.tune(task, at.make_tuner(tuner, task, seed=int(seed)),
                     at.LocalExecutor(measure, workers=int(workers)), trials=int(trials),
                     batch_size=int(batch), log=log)
    print(f"measured {report.measured} resumed {report.resumed}")


if __name__ == "__main__":
    main(*sys.argv[1:])
