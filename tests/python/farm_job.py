"""A tuning job on the Ray cluster as its own process, for the test that kills the driver:
    farm_job.py LOG ADDRESS TRIALS BATCH SEED SLEEP
tunes the farm tests' small conv2d task with xgb, each measurement SLEEP seconds slower."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tessera import autotune as at  # noqa: E402
from tessera.autotune import farm  # noqa: E402
import farm_faults  # noqa: E402

ARGS = dict(C=20, H=9, W=8, K=40, R=3, S=3, stride=1, pad=1, multiplier=1 << 14, shift=22)


def main(log, address, trials, batch, seed, sleep):
    farm_faults.ship_by_value()
    task = at.NpuTask("conv2d", ARGS)
    ex = farm.RayExecutor(address, measurement=farm_faults.Slow(float(sleep)))
    report = at.tune(task.tuning, at.make_tuner("xgb", task.tuning, seed=int(seed)), ex,
                     target=task.target, trials=int(trials), batch_size=int(batch), log=log)
    print(f"measured {report.measured} resumed {report.resumed}")


if __name__ == "__main__":
    main(*sys.argv[1:])
