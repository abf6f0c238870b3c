#!/usr/bin/env bash
# Installs every Debian package dpgossip needs to build, test and benchmark.
# Idempotent: when everything is present it only runs dpkg-query and exits.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ninja-build
  libglib2.0-dev libjson-glib-dev
  libigraph-dev libgsl-dev
  libxml2-dev                # GraphML files checked before igraph reads them
  libopenblas-dev liblapacke-dev
  libzmq3-dev libsoup-3.0-dev zlib1g-dev
  libcairo2-dev
  libgmp-dev                 # exact rational arithmetic: tests/protocols/test_account_exact.c
  libopenmpi-dev openmpi-bin # sweeps across machines (mpirun/srun; CMake DPG_MPI)
  dataset-fashion-mnist
  clang libclang-rt-14-dev   # libFuzzer: the scenario parser's fuzz test
  chromium
  time                       # /usr/bin/time: CPU and peak RSS in bench/account_scale.sh
  # The Python package (python/) for Debian's /usr/bin/python3:
  python3-cffi python3-numpy python3-pandas python3-pytest python3-networkx
  # dpgossip.train(model=torch.nn.Module): PyTorch 1.13 (CPU) and torchvision
  python3-torch python3-torchvision
  # examples/torch_fashion_mnist.py's figure (PNG, Agg backend)
  python3-matplotlib
  # pip install --no-build-isolation --no-index ./python (offline), into a venv
  python3-pip python3-setuptools python3-wheel python3-venv
)

# One dpkg-query for the whole list (one per package took 15 s, and `make
# test` runs this twice); a package it does not know is simply not listed.
declare -A installed=()
while read -r name state; do
  [ "$state" = "installed" ] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for p in "${PACKAGES[@]}"; do
  [ -n "${installed[$p]:-}" ] || missing+=("$p")
done

# Node.js 20+ and npm run the browser test (tests/viz); Debian's own nodejs
# is older, so a machine without node gets it and the browser test says why
# it cannot run.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages of the browser test (playwright-core), pinned by
# tests/viz/package-lock.json; skipped when already installed.
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -f "$ROOT/tests/viz/node_modules/playwright-core/package.json" ]; then
  echo "install-deps: npm ci --prefix tests/viz" >&2
  npm ci --prefix "$ROOT/tests/viz" --no-audit --no-fund --loglevel=error >/dev/null
fi
