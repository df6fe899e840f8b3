#!/usr/bin/env bash
# Runs every test: C++ (GoogleTest via ctest) and Python (pytest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"
"$root/scripts/fuzz.sh"
ctest --test-dir build --output-on-failure -j "$(nproc)"
PYTHONPATH="$root/python" .venv/bin/python -m pytest -q tests/python
"$root/scripts/farm_test.sh"
"$root/scripts/pip_test.sh"
