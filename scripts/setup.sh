#!/usr/bin/env bash
# Installs the Debian 12 packages portla needs to build and test, if any are missing, then the
# Python virtual environment .venv (nanobind, scikit-build-core, numpy, scipy, pytest from PyPI)
# that the Python bindings are built and tested with, and the documentation (sphinx,
# myst-parser) built. Run as root (or with sudo available) when
# packages are missing; otherwise it prints the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# clang-14 + libomp-14-dev: the clang build (OpenMP) and `make sanitize`; libclang-rt-14-dev:
# ASan/UBSan runtimes and libFuzzer (libclang_rt.fuzzer) for `make fuzz`; python3-venv +
# python3-dev: .venv and the headers the extension module compiles against; libopenmpi-dev +
# openmpi-bin: the MPI-distributed solvers (PORTLA_WITH_MPI) and their tests under mpirun;
# ocl-icd-opencl-dev + opencl-c-headers + opencl-clhpp-headers: the opencl backend
# (PORTLA_WITH_OPENCL), pocl-opencl-icd: an OpenCL driver on the CPU to run it, clinfo to list
# the devices; doxygen: the C++ API reference of `make docs`.
packages=(cmake make g++ libopenblas-dev libcli11-dev nlohmann-json3-dev googletest libgtest-dev
  clang-format-14 clang-14 libomp-14-dev libclang-rt-14-dev python3-venv python3-dev
  libopenmpi-dev openmpi-bin pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers
  opencl-clhpp-headers clinfo doxygen)

setup_venv() {
  # Debian's Python (whose headers python3-dev installs), not one a PATH shim (pyenv) names.
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  [ -x .venv/bin/python ] || "$py" -m venv .venv
  .venv/bin/python -c 'import nanobind, scikit_build_core, numpy, scipy, pytest, sphinx, myst_parser' \
    2>/dev/null &&
    return 0
  echo "setup: installing the Python build, test and documentation packages into .venv"
  .venv/bin/python -m pip install -q 'nanobind>=2.0' 'scikit-build-core>=0.10' numpy \
    'scipy>=1.12' pytest 'sphinx>=7.2' 'myst-parser>=2.0'
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup: missing packages and not root; run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
setup_venv
