"""Random tilings and placements of dense and conv2d on the NPU: each builds and matches the int64
numpy reference bit for bit in the simulator, or is rejected with a clear ScheduleError/LowerError
before simulation. Zero wrong results, crashes, internal or simulation errors."""
import os

from npu_schedule_fuzzer import Fuzzer

COUNT = int(os.environ.get("TESSERA_NPU_FUZZ_CASES", "500"))
SEED = int(os.environ.get("TESSERA_NPU_FUZZ_SEED", "20261201"))


def test_random_npu_schedules_are_bit_exact_or_rejected_before_simulation(capsys):
    fz = Fuzzer(SEED)
    for i in range(COUNT):
        fz.one(i)
    with capsys.disabled():
        print("\n" + fz.report())
    assert fz.built + sum(fz.rejected.values()) == COUNT
    # The generator must mostly produce legal schedules of both operators, or it tests nothing.
    assert fz.built >= COUNT // 2
    assert min(fz.built_by_op["dense"], fz.built_by_op["conv2d"]) >= COUNT // 5
