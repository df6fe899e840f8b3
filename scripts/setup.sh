#!/usr/bin/env bash
# Installs every dependency tessera needs on a fresh Debian 12 machine and builds it.
# Idempotent: packages already present are not reinstalled; the build is incremental.
#   Debian packages: C++ libraries (GoogleTest, pybind11, nlohmann-json, Halide 14, XGBoost, OpenMP)
#   .venv (pip):     numpy, pytest, tqdm (tuning progress bar), matplotlib (tuning-curve plots),
#                    optuna (TPE, the outside search peer of benchmarks/tuner)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

pkgs=(build-essential cmake ninja-build python3 python3-dev python3-venv pybind11-dev
      libgtest-dev libgmock-dev nlohmann-json3-dev libomp-dev libhalide14-0-dev libxgboost-dev
      clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Debian's own interpreter, not a pyenv shim: pybind11-dev is built against it.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv .venv
fi
if ! .venv/bin/python -c "import numpy, pytest, tqdm, matplotlib, optuna" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "numpy>=1.24,<3" "pytest>=7" \
    "tqdm>=4.64" "matplotlib>=3.6" "optuna>=3.0"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPYBIND11_FINDPYTHON=ON -DPython_EXECUTABLE="$root/.venv/bin/python" \
  "${TESSERA_CMAKE_ARGS[@]:-}" >/dev/null
cmake --build build -j "$(nproc)"
