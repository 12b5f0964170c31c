#!/usr/bin/env bash
# Multi-GPU and multi-rank scaling of portla's distributed solvers: one MPI rank
# per GPU, CG time per iteration from `portla solve --json` (the slowest rank's time, and the
# ranks' time blocked in allreduce and halo waits), JSON out.
#
#   usage: scripts/scaling-bench.sh [--gpus N] [--counts LIST] [--quick] [--cases LIST]
#                                   [--out DIR] [PORTLA]
#
#   --gpus N     run on 1 ... N GPUs (default: all visible; N > GPUs shares them)
#   --counts L   comma-separated GPU counts instead of 1 ... N (e.g. 1,2,4); 1 is the baseline
#   --quick      small sizes (a check that the script works, e.g. on one GPU)
#   --cases      comma-separated subset of: weak, strong, assembled, batch, cpu
#                (default weak,strong,assembled,batch; cpu = ranks against threads on the host)
#   --out DIR    where the JSON goes (default $OUT or ./scaling-out)
#
# Cases (CG, double, rtol 1e-14 and a fixed iteration limit, so every run does the same
# iterations):
#   weak       3-D Poisson, matrix-free, about SIZE^3 points per GPU (cube of side SIZE * g^(1/3))
#   strong     3-D Poisson, matrix-free, STRONG^3 points in all
#   assembled  3-D Poisson as a distributed CSR matrix, ASM^3 points in all
#   batch      batched BiCGSTAB + Jacobi on the PeleLM classes under data/pelelm (2^18 systems)
#   cpu        16 ranks x 1 thread against 1 rank x 16 threads, CG on poisson3d:CPU (omp)
# One GPU is run twice: the single-device path (fused CG kernels) and --distributed (the path
# the ranks take, without the allreduce), so both baselines are in the JSON.
set -uo pipefail
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
GPUS=${GPUS:-0}
QUICK=0
COUNTS=""
CASES=weak,strong,assembled,batch
OUTDIR=${OUT:-$PWD/scaling-out}
P=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) GPUS=$2; shift ;;
    --counts) COUNTS=$2; shift ;;
    --quick) QUICK=1 ;;
    --cases) CASES=$2 ;;
    --out) OUTDIR=$2; shift ;;
    -h|--help) sed -n 2,26p "$0"; exit 0 ;;
    *) P=$1 ;;
  esac
  shift
done
P=${P:-build-gpu/apps/portla/portla}
[ -x "$P" ] || { echo "scaling-bench: no portla binary at $P (pass its path)" >&2; exit 1; }
mkdir -p "$OUTDIR"
# Each run's own JSON and stderr go to a scratch folder; a failed run's stderr is kept in OUTDIR.
RUNS=$(mktemp -d)
trap 'rm -rf "$RUNS"' EXIT
# NVLink multicast stays off on shared multi-GPU hosts (device/KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PORTLA_HALO)
export PORTLA_HALO=${PORTLA_HALO:-}
if [ "$QUICK" = 1 ]; then
  SIZE=96; STRONG=128; ASM=96; ITERS=50; SYSTEMS=4096; CPU=96
else
  SIZE=512; STRONG=768; ASM=465; ITERS=200; SYSTEMS=262144; CPU=216
fi
[ "$GPUS" -ge 1 ] || { [[ "$CASES" == cpu ]] || { echo "scaling-bench: no GPU" >&2; exit 1; }; }
RESULTS="$OUTDIR/scaling.jsonl"
: > "$RESULTS"
status=0

# run CASE GPUS EXTRA_JSON -- command...: appends {case, gpus, ..., result} to $RESULTS.
run() {
  local name=$1 g=$2 extra=$3
  shift 4
  local log="$RUNS/${name}_g${g}_$(date +%s%N).json"
  echo "== $name on $g: $*"
  "$@" > "$log" 2> "$log.err"
  local rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
    echo "   failed (exit $rc): $(tail -2 "$log.err")"; status=1
    cp "$log.err" "$OUTDIR/"; return
  fi
  python3 - "$log" "$name" "$g" "$extra" "$RESULTS" <<'PY'
import json, sys
path, name, g, extra, out = sys.argv[1:]
j = json.load(open(path))
# Per-system arrays of a batch (2^18 entries) stay in the run's own file, not in the summary.
j = {k: v for k, v in j.items() if not (isinstance(v, list) and len(v) > 16)}
row = {"case": name, "gpus": int(g), **json.loads(extra), "result": j}
tpi = j.get("time_per_iteration_s") or j.get("time_s")
print("   %s: n = %s, %s iterations, %.4f ms per iteration%s" % (
    j.get("problem", name), j.get("n", j.get("systems")),
    j.get("iterations") if isinstance(j.get("iterations"), int) else "-",
    1e3 * (tpi or 0), "" if "communication" not in j else
    ", allreduce %.1f%%, halo wait %.1f%% of the solve" % (
        100 * j["communication"]["allreduce_s"] / j["time_s"],
        100 * j["communication"]["halo_wait_s"] / j["time_s"])))
open(out, "a").write(json.dumps(row) + "\n")
PY
}

solve() {  # solve CASE G GRID [flags...]
  local name=$1 g=$2 grid=$3
  shift 3
  local common=(solve --generate "poisson3d:$grid" --solver cg --backend cuda --rtol 1e-14
                --max-iters "$ITERS" --json "$@")
  if [ "$g" = 1 ]; then
    run "$name" 1 '{"path": "single-device"}' -- "$P" "${common[@]}"
    run "$name" 1 '{"path": "distributed"}' -- "$P" "${common[@]}" --distributed
  else
    run "$name" "$g" '{"path": "distributed"}' -- "${MPIRUN[@]}" -np "$g" "$P" "${common[@]}"
  fi
}

COUNTS=${COUNTS:-$(seq -s, 1 "$GPUS")}
for g in ${COUNTS//,/ }; do
  if [[ ",$CASES," == *,weak,* ]]; then
    side=$(python3 -c "print(round($SIZE * $g ** (1 / 3)))")
    solve weak "$g" "$side"
  fi
  [[ ",$CASES," == *,strong,* ]] && solve strong "$g" "$STRONG"
  [[ ",$CASES," == *,assembled,* ]] && solve assembled "$g" "$ASM" --assembled --format csr
  if [[ ",$CASES," == *,batch,* ]]; then
    for class in data/pelelm/*/; do
      [ -d "$class" ] || { echo "== batch: no data/pelelm (run scripts/fetch-pelelm.sh)"; break; }
      cmd=(batch "$class" --replicate-to "$SYSTEMS" --solver bicgstab --precond jacobi
           --backend cuda --json)
      if [ "$g" = 1 ]; then
        run batch 1 "{\"class\": \"$(basename "$class")\"}" -- "$P" "${cmd[@]}"
      else
        run batch "$g" "{\"class\": \"$(basename "$class")\"}" -- "${MPIRUN[@]}" -np "$g" "$P" "${cmd[@]}"
      fi
    done
  fi
done

if [[ ",$CASES," == *,cpu,* ]]; then
  threads=${CPU_RANKS:-$(nproc)}
  cmd=(solve --generate "poisson3d:$CPU" --solver cg --backend omp --rtol 1e-14
       --max-iters "$ITERS" --json)
  run cpu-threads 0 "{\"ranks\": 1, \"threads\": $threads}" -- env OMP_NUM_THREADS="$threads" \
    OMP_PROC_BIND=close OMP_PLACES=cores "$P" "${cmd[@]}"
  run cpu-ranks 0 "{\"ranks\": $threads, \"threads\": 1}" -- "${MPIRUN[@]}" -x OMP_NUM_THREADS=1 \
    -np "$threads" --bind-to core "$P" "${cmd[@]}"
fi

# One JSON document: every run, then the speed-ups against one GPU per case and path.
python3 - "$RESULTS" "$OUTDIR/scaling.json" "${PORTLA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}" <<'PY'
import json, sys, datetime, subprocess
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def tpi(r):
    j = r["result"]
    return j.get("time_per_iteration_s") or j.get("time_s")
base = {}
for r in rows:
    if r["gpus"] == 1:
        base[(r["case"], r.get("path"), r.get("class"))] = r
summary = []
for r in rows:
    b = base.get((r["case"], "distributed" if r.get("path") else None, r.get("class")))
    b1 = base.get((r["case"], "single-device" if r.get("path") else None, r.get("class")))
    s = {"case": r["case"], "gpus": r["gpus"], "path": r.get("path"), "class": r.get("class"),
         "n": r["result"].get("n"), "time_per_iteration_s": tpi(r)}
    for key, ref in (("vs_one_gpu_distributed", b), ("vs_one_gpu_single_device", b1)):
        if ref and tpi(ref) and tpi(r):
            ratio = tpi(ref) / tpi(r)
            if r["case"] == "weak":  # per-GPU work held constant: time ratio, 1 is ideal
                ratio = tpi(r) / tpi(ref) * (ref["result"]["n"] * r["gpus"] / r["result"]["n"])
            s[key] = ratio
    summary.append(s)
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip().splitlines()
except OSError:
    gpu = []
doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": sys.argv[3],
       "gpus": gpu, "note": "weak: time per iteration relative to one GPU (scaled to equal work "
       "per GPU; 1.0 ideal); others: speed-up over one GPU", "summary": summary, "runs": rows}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
for s in summary:
    print("%-10s %-14s %-12s g=%d  %.4f ms/it  %s" % (
        s["case"], s.get("path") or "", s.get("class") or "", s["gpus"],
        1e3 * (s["time_per_iteration_s"] or 0),
        " ".join("%s=%.3f" % (k, v) for k, v in s.items() if k.startswith("vs_"))))
PY
exit $status
