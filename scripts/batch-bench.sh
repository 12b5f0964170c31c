#!/usr/bin/env bash
# Benchmarks of the batched solvers on a GPU: one JSON per sweep in $OUT
# (batch_<sweep>.json: device, date, commit at the top, the same-run ratios of the targets, then
# every configuration with the median of $REPS runs; the solver's own time, device events on
# cuda). The PeleLM systems must be in data/pelelm (scripts/fetch-pelelm.sh, carried).
#   usage: OUT=dir BUILD=build-gpu PORTLA_COMMIT=abc123 [REPS=3] scripts/batch-bench.sh [SWEEP...]
# Sweeps (default: all, in this order):
#   stencil_batch     3pt stencil n = 64, batch 2^13 ... 2^17: CG, BiCGSTAB, cuBLAS batched LU
#   stencil_size      3pt stencil batch 2^17, n = 16 ... 1024: CG, BiCGSTAB, cuBLAS batched LU
#   pelelm            five classes, 2^13 ... 2^18: BiCGSTAB + Jacobi (rtol 1e-6, 2n iterations),
#                     cuBLAS batched LU on the same systems
#   shared_vs_global  n = 64, 2^17: shared-memory placement against --global-memory
#   omp_vs_reference  a subset on the CPU: omp with 16 threads against the reference backend
# The direct solve is skipped (and the reason recorded) where the dense batch B n^2 8 bytes
# exceeds DIRECT_MAX_BYTES (40 GB): it needs that twice (matrix and LU copy) on an 80 GB GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/batch-out}
BUILD=${BUILD:-build-gpu}
P=${PORTLA:-$BUILD/apps/portla/portla}
REPS=${REPS:-3}
BACKEND=${BACKEND:-cuda}
DIRECT_MAX_BYTES=${DIRECT_MAX_BYTES:-40000000000}
# Sizes (overridable for a quick trial on a small machine)
STENCIL_BATCH_EXPS=${STENCIL_BATCH_EXPS:-"13 14 15 16 17"}
STENCIL_SIZES=${STENCIL_SIZES:-"16 32 64 128 256 512 1024"}
BIG_EXP=${BIG_EXP:-17}
PELELM_EXPS=${PELELM_EXPS:-"13 14 15 16 17 18"}
PELELM_CLASSES=${PELELM_CLASSES:-"drm19 gri12 gri30 dodecane_lu isooctane"}
CPU_EXPS=${CPU_EXPS:-"13 15"}
MERGE="python3 scripts/batch_bench_merge.py"
export PORTLA_COMMIT=${PORTLA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
status=0
ONLY=" $* "

if [ ! -x "$P" ]; then
  echo "== build portla_cli in $BUILD"
  export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/batch_cmake.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target portla_cli > "$OUT/batch_build.log" 2>&1 ||
    { echo "batch-bench: build failed (see $OUT/batch_build.log)"; exit 1; }
fi

# run SWEEP LABEL TAGS -- ARGS...: $REPS runs of `portla batch ARGS --json`; exit 2 (some system
# did not converge) is a result, exit 1 an error (logged, and the sweep goes on).
run() {
  local sweep=$1 label=$2; shift 2
  local tags=()
  while [ "$1" != "--" ]; do tags+=("$1"); shift; done
  shift
  local rep rc
  for rep in $(seq "$REPS"); do
    "$P" batch "$@" --json > "$TMP/run.json" 2> "$TMP/err.txt"
    rc=$?
    if [ $rc -eq 1 ] || [ $rc -gt 2 ]; then
      echo "  $label: exit $rc: $(head -c 300 "$TMP/err.txt")"
      status=1
    fi
    $MERGE add "$TMP/$sweep.jsonl" "$label" $rc "$TMP/run.json" "${tags[@]}" || status=1
  done
  python3 - "$TMP/run.json" "$label" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("  %-34s %8d systems  %6d converged  it %3d/%6.1f/%3d  worst %.1e  %.3e s  %.3e sys/s" % (
        sys.argv[2], j["num_systems"], j["num_converged"], j["iterations_min"], j["iterations_mean"],
        j["iterations_max"], j["max_relative_residual"] or float("nan"), j["time_s"], j["systems_per_second"]))
except Exception as e:
    print("  %s: no result (%s)" % (sys.argv[2], e))
PY
}

# direct SWEEP LABEL SYSTEMS N TAGS -- ARGS...: the cuBLAS batched LU, unless too large.
direct() {
  local sweep=$1 label=$2 systems=$3 n=$4; shift 4
  local bytes=$((systems * n * n * 8))
  if [ "$bytes" -gt "$DIRECT_MAX_BYTES" ]; then
    local why="dense batch $systems x $n x $n x 8 = $bytes bytes > $DIRECT_MAX_BYTES (matrix and LU copy do not fit)"
    echo "  $label: skipped: $why"
    local tags=()
    while [ "$1" != "--" ]; do tags+=("$1"); shift; done
    $MERGE skip "$TMP/$sweep.jsonl" "$label" "$why" "${tags[@]}" num_systems=$systems n=$n solver=direct
    return
  fi
  run "$sweep" "$label" "$@" --solver direct
}

sweep() {  # sweep NAME: whether to run it; finish writes its JSON
  [ "$ONLY" = "  " ] || [[ "$ONLY" == *" $1 "* ]]
}
finish() {
  $MERGE finish "$TMP/$1.jsonl" "$1" "$OUT/batch_$1.json" || status=1
  [ -n "${TAR:-}" ] && tar czf "$TAR" -C "$OUT" .
}

if sweep stencil_batch; then
  echo "== stencil_batch ($(date -u +%H:%M:%S))"
  for e in $STENCIL_BATCH_EXPS; do
    B=$((1 << e))
    for s in cg bicgstab; do
      run stencil_batch "$s B=2^$e" -- --generate stencil3pt:64 --batch-size $B --solver $s --rtol 1e-6 --backend "$BACKEND"
    done
    direct stencil_batch "direct B=2^$e" $B 64 -- --generate stencil3pt:64 --batch-size $B --backend "$BACKEND"
  done
  finish stencil_batch
fi

if sweep stencil_size; then
  echo "== stencil_size ($(date -u +%H:%M:%S))"
  B=$((1 << BIG_EXP))
  for n in $STENCIL_SIZES; do
    for s in cg bicgstab; do
      run stencil_size "$s n=$n" -- --generate stencil3pt:$n --batch-size $B --solver $s --rtol 1e-6 --backend "$BACKEND"
    done
    direct stencil_size "direct n=$n" $B $n -- --generate stencil3pt:$n --batch-size $B --backend "$BACKEND"
  done
  finish stencil_size
fi

if sweep pelelm; then
  echo "== pelelm ($(date -u +%H:%M:%S))"
  for c in $PELELM_CLASSES; do
    d=data/pelelm/$c
    [ -f "$d/0/A.mtx" ] || { echo "  $d missing: run scripts/fetch-pelelm.sh first"; status=1; continue; }
    n=$(grep -v '^%' "$d/0/A.mtx" | head -1 | awk '{print $1}')
    for e in $PELELM_EXPS; do
      B=$((1 << e))
      run pelelm "$c bicgstab B=2^$e" class=$c -- "$d" --replicate-to $B --solver bicgstab --precond jacobi \
        --rtol 1e-6 --max-iters $((2 * n)) --backend "$BACKEND"
      direct pelelm "$c direct B=2^$e" $B "$n" class=$c -- "$d" --replicate-to $B --backend "$BACKEND"
    done
  done
  finish pelelm
fi

if sweep shared_vs_global; then
  echo "== shared_vs_global ($(date -u +%H:%M:%S))"
  B=$((1 << BIG_EXP))
  for s in cg bicgstab; do
    run shared_vs_global "$s shared" placement=shared -- --generate stencil3pt:64 --batch-size $B --solver $s --backend "$BACKEND"
    run shared_vs_global "$s global" placement=global -- --generate stencil3pt:64 --batch-size $B --solver $s \
      --backend "$BACKEND" --global-memory
  done
  finish shared_vs_global
fi

if sweep omp_vs_reference; then
  echo "== omp_vs_reference ($(date -u +%H:%M:%S))"
  threads=${OMP_THREADS:-16}
  for e in $CPU_EXPS; do
    B=$((1 << e))
    for backend in reference omp; do
      OMP_NUM_THREADS=$threads run omp_vs_reference "stencil64 bicgstab B=2^$e $backend" case="stencil64 B=2^$e" \
        threads=$threads -- --generate stencil3pt:64 --batch-size $B --solver bicgstab --backend $backend
      for c in drm19 isooctane; do
        [ -f "data/pelelm/$c/0/A.mtx" ] || continue
        OMP_NUM_THREADS=$threads run omp_vs_reference "$c bicgstab B=2^$e $backend" case="$c B=2^$e" \
          threads=$threads -- "data/pelelm/$c" --replicate-to $B --solver bicgstab --precond jacobi --backend $backend
      done
    done
  done
  finish omp_vs_reference
fi

echo "batch-bench status: $status"
exit $status
