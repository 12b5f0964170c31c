#!/usr/bin/env bash
# Installs the Debian 12 packages portla needs to build and test, if any are missing.
# Run as root (or with sudo available); otherwise it prints the command to run and fails.
set -euo pipefail
# clang-14 + libomp-14-dev: the clang build (OpenMP) and `make sanitize`; libclang-rt-14-dev:
# ASan/UBSan runtimes and libFuzzer (libclang_rt.fuzzer) for `make fuzz`; libopenmpi-dev +
# openmpi-bin: the MPI-distributed solvers (PORTLA_WITH_MPI) and their tests under mpirun.
packages=(cmake make g++ libopenblas-dev libcli11-dev nlohmann-json3-dev googletest libgtest-dev
  clang-format-14 clang-14 libomp-14-dev libclang-rt-14-dev libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
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
