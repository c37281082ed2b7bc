#!/usr/bin/env bash
# Installs the Debian packages gilsan builds with, when they are missing. Safe to run again.
# The CUDA Toolkit (headers and nvcc) is expected under /usr/local/cuda, as on this machine kind.
set -euo pipefail
packages=(cmake ninja-build g++ python3-dev python3-venv libgtest-dev libgmock-dev nlohmann-json3-dev valgrind libbenchmark-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/install-deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "ci/install-deps.sh: the CUDA Toolkit (nvcc, cuda.h) is required under /usr/local/cuda" >&2
  exit 1
fi
