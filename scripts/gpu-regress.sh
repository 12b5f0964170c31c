#!/usr/bin/env bash
# Regression check on the H100: re-measures the reference numbers of bench/baselines/h100.json
# with the same commands and parameters (few repetitions: about 3-4 minutes, hard budget
# $BUDGET_S = 400 s), writes one JSON per measurement into $OUT, then compares them with the
# reference (scripts/regress-compare.py: > 3% slower is flagged).
#   usage: OUT=dir BUILD=build-gpu [PORTLA_COMMIT=abc123] scripts/gpu-regress.sh [GROUP...]
# Groups (default: all, run in this order; the cheap ones first so that the budget only ever
# cuts the last):
#   cg     portla solve poisson3d:128 cuda, matrix-free and --assembled (3 runs each), and
#          portla bench cg cg-host at 128^3 and 512^3
#   blas1  portla bench axpby dot fused-cg, cuda and cublas, 2^24 ... 2^27
#   gemm   portla gemm fast,vendor at 4096^3, double and float
#   eig    portla eig hilbert:8192 float, similarity/fused/power, local, --repeat 3
#   batch  portla batch stencil3pt:64 at 2^17 (cg, bicgstab) and PeleLM BiCGSTAB + Jacobi at
#          2^18 for the five classes (PeleLM needs data/pelelm: scripts/fetch-pelelm.sh)
# The build comes first, from scripts/gpu-check.sh (its $BUILD; `--bench-only` builds just the
# CLI). Env: REPS (3: runs of solve/batch, median compared), BUDGET_S (400: no command starts
# after it, and each one's timeout is capped to what is left), PORTLA_COMMIT (the commit the
# results name; default: git's HEAD).
# Exit: 0 no measurement more than 3% slower, 1 some slower or a command failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/regress-out}
BUILD=${BUILD:-build-gpu}
P="$BUILD/apps/portla/portla"
REPS=${REPS:-3}
PELELM_EXPS=18
PELELM_CLASSES=${PELELM_CLASSES:-"drm19 gri12 gri30 dodecane_lu isooctane"}
BUDGET_S=${BUDGET_S:-400}
export PORTLA_COMMIT=${PORTLA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
status=0
SECONDS=0

ALL="cg blas1 gemm eig batch"
ONLY=" $* "
for g in "$@"; do
  [[ " $ALL " == *" $g "* ]] || { echo "gpu-regress: unknown group '$g' (groups: $ALL)" >&2; exit 1; }
done
want() { [ "$ONLY" = "  " ] || [[ "$ONLY" == *" $1 "* ]]; }
step() { echo "== $* (t = ${SECONDS} s, $(date -u +%H:%M:%S))"; }

if [ ! -x "$P" ]; then
  echo "gpu-regress: $P not found: build first (OUT=... scripts/gpu-check.sh --bench-only, BUILD=$BUILD)" >&2
  exit 1
fi

# guard LIMIT_S OUTFILE -- CMD...: CMD under `timeout`, capped to what is left of the budget;
# stdout to OUTFILE ("-": not redirected), stderr to OUTFILE.err. Returns CMD's exit status
# (124 on a time-out, 125 when the budget is spent and CMD was not started).
guard() {
  local limit=$1 out=$2; shift 3
  local left=$((BUDGET_S - SECONDS))
  if [ "$left" -lt 10 ]; then
    echo "  skipped (budget of $BUDGET_S s spent): $*"
    status=1
    return 125
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local rc
  if [ "$out" = "-" ]; then
    timeout -k 5 "$limit" "$@" 2> "$TMP/last.err"; rc=$?
  else
    timeout -k 5 "$limit" "$@" > "$out" 2> "$out.err"; rc=$?
    [ -s "$out.err" ] || rm -f "$out.err"
  fi
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "  TIMEOUT after $limit s: $*"; status=1
  elif [ $rc -ne 0 ] && [ $rc -ne 2 ]; then  # 2: not converged, a result (shown in the summary)
    echo "  exit $rc: $*"; status=1
    local err="$out.err"
    [ "$out" = "-" ] && err="$TMP/last.err"
    [ -s "$err" ] && head -c 400 "$err" && echo
  fi
  return $rc
}

# show KIND FILE...: one line per measurement
show() {
  python3 - "$@" <<'PY'
import json, sys
kind, files = sys.argv[1], sys.argv[2:]
for f in files:
    name = f.rsplit("/", 1)[-1]
    if "*" in name:
        print("  %-40s no result" % name); continue
    try:
        with open(f) as fh:
            j = json.load(fh)
    except Exception as e:
        print("  %-40s no result (%s)" % (name, e)); continue
    try:
        if kind == "solve":
            print("  %-40s %s it=%d %s  %.4f ms/iter  (total %.1f ms)" % (name, j["format"], j["iterations"],
                  j["reason"], 1e3 * j["time_per_iteration_s"], 1e3 * j["time_s"]))
        elif kind == "bench":
            for p in j["points"]:
                print("  %-40s %-9s %-7s n=%-10d %10.2f us %8.1f GB/s %s" % (name, p["kernel"], p["backend"], p["n"],
                      1e6 * p["time_s"], p["bandwidth_gbs"], "ok" if p["correct"] else "WRONG"))
            for fit in j.get("fits", []):
                print("  %-40s fit %-9s %-7s T0 %.2f us  W_a %.1f GB/s (%d points)" % (name, fit["kernel"],
                      fit["backend"], fit["t0_us"], fit["wa_gbs"], fit["points"]))
        elif kind == "gemm":
            pts = j if isinstance(j, list) else [j]
            vendor = [p["gflops"] for p in pts if p["variant"] == "vendor"]
            for p in pts:
                frac = " (%.3f of cuBLAS)" % (p["gflops"] / vendor[0]) if vendor and p["variant"] != "vendor" else ""
                print("  %-40s %s %s %d^3: %.4f ms  %.0f GFLOP/s%s  rel.err %.1e" % (name, p["precision"], p["variant"],
                      p["m"], 1e3 * p["time_s"], p["gflops"], frac, p["relative_error"]))
        elif kind == "eig":
            print("  %-40s %s %s it=%d conv=%s  %.3f ms (runs %s)  x floor %.2f" % (name, j["method"], j["variant"],
                  j["iterations"], j["converged"], 1e3 * j["time_s"],
                  "/".join("%.3f" % (1e3 * t) for t in j.get("times_s", [])), j["time_s"] / j["floor_s"]))
        elif kind == "batch":
            print("  %-40s %8d systems %8d converged  it %d/%.1f/%d  worst %.1e  %.3f ms" % (name, j["num_systems"],
                  j["num_converged"], j["iterations_min"], j["iterations_mean"], j["iterations_max"],
                  j.get("max_relative_residual") or float("nan"), 1e3 * j["time_s"]))
    except Exception as e:
        print("  %-40s unexpected JSON (%s: %s)" % (name, type(e).__name__, e))
PY
}

# batchrun FILE ARGS...: one `portla batch ARGS --json`, the per-system arrays dropped (at 2^18
# systems they are tens of MB) and replaced by a count of the reasons.
batchrun() {
  local file=$1; shift
  guard 150 "$TMP/batch.json" -- "$P" batch "$@" --json
  local rc=$?
  [ -f "$TMP/batch.json.err" ] && cp "$TMP/batch.json.err" "$file.err"
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || return $rc
  python3 - "$TMP/batch.json" "$file" "$rc" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
counts = {}
for r in j.get("reason", []):
    counts[r] = counts.get(r, 0) + 1
for k in ("iterations", "residual_norm", "rhs_norm", "converged", "reason"):
    j.pop(k, None)
j["reason_counts"] = counts
j["exit"] = int(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
}

step "device"
timeout 20 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  2>/dev/null | tee "$TMP/smi.txt" || echo "(nvidia-smi failed)"
python3 - "$TMP/smi.txt" "$OUT/meta.json" "$PORTLA_COMMIT" "$*" <<'PY'
import datetime, json, sys
smi = open(sys.argv[1]).read().strip().splitlines()
fields = [s.strip() for s in (smi[0].split(",") if smi else [""])]
meta = {"device": fields[0], "nvidia_smi": smi[0] if smi else "",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": sys.argv[3], "groups": sys.argv[4].split() or "all", "script": "scripts/gpu-regress.sh"}
json.dump(meta, open(sys.argv[2], "w"), indent=1)
PY
echo "commit $PORTLA_COMMIT, binary $P, out $OUT"

if want cg; then
  step "cg: portla solve poisson3d:128 cuda (x$REPS), matrix-free and assembled CSR"
  for r in $(seq "$REPS"); do
    guard 60 "$OUT/cg_solve_cuda.r$r.json" -- "$P" solve --generate poisson3d:128 --solver cg --backend cuda --rtol 1e-8 --json
    guard 90 "$OUT/cg_solve_cuda_csr.r$r.json" -- "$P" solve --generate poisson3d:128 --assembled --format csr --solver cg --backend cuda --rtol 1e-8 --json
  done
  show solve "$OUT"/cg_solve_cuda.r*.json "$OUT"/cg_solve_cuda_csr.r*.json
  step "cg: portla bench cg cg-host, 128^3 and 512^3"
  guard 120 - -- "$P" bench cg cg-host --backend cuda --sizes 2^21,2^27 --reps 10 --max-time 0.5 --quiet \
    --json "$OUT/cg_bench.json"
  show bench "$OUT/cg_bench.json"
fi

if want blas1; then
  step "blas1: portla bench axpby dot fused-cg, cuda and cublas, 2^24 ... 2^27"
  guard 120 - -- "$P" bench axpby dot fused-cg --backend cuda,cublas --sizes 2^24:2^27 --wg 256 --items 4 \
    --reps 40 --max-time 0.2 --quiet --json "$OUT/blas1.json"
  show bench "$OUT/blas1.json"
fi

if want gemm; then
  step "gemm: fast and cuBLAS at 4096^3"
  for prec in double float; do
    guard 60 "$OUT/gemm_${prec}_4096.json" -- "$P" gemm --backend cuda --precision $prec --m 4096 --n 4096 --k 4096 \
      --variant fast,vendor --reps 20 --json
    show gemm "$OUT/gemm_${prec}_4096.json"
  done
fi

if want eig; then
  step "eig: hilbert:8192 float, local variant, --repeat 3"
  for m in similarity fused power; do
    guard 60 "$OUT/eig_hilbert8192_float_$m.json" -- "$P" eig --generate hilbert:8192 --precision float --eps 1e-3 \
      --backend cuda --method $m --variant local --wg 256 --repeat 3 --json
    show eig "$OUT/eig_hilbert8192_float_$m.json"
  done
fi

if want batch; then
  step "batch: stencil3pt:64 at 2^17, cg and bicgstab (x$REPS)"
  for s in cg bicgstab; do
    for r in $(seq "$REPS"); do
      batchrun "$OUT/batch_stencil64_${s}_2e17.r$r.json" --generate stencil3pt:64 --batch-size 131072 --solver $s \
        --rtol 1e-6 --backend cuda
    done
    show batch "$OUT"/batch_stencil64_${s}_2e17.r*.json
  done
  if [ ! -d data/pelelm ]; then
    echo "  PeleLM skipped: data/pelelm is missing (run scripts/fetch-pelelm.sh first)"
  else
    for e in $PELELM_EXPS; do
      step "batch: PeleLM BiCGSTAB + Jacobi at 2^$e (x$REPS)"
      for c in $PELELM_CLASSES; do
        d=data/pelelm/$c
        if [ ! -f "$d/0/A.mtx" ]; then
          echo "  $c skipped: $d/0/A.mtx missing (run scripts/fetch-pelelm.sh first)"
          continue
        fi
        n=$(grep -v '^%' "$d/0/A.mtx" | head -1 | awk '{print $1}')
        for r in $(seq "$REPS"); do
          batchrun "$OUT/batch_pelelm_${c}_2e$e.r$r.json" "$d" --replicate-to $((1 << e)) --solver bicgstab \
            --precond jacobi --rtol 1e-6 --max-iters $((2 * n)) --backend cuda
        done
        show batch "$OUT/batch_pelelm_${c}_2e$e".r*.json
      done
    done
  fi
fi

step "compare with the reference numbers (bench/baselines/h100.json)"
python3 scripts/regress-compare.py --new "$OUT" --out "$OUT/regress.json" || status=1
echo "gpu-regress status: $status (${SECONDS} s)"
exit $status
