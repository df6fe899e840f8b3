#!/usr/bin/env bash
# The main job: set up, then define, schedule, lower, build and run a real operator; then tune
# one ResNet-18 layer briefly and build all 12 from the committed tuning log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"
PYTHONPATH="$root/python" .venv/bin/python examples/matmul.py
PYTHONPATH="$root/python" .venv/bin/python examples/resnet_layer_npu.py
PYTHONPATH="$root/python" .venv/bin/python examples/tune_resnet18.py
