#!/usr/bin/env bash
# The GPU check of `portla eig` in one run (on an H100): build the eig targets for sm_90,
# run the eigenpair tests (cuda kernels against the reference, eigenvalues against dgeev, the
# published Hilbert round counts), then the Hilbert benchmark (scripts/bench-eig.py) on cuda and
# the 16 CPU cores, and compute-sanitizer memcheck on the kernel tests. Logs and JSON in $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
step() { echo "== $* ($(date -u +%H:%M:%S))"; }
step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
step "build"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cmake.log" 2>&1 ||
  { tail -20 "$OUT/cmake.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target portla_cli test_perron_cuda test_eig > "$OUT/build.log" 2>&1 ||
  { grep -E "error" "$OUT/build.log" | head -20; exit 1; }
grep -E "warning" "$OUT/build.log" | head -5
step "tests"
for t in test_perron_cuda test_eig; do
  timeout 120 "$BUILD/tests/$t" > "$OUT/$t.log" 2>&1
  echo "$t: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$t.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]" "$OUT/$t.log" | head -10
done
step "benchmark"
python3 scripts/bench-eig.py --bin "$BUILD/apps/portla/portla" --out "$OUT/eig_hilbert_float.json" \
  --backends "${BACKENDS:-cuda,omp}" --repeat "${REPEAT:-2}" --wg "${WG:-256,1024}" --kernel-sizes "${KERNEL_SIZES:-8192}" |
  tee "$OUT/eig_hilbert_float.txt"
step "memcheck (kernel tests, no Hilbert)"
timeout "${MEMCHECK_S:-30}" compute-sanitizer --tool memcheck --error-exitcode 3 \
  "$BUILD/tests/test_perron_cuda" --gtest_filter='-*Hilbert*:*Lapack*' > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' "$OUT/memcheck.log" | tr '\n' ' ')"
step "done"
