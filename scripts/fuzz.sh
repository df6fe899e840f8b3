#!/usr/bin/env bash
# Fuzzes the NPU kernel-file loader and decoder: builds tests/fuzz with clang, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer in build-fuzz/, then runs the harness for
# TESSERA_FUZZ_SECONDS (default 60) over a copy of the committed corpus (tests/fuzz/corpus), so the
# run never writes into the repository. Exits non-zero on any finding; the crashing input is kept in
# build-fuzz/findings/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${TESSERA_FUZZ_SECONDS:-60}
cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_BUILD_FUZZ=ON \
  -DTESSERA_BUILD_PYTHON=OFF -DTESSERA_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-fuzz" --target npu_kernel_fuzzer -j 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$root/build-fuzz/findings"
cp "$root"/tests/fuzz/corpus/* "$work/corpus/"
echo "fuzz: npu_kernel_fuzzer for ${seconds}s over $(ls "$work/corpus" | wc -l) seed inputs"
if ! "$root/build-fuzz/tests/fuzz/npu_kernel_fuzzer" -max_total_time="$seconds" \
    -artifact_prefix="$root/build-fuzz/findings/" -print_final_stats=1 "$work/corpus" \
    >"$work/log" 2>&1; then
  tail -n 60 "$work/log"
  echo "fuzz: FINDING; input saved in $root/build-fuzz/findings/" >&2
  exit 1
fi
grep -E "^(stat::number_of_executed_units|Done)" "$work/log" || true
echo "fuzz: no findings"
