#!/usr/bin/env bash
# The matrix-product check and benchmark in one run (on an H100): build what gemm
# needs for sm_90, run the gemm tests (and memcheck on a subset), look at the fast kernels'
# SASS, then time every variant at 256 ... 8192 (float and double), the two fast tiles, and the
# omp blocked kernel against OpenBLAS on all cores. Everything goes to $OUT/gemm.tgz; a summary
# is printed last.  usage: OUT=/some/dir PORTLA_COMMIT=abc123 scripts/gemm-bench.sh [--no-tests]
set -uo pipefail
FINAL_OUT=${OUT:-$PWD/gpu-out}
OUT=$FINAL_OUT/raw
R=$OUT/results
mkdir -p "$R"
export PORTLA_COMMIT=${PORTLA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
BUILD=${BUILD:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
status=0
# Each step re-tars what exists, so a run cut off by a time limit still leaves results.
step() { tar czf "$FINAL_OUT/gemm.tgz" -C "$OUT" . 2>/dev/null; echo "== $* ($(date -u +%H:%M:%S))"; }

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$OUT/device.txt"

step "build"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cmake.log" 2>&1 ||
  { tail -30 "$OUT/cmake.log"; exit 1; }
targets="portla_cli"
[ "${1:-}" != "--no-tests" ] && targets="$targets test_gemm_cuda test_gemm_cli"
cmake --build "$BUILD" -j "$(nproc)" --target $targets > "$OUT/build.log" 2>&1 ||
  { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
P=$BUILD/apps/portla/portla

step "SASS of the fast kernels"
obj=$(find "$BUILD" -name 'gemm_kernels.cu.o' | head -1)
cuobjdump -sass "$obj" > "$OUT/gemm_sass.txt" 2>&1
awk '/Function :/{f=$3} /DMMA|FFMA|LDS.128|LDL|STL|LDG.E.128|LDG.E.64/{split($0,a,";"); n=split(a[1],w," "); for(i=1;i<=n;i++) if (w[i] ~ /^(DMMA|FFMA|LDS|LDL|STL|LDG)/) {c[f" "w[i]]++; break}} END{for(k in c) print c[k], k}' \
  "$OUT/gemm_sass.txt" | grep -E "fast_kernel|ring_kernel" | sed -E 's/_ZN6portla.*(sgemm|dgemm)_fast_kernelINS2_(8SimtTile|8DmmaTile)ILi([0-9]+)ELi([0-9]+).*E /\1 \3x\4 /' | sort -k2 | head -40

if [ "${1:-}" != "--no-tests" ]; then
  step "gemm tests"
  "$BUILD/tests/test_gemm_cuda" > "$OUT/test_gemm_cuda.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure" "$OUT/test_gemm_cuda.log" | head -30
  "$BUILD/tests/test_gemm_cli" > "$OUT/test_gemm_cli.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure" "$OUT/test_gemm_cli.log" | head -30
  step "memcheck (gemm, small shapes)"
  compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/tests/test_gemm_cuda" \
    --gtest_filter='*UnalignedViews*:*WorkGroupWidths*:*EmptyDimensions*:*DenseOperands*' \
    > "$OUT/memcheck_gemm.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED) |ERROR SUMMARY" "$OUT/memcheck_gemm.log"
fi

step "cuda: every variant, 256 ... 8192"
for prec in float double; do
  for s in 256 512 1024 2048 4096 8192; do
    "$P" gemm --backend cuda --precision $prec --m $s --n $s --k $s --variant all --reps 20 --json \
      > "$R/cuda_${prec}_$s.json" || status=1
  done
done
step "cuda: the two fast tiles"
for prec in float double; do
  for s in 1024 2048 4096; do
    for tile in large small; do
      PORTLA_GEMM_FAST_TILE=$tile "$P" gemm --backend cuda --precision $prec --m $s --n $s --k $s \
        --variant fast --reps 20 --json > "$R/tile_${prec}_${s}_$tile.json" || status=1
    done
  done
done
step "omp on $(nproc) cores vs OpenBLAS"
# No OMP_PROC_BIND: it pinned the main thread, and OpenBLAS (pthreads) put its 16 threads on
# that one core (163 GFLOP/s sgemm bound, 913 unbound; H100 host, 2026-11-21).
export OMP_NUM_THREADS=$(nproc)
for s in 256 512 1024 2048 4096; do
  "$P" gemm --backend omp --precision float --m $s --n $s --k $s --variant fast,vendor --reps 10 --json \
    > "$R/omp_float_$s.json" || status=1
done
"$P" gemm --backend omp --precision double --m 2048 --n 2048 --k 2048 --variant fast,vendor --reps 10 --json \
  > "$R/omp_double_2048.json" || status=1
"$P" gemm --backend omp --precision float --m 1024 --n 1024 --k 1024 --variant naive --reps 3 --json \
  > "$R/omp_float_1024_naive.json" || status=1

step "summary"
python3 scripts/gemm-summary.py "$R" "$OUT" || status=1
tar czf "$FINAL_OUT/gemm.tgz" -C "$OUT" . && rm -rf "$OUT"
echo "gemm-bench status: $status"
exit $status
