"""Random schedules over every core operator: each builds and matches numpy, or is rejected with
ScheduleError before code generation. Zero wrong results, crashes or internal errors."""
import os

from schedule_fuzzer import Fuzzer

COUNT = int(os.environ.get("TESSERA_FUZZ_SCHEDULES", "1000"))
SEED = int(os.environ.get("TESSERA_FUZZ_SEED", "20261130"))


def test_random_schedules_build_correctly_or_are_rejected(capsys):
    fz = Fuzzer(SEED)
    for i in range(COUNT):
        fz.one(i)
    with capsys.disabled():
        print("\n" + fz.report())
    assert fz.built + sum(fz.rejected.values()) == COUNT
    # The generator must mostly produce legal schedules, or it tests nothing.
    assert fz.built >= COUNT // 2
