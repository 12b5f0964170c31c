#!/usr/bin/env bash
# Fails when a C++, CUDA or OpenCL C file differs from the repository's .clang-format (clang-format 14, as in
# Debian 12). `scripts/check-format.sh --fix` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "check-format: clang-format not found (Debian: apt-get install clang-format-14)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' '*.inc' '*.cl')
if [ "${1:-}" = "--fix" ]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
"$cf" --dry-run -Werror "${files[@]}"
echo "check-format: ${#files[@]} files match .clang-format"
