"""Random schedules over every core operator: each builds and matches numpy, or is rejected with
ScheduleError before code generation. Zero wrong results, crashes or internal errors.

CI runs 1000 schedules with the seed below and builds every third integer schedule with clang
as well. The nightly-size run (not in CI) uses seeds CI does not use and clang on every integer
schedule, for example:

    TESSERA_FUZZ_SCHEDULES=10000 TESSERA_FUZZ_SEED=7 TESSERA_FUZZ_CLANG_EVERY=1 PYTHONPATH=python \\
        .venv/bin/python -m pytest -q -s tests/python/test_schedule_fuzzer.py

and prints the same report (built, rejected by reason, checked with clang); any wrong result
fails it with the schedule, the lowered program and the first difference.
"""
import os

from schedule_fuzzer import Fuzzer

COUNT = int(os.environ.get("TESSERA_FUZZ_SCHEDULES", "1000"))
SEED = int(os.environ.get("TESSERA_FUZZ_SEED", "20261130"))
CLANG_EVERY = int(os.environ.get("TESSERA_FUZZ_CLANG_EVERY", "3"))


def test_random_schedules_build_correctly_or_are_rejected(capsys):
    fz = Fuzzer(SEED, second_compiler_every=CLANG_EVERY)
    for i in range(COUNT):
        fz.one(i)
    with capsys.disabled():
        print("\n" + fz.report())
    assert fz.built + sum(fz.rejected.values()) == COUNT
    # The generator must mostly produce legal schedules, or it tests nothing; and it must build
    # the class that found GCC's miscompile.
    assert fz.built >= COUNT // 2
    assert fz.built_by_op["batch_matmul_int"] >= COUNT // 20
    # ... and the dtypes TVM users bring: uint32, uint64 and float16 (bit-exact references).
    for dtype in ("uint32", "uint64", "float16"):
        assert fz.built_by_dtype[dtype] >= COUNT // 200, fz.built_by_dtype


SYMBOLIC_COUNT = int(os.environ.get("TESSERA_FUZZ_SYMBOLIC_SCHEDULES", "40"))


def test_random_schedules_over_symbolic_shapes_match_numpy_at_several_sizes(capsys):
    """Schedules over te.var sizes: built once, each run at three random sizes (odd ones and
    sizes the split factors do not divide included) against numpy, or rejected."""
    fz = Fuzzer(SEED + 1)
    for i in range(SYMBOLIC_COUNT):
        fz.one_symbolic(i)
    with capsys.disabled():
        print("\n" + fz.report() + f"\n  symbolic calls checked: {fz.symbolic_runs}")
    assert fz.built + sum(fz.rejected.values()) == SYMBOLIC_COUNT
    assert fz.built >= SYMBOLIC_COUNT // 2
    assert fz.symbolic_runs == 3 * fz.built
