#!/usr/bin/env bash
# The user's route: `pip install .[farm]` into a fresh virtual environment (scikit-build-core
# builds the extension alone, pyproject.toml), then, from outside the source tree so that only
# the installed package can be imported: `tessera --help`, a tiny tune on the local pool, and a
# tiny tune on a one-node Ray cluster started from that environment, whose worker can import
# tessera only from the installed package. The cluster is always stopped (its processes found by
# this run's own Ray temp directory), the environment removed.
#   scripts/pip_test.sh        (Debian packages as scripts/setup.sh installs them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/tessera-pip.XXXXXX)
temp="$work/ray"
cleanup() {
  local pids
  pids=$(grep -lsF -- "$temp" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export RAY_USAGE_STATS_ENABLED=0
# Our own loopback cluster, without token authentication even where the user has a Ray token
# (~/.ray/auth_token makes a new head require one, which this job would not send).
export RAY_AUTH_MODE=disabled
unset PYTHONPATH TESSERA_BUILD_DIR

t0=$(date +%s)
/usr/bin/python3 -m venv "$work/venv"
py="$work/venv/bin/python"
# The wheel's CMake tree is kept in build/wheel: a rerun rebuilds only what changed.
"$py" -m pip install -q --disable-pip-version-check \
  --config-settings=build-dir="$root/build/wheel" "$root[farm]"
t1=$(date +%s)
echo "pip_test: pip install .[farm] into a fresh venv: $((t1 - t0)) s"

cd "$work"  # not the source tree: only the installed package can be imported
"$work/venv/bin/tessera" --help | grep -q "tessera: a TVM-style tensor compiler"
"$py" - <<'EOF'
import tessera, os
assert "site-packages" in tessera.__file__, tessera.__file__
from tessera import autotune as at
t = at.NpuTask("dense", dict(M=8, K=64, N=64, multiplier=1, shift=6))
r = at.tune(t.tuning, at.make_tuner("random", t.tuning, seed=1), at.LocalExecutor(at.measure_npu),
            target=t.target, trials=8, batch_size=4, log="local.jsonl")
assert len(r.trials) == 8 and r.best is not None, r.by_status
print("pip_test: local tune", dict(r.by_status), "best", r.best.result.cycles)
EOF

mkdir -p "$temp"
"$work/venv/bin/ray" start --head --node-ip-address=127.0.0.2 --port="${TESSERA_PIP_RAY_PORT:-26390}" \
  --num-cpus=1 --include-dashboard=false --disable-usage-stats --object-store-memory=80000000 \
  --temp-dir="$temp" >"$work/ray-start.log" 2>&1 || { cat "$work/ray-start.log" >&2; exit 1; }
"$py" - "127.0.0.2:${TESSERA_PIP_RAY_PORT:-26390}" <<'EOF'
import json, sys
from tessera import autotune as at
from tessera.autotune import farm
t = at.NpuTask("dense", dict(M=8, K=64, N=64, multiplier=1, shift=6))
r = at.tune(t.tuning, at.make_tuner("random", t.tuning, seed=1), farm.RayExecutor(sys.argv[1]),
            target=t.target, trials=8, batch_size=4, log="ray.jsonl")
strip = lambda p: [{k: v for k, v in json.loads(l).items() if k != "timestamp"} for l in open(p)]
assert strip("ray.jsonl") == strip("local.jsonl"), "the Ray log differs from the local one"
print("pip_test: Ray tune on the installed package, log equal to the local one")
EOF
echo "pip_test: all done in $(($(date +%s) - t0)) s"
