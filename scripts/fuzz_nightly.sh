#!/usr/bin/env bash
# The nightly-size fuzz runs of issue 7, with seeds CI does not use (CI runs the same fuzzers at a
# size that keeps ./scripts/test.sh fast). One run after another, never in parallel:
#   cpu        10,000 random CPU schedules over every core operator (batch_matmul_int included),
#              each built with the default flags and checked against numpy; every integer
#              schedule also built with clang                       TESSERA_NIGHTLY_CPU (10000)
#   npu        10,000 random NPU schedules of dense and conv2d, simulated and checked bit for bit
#                                                                   TESSERA_NIGHTLY_NPU (10000)
#   kernel     20,000 mutated kernel files (checksum re-fixed), loaded, disassembled, simulated
#                                                              TESSERA_NIGHTLY_KERNELS (20000)
#   libfuzzer  scripts/fuzz.sh under ASan + UBSan: kernel files 600 s, CPU libraries and target
#              descriptions 300 s each                          TESSERA_NIGHTLY_FUZZ_SECONDS (600)
# Usage: scripts/fuzz_nightly.sh [cpu] [npu] [kernel] [libfuzzer]   (no argument: all four)
# Each run's full output goes to build/nightly/<run>.log; this prints the command, the report
# (schedules built and rejected by reason, verdicts, libFuzzer's stats) and the wall time, and
# exits non-zero if any run fails (a wrong result, a crash, a hang, an unclear error).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
logs="$root/build/nightly"
mkdir -p "$logs"
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(cpu npu kernel libfuzzer)
failed=0

run() {  # name, then the command (env assignments first)
  local name=$1
  shift
  echo "== $name: $*"
  local start=$SECONDS
  if env PYTHONPATH="$root/python" "$@" >"$logs/$name.log" 2>&1; then
    local verdict=passed
  else
    local verdict=FAILED
    failed=1
  fi
  grep -E "^(schedule fuzzer|NPU schedule fuzzer|kernel-file mutations|  |    |fuzz:|stat::)" \
    "$logs/$name.log" || true
  [ "$verdict" = FAILED ] && tail -n 40 "$logs/$name.log"
  echo "== $name: $verdict in $((SECONDS - start)) s (log: $logs/$name.log)"
}

for r in "${runs[@]}"; do
  case $r in
    cpu)
      run cpu TESSERA_FUZZ_SCHEDULES="${TESSERA_NIGHTLY_CPU:-10000}" TESSERA_FUZZ_SEED=7 \
        TESSERA_FUZZ_CLANG_EVERY=1 .venv/bin/python -m pytest -q -s -p no:cacheprovider \
        tests/python/test_schedule_fuzzer.py ;;
    npu)
      run npu TESSERA_NPU_FUZZ_CASES="${TESSERA_NIGHTLY_NPU:-10000}" TESSERA_NPU_FUZZ_SEED=777 \
        .venv/bin/python -m pytest -q -s -p no:cacheprovider tests/python/test_npu_schedule_fuzzer.py ;;
    kernel)
      run kernel TESSERA_KERNEL_MUTATIONS="${TESSERA_NIGHTLY_KERNELS:-20000}" \
        TESSERA_KERNEL_MUTATION_SEED=5 .venv/bin/python -m pytest -q -s -p no:cacheprovider \
        tests/python/test_kernel_file_mutation.py ;;
    libfuzzer)
      run libfuzzer TESSERA_FUZZ_SECONDS="${TESSERA_NIGHTLY_FUZZ_SECONDS:-600}" \
        "$root/scripts/fuzz.sh" ;;
    *)
      echo "fuzz_nightly.sh: unknown run '$r'; the runs are cpu, npu, kernel, libfuzzer" >&2
      exit 2 ;;
  esac
done
exit $failed
