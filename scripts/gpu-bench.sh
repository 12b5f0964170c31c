#!/usr/bin/env bash
# Benchmarks on a GPU machine (H100 + 16 CPU cores): every kernel of `portla bench` on
# cuda and the vendor libraries, the launch-configuration sweep, the CG comparisons, and the
# CPU kernels against OpenBLAS; JSON, CSV and SVG into $OUT. Expects a build in $BUILD.
#   usage: OUT=dir BUILD=build-gpu PORTLA_COMMIT=abc123 [TAR=file.tgz] scripts/gpu-bench.sh [SWEEP...]
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build-gpu}
P="$BUILD/apps/portla/portla"
mkdir -p "$OUT"
status=0
ONLY=" $* "  # sweep names to run (default: all)
b() {  # b NAME ARGS...: one sweep, its table last in the log
  local name=$1; shift
  [ "$ONLY" = "  " ] || [[ "$ONLY" == *" $name "* ]] || return 0
  echo "== bench $name ($(date -u +%H:%M:%S))"
  "$P" bench "$@" --quiet --json "$OUT/$name.json" --plot "$OUT/$name.svg" > "$OUT/$name.txt" 2>&1 || status=1
  sed -n '/^model/,$p' "$OUT/$name.txt"
  # keep what is done if a later sweep runs past the time limit
  [ -n "${TAR:-}" ] && tar czf "$TAR" -C "$OUT" .
}
# Most needed first: a run with a time limit may stop before the later sweeps (partial results
# are kept in $TAR after each sweep). OpenMP and OpenBLAS run in separate processes: their idle
# threads spin after each call and slow the other down when they share one process's cores.
b cg_dense_4096 cg-dense --backend cuda,cublas,omp,openblas,reference --sizes 2^24 --reps 5 --max-time 1
b gpu_cg cg cg-host --backend cuda --sizes 2^10:2^27 --reps 10 --max-time 0.5
b gpu_cg_vendor cg --backend cusparse --sizes 2^10:2^22 --reps 10 --max-time 0.5
b gpu_blas1 copy axpby dot dot-host norm2 fused-cg unfused-cg --backend cuda,cublas --sizes 2^10:2^27 --reps 40 --max-time 0.2
# The vector kernels timed as a stream of 20 calls per sample (T0 of a call among calls, the
# shared PERFORMANCE.md's way for cuBLAS), and with one element per access (16-byte packs off).
b gpu_blas1_stream axpby dot fused-cg --backend cuda,cublas --sizes 2^10:2^27 --reps 40 --max-time 0.2 --calls-per-sample 20
PORTLA_PACKED_LOADS=off b gpu_blas1_unpacked axpby dot fused-cg --backend cuda --sizes 2^10:2^27 --reps 40 --max-time 0.2
PORTLA_PACKED_LOADS=off b gpu_blas1_unpacked_stream axpby dot fused-cg --backend cuda --sizes 2^10:2^27 --reps 40 --max-time 0.2 --calls-per-sample 20
b gpu_blas1_packs axpby dot --backend cuda --wg 256,512,1024 --items 1,2,4,8 --sizes 2^16:2^27 --reps 20 --max-time 0.1
b gpu_vendor spmv-csr --backend cuda,cusparse --sizes 2^16:2^24 --reps 20 --max-time 0.2
b cpu16_omp copy axpby dot norm2 fused-cg unfused-cg gemv --backend omp --sizes 2^16:2^27 --reps 10 --max-time 0.1
b cpu16_openblas copy axpby dot norm2 unfused-cg gemv --backend openblas --sizes 2^16:2^27 --reps 10 --max-time 0.1
b gpu_operators gemv spmv-csr stencil --backend cuda,cublas,cusparse --sizes 2^10:2^22 --reps 30 --max-time 0.2
b gpu_launch_sweep axpby dot fused-cg --backend cuda --sizes 2^10,2^14,2^18,2^22,2^26 --wg 128,256,512,1024 --items 1,4,8 --reps 30 --max-time 0.1
# Matrix-free CG per point and iteration for N^3 grids, 256 ... 1024 (100 iterations, rtol
# 1e-30: the count is fixed), with the direction kernel each took: a table (ps per point and
# iteration, and against the best N) and stencil_sizes.json. STENCIL_SIZES overrides the list.
if [ "$ONLY" = "  " ] || [[ "$ONLY" == *" stencil_sizes "* ]]; then
  echo "== stencil_sizes ($(date -u +%H:%M:%S))"
  mkdir -p "$OUT/stencil_sizes"
  for n in ${STENCIL_SIZES:-256 384 512 513 576 640 645 704 768 896 1024}; do
    "$P" solve --generate "poisson3d:$n" --backend cuda --max-iters 100 --rtol 1e-30 \
      --json "$OUT/stencil_sizes/$n.json" > "$OUT/stencil_sizes/$n.txt" 2>&1 || status=1
  done
  python3 - "$OUT/stencil_sizes" "$OUT/stencil_sizes.json" <<'PY' | tee "$OUT/stencil_sizes.txt"
import json, os, sys
rows = []
for name in sorted(os.listdir(sys.argv[1]), key=lambda f: int(f.split(".")[0]) if f[0].isdigit() else 0):
    if not name.endswith(".json"):
        continue
    j = json.load(open(os.path.join(sys.argv[1], name)))
    n = int(name.split(".")[0])
    ps = j["time_per_iteration_s"] / n**3 * 1e12
    rows.append({"N": n, "iterations": j["iterations"], "ms_per_iteration": j["time_per_iteration_s"] * 1e3,
                 "ps_per_point_iteration": ps, "direction": j.get("kernels", {}).get("cg.direction", "")})
best = min(r["ps_per_point_iteration"] for r in rows) if rows else 1
print("N      iters  ms/iter    ps/point/iter  x best  cg.direction")
for r in rows:
    r["x_best"] = r["ps_per_point_iteration"] / best
    print(f'{r["N"]:<6} {r["iterations"]:<6} {r["ms_per_iteration"]:<10.4f} {r["ps_per_point_iteration"]:<14.2f} {r["x_best"]:<7.3f} {r["direction"]}')
json.dump(rows, open(sys.argv[2], "w"), indent=1)
PY
  [ -n "${TAR:-}" ] && tar czf "$TAR" -C "$OUT" .
fi
# portla tune: this GPU's profile (about 2 minutes), then the shipped defaults against
# it in one bench run (`tuned`; needs the profile of `tune`).
if [ "$ONLY" = "  " ] || [[ "$ONLY" == *" tune "* ]]; then
  echo "== tune ($(date -u +%H:%M:%S))"
  "$P" tune --backend cuda --kernels axpby,dot,norm2,fused-cg \
    --sizes 2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26 --wg 128,256,512,1024 --items 1,4,8 \
    --reps 20 --max-time 0.1 --out "$OUT/tuning-h100.json" --json "$OUT/tune.json" --quiet \
    > "$OUT/tune.txt" 2>&1 || status=1
  cat "$OUT/tune.txt"
  [ -n "${TAR:-}" ] && tar czf "$TAR" -C "$OUT" .
fi
export PORTLA_TUNING_FILE="$OUT/tuning-h100.json"
b tuned axpby dot norm2 fused-cg --backend cuda --tuned --sizes 2^12:2^27 --reps 30 --max-time 0.2
unset PORTLA_TUNING_FILE
echo "gpu-bench status: $status"
exit $status
