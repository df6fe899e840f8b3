#!/usr/bin/env bash
# The main job: set up, then define, schedule, lower, build and run a real operator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"
PYTHONPATH="$root/python" .venv/bin/python examples/matmul.py
PYTHONPATH="$root/python" .venv/bin/python examples/resnet_layer_npu.py
