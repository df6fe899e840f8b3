#!/usr/bin/env bash
# Fuzzes the loaders: builds tests/fuzz with clang, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/, then runs each harness over a copy of its committed
# seed corpus (so the run never writes into the repository):
#   npu_kernel_fuzzer   kernel files, instruction decoder, simulator   TESSERA_FUZZ_SECONDS (60)
#   cpu_library_fuzzer  CPU module files (trailer, ELF, metadata)      half of that
#   npu_target_fuzzer   target descriptions (JSON)                     half of that
# Exits non-zero on any finding; the crashing input is kept in build-fuzz/findings/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${TESSERA_FUZZ_SECONDS:-60}
half=$(( (seconds + 1) / 2 ))
cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_BUILD_FUZZ=ON \
  -DTESSERA_BUILD_PYTHON=OFF -DTESSERA_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-fuzz" --target npu_kernel_fuzzer cpu_library_fuzzer npu_target_fuzzer \
  -j 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$root/build-fuzz/findings"

run() {  # name, corpus directory, seconds
  local name=$1 corpus=$2 secs=$3
  mkdir -p "$work/$name"
  cp "$corpus"/* "$work/$name/"
  echo "fuzz: $name for ${secs}s over $(ls "$work/$name" | wc -l) seed inputs"
  if ! "$root/build-fuzz/tests/fuzz/$name" -max_total_time="$secs" -timeout=10 \
      -artifact_prefix="$root/build-fuzz/findings/$name-" -print_final_stats=1 "$work/$name" \
      >"$work/$name.log" 2>&1; then
    tail -n 60 "$work/$name.log"
    echo "fuzz: $name FINDING; input saved in $root/build-fuzz/findings/" >&2
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|Done)" "$work/$name.log" || true
}

run npu_kernel_fuzzer "$root/tests/fuzz/corpus" "$seconds"
run cpu_library_fuzzer "$root/tests/fuzz/corpus_cpu_library" "$half"
run npu_target_fuzzer "$root/tests/fuzz/corpus_target" "$half"
echo "fuzz: no findings"
