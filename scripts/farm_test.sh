#!/usr/bin/env bash
# Runs the farm tests (tests/python/test_farm*.py) against a Ray cluster of this machine, on
# loopback: a head node with no CPUs (it only coordinates) and two worker nodes of one CPU each,
# usage statistics off, small object stores. The cluster is always stopped, even when the tests
# fail or the script is interrupted: every process whose command line holds this run's own Ray
# temp directory is killed (never `ray stop`, which would stop any other cluster of the machine).
#
# Ray turns 127.0.0.1 into the host's outward address, so the nodes take other loopback
# addresses: the head 127.0.0.2, the workers 127.0.0.3 and 127.0.0.4. The tests read the
# cluster from TESSERA_FARM_ADDRESS, TESSERA_FARM_NODES and TESSERA_FARM_TEMP.
#   scripts/farm_test.sh [pytest arguments]      (the build must exist: scripts/setup.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ray="$root/.venv/bin/ray"
[ -x "$ray" ] || { echo "farm_test: $ray is missing (run scripts/setup.sh)" >&2; exit 1; }

export RAY_USAGE_STATS_ENABLED=0
# Our own loopback cluster, without token authentication even where the user has a Ray token
# (~/.ray/auth_token makes a new head require one, which the nodes started here would not send).
export RAY_AUTH_MODE=disabled
# Workers import tessera from this tree (a user's farm installs the package instead).
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
# A node that goes away is noticed within a few seconds, not the default tens.
export RAY_health_check_period_ms=1000 RAY_health_check_failure_threshold=3
port=${TESSERA_FARM_PORT:-26380}
head=127.0.0.2
nodes="127.0.0.3 127.0.0.4"
temp=$(mktemp -d /tmp/tessera-farm.XXXXXX)
common=(--disable-usage-stats --object-store-memory=80000000 --temp-dir="$temp")

stop_cluster() {
  local pids
  pids=$(grep -lsF -- "$temp" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  rm -rf "$temp"
}
trap stop_cluster EXIT

t0=$(date +%s)
"$ray" start --head --node-ip-address="$head" --port="$port" --num-cpus=0 \
  --include-dashboard=false "${common[@]}" >"$temp/start.log" 2>&1 ||
  { cat "$temp/start.log" >&2; exit 1; }
for ip in $nodes; do
  "$ray" start --address="$head:$port" --node-ip-address="$ip" --num-cpus=1 "${common[@]}" \
    >>"$temp/start.log" 2>&1 || { cat "$temp/start.log" >&2; exit 1; }
done
echo "farm_test: Ray cluster on $head:$port with worker nodes $nodes ($(($(date +%s) - t0)) s)"

export TESSERA_FARM_ADDRESS="$head:$port" TESSERA_FARM_NODES="$nodes" TESSERA_FARM_TEMP="$temp"
status=0
.venv/bin/python -m pytest -q tests/python/test_farm*.py "$@" || status=$?
exit $status
