#!/usr/bin/env bash
# Session 15's second SGEMM call (run from the repository root of the final commit's tree, with
# .s15/gemm_kernels_unrolled.cu and .s15/gemm_kernels_exp.cu beside it): build the CLI and
# test_gemm_cuda for sm_90; (1) the commit as it is: test_gemm_cuda, its memcheck, 3 processes
# fast,vendor at 4096^3 and one at 2048^3 and 8192^3, Nsight Compute of the ring kernel;
# (2) the candidate with the refilling K-tiles unrolled by the ring's length: the same tests and
# timings; (3) the experiment file (PORTLA_GEMM_RING picks s14's kernel, step = (1), stepu =
# (2), stepg16 = groups of 16 tile rows, steps4 = a ring of 4): 3 processes each at 4096^3, the
# order rotated, one at 8192^3.   usage: OUT=dir bench/results/.../sgemm/run-call2.sh
set -uo pipefail
FINAL=${OUT:?}
OUT=$FINAL/raw
mkdir -p "$OUT/json" "$OUT/ncu"
export PATH=/usr/local/cuda/bin:$PATH
export PORTLA_COMMIT=$(cat .device-commit 2>/dev/null || echo unknown)
BUILD=build-gpu
P=$BUILD/apps/portla/portla
T0=$(date +%s)
pack() { tar czf "$FINAL/sgemm.tgz" -C "$OUT" . 2>/dev/null; }
step() { pack; echo "== $* ($(date -u +%H:%M:%S), +$(( $(date +%s) - T0 )) s)"; }
status=0

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee "$OUT/device.txt"
echo "commit $PORTLA_COMMIT" | tee -a "$OUT/device.txt"
sha256sum src/cuda/gemm_kernels.cu .s15/*.cu | tee -a "$OUT/device.txt"

build() {  # targets...
  cmake --build $BUILD -j 16 --target "$@" > "$OUT/build.log" 2>&1 ||
    { grep -E "error" "$OUT/build.log" | head -20; pack; exit 1; }
  grep -iE "warning" "$OUT/build.log" | head -5
}
sass() {  # name
  cuobjdump -sass "$(find $BUILD -name 'gemm_kernels.cu.o' | head -1)" > "$OUT/sass.txt" 2>&1
  python3 - "$OUT/sass.txt" "$1" <<'PY' | tee -a "$OUT/sass_counts.txt"
import re, sys, collections
f, ins = None, collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.search(r'Function : (\S+)', line)
    if m: f = m.group(1); ins[f] = []; continue
    m = re.search(r'/\*([0-9a-f]{4,5})\*/\s+(.*?);', line)
    if f and m: ins[f].append((int(m.group(1), 16), m.group(2).strip()))
for f, body in ins.items():
    if not re.search(r'sgemm_ring', f): continue
    loops = [str(sum(1 for a, _ in body if int(m.group(1), 16) <= a <= addr))
             for addr, i in body for m in [re.search(r'BRA (0x[0-9a-f]+)', i)]
             if m and int(m.group(1), 16) < addr]
    print(sys.argv[2], re.sub(r'.*?(sgemm_\w+?_kernel)', r'\1', f)[:90], len(body), 'loops:', *loops)
PY
  rm -f "$OUT/sass.txt"
}
tests() {  # name
  $BUILD/tests/test_gemm_cuda > "$OUT/test_gemm_cuda_$1.log" 2>&1 || status=1
  echo "test_gemm_cuda ($1): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$OUT/test_gemm_cuda_$1.log" | tr '\n' ' ')"
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 $BUILD/tests/test_gemm_cuda \
    > "$OUT/memcheck_test_gemm_cuda_$1.log" 2>&1 || status=1
  echo "memcheck ($1): $(grep -E '^\[  (PASSED|FAILED)' "$OUT/memcheck_test_gemm_cuda_$1.log" | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck_test_gemm_cuda_$1.log" | tr '\n' ' ')"
}
run_one() {  # name PORTLA_GEMM_RING size run
  PORTLA_GEMM_RING=$2 $P gemm --backend cuda --precision float --variant fast,vendor \
    --reps 20 --m $3 --n $3 --k $3 --json "$OUT/json/g_$1_$3_$4.json" > /dev/null 2>&1 ||
    { status=1; echo "failed: $1 $3 $4"; }
}
clocks() { nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$OUT/clocks.txt"; }

step "build (the commit)"
cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPORTLA_WITH_PYTHON=OFF > "$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
build portla_cli test_gemm_cuda
sass final
step "(1) the commit: tests, memcheck, timings"
tests final
for run in 1 2 3; do run_one final "" 4096 $run; done
run_one final "" 2048 1; run_one final "" 8192 1; clocks
step "Nsight Compute of the ring kernel (the commit)"
timeout 90 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section InstructionStats \
  --section MemoryWorkloadAnalysis --section SourceCounters -k regex:ring -c 1 -o "$OUT/ncu/final" \
  $P gemm --backend cuda --precision float --variant fast --reps 1 --m 4096 --n 4096 --k 4096 \
  > "$OUT/ncu/final_run.log" 2>&1 || echo "ncu failed"
ncu --import "$OUT/ncu/final.ncu-rep" --page details > "$OUT/ncu/final_details.txt" 2>&1
ncu --import "$OUT/ncu/final.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu/final_source.csv" 2>&1
rm -f "$OUT/ncu/final.ncu-rep"
grep -E "Duration|Issue Slots Busy|Issued Warp Per|No Eligible|Eligible Warps|Executed Instructions  " "$OUT/ncu/final_details.txt"

step "(2) the unrolled candidate"
cp .s15/gemm_kernels_unrolled.cu src/cuda/gemm_kernels.cu
build portla_cli test_gemm_cuda
sass unrolled
tests unrolled
for run in 1 2 3; do run_one unrolled "" 4096 $run; done
run_one unrolled "" 8192 1; clocks

if [ $(( $(date +%s) - T0 )) -lt 330 ]; then
step "(3) the experiment file: s14 step stepu stepg16 steps4"
cp .s15/gemm_kernels_exp.cu src/cuda/gemm_kernels.cu
build portla_cli
sass exp
V=(s14 step stepu stepg16 steps4); n=${#V[@]}
for run in 1 2 3; do
  for ((i = 0; i < n; i++)); do v=${V[$(( (i + run - 1) % n ))]}; run_one x$v $v 4096 $run; done
  clocks
done
for v in "${V[@]}"; do [ $(( $(date +%s) - T0 )) -lt 440 ] && run_one x$v $v 8192 1; done
else echo "(3) skipped (time)"; fi

step summary
python3 - "$OUT/json" <<'PY' | tee "$OUT/summary.txt"
import json, glob, os, sys, collections, statistics as st
r = collections.defaultdict(list); cub = collections.defaultdict(list)
for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    _, v, s, run = os.path.basename(p)[:-5].split('_')
    j = {x['variant']: x for x in json.load(open(p))}
    f, c = j['fast'], j['vendor']
    r[(v, int(s))].append((f['gflops'] / c['gflops'], f['gflops'], c['gflops'], f['relative_error']))
    cub[int(s)].append(c['gflops'])
print('fast / cuBLAS (same process), median of 20 calls each; TFLOP/s fast | cuBLAS; last two: '
      'min and mean fast over the median of cuBLAS over the call at that size')
for (v, s), x in sorted(r.items(), key=lambda t: (t[0][1], t[0][0])):
    med = st.median(cub[s])
    print(f'{s:5d} {v:9s} ' + '  '.join(f'{q:.3f}' for q, *_ in x) + '   ' +
          '  '.join(f'{a/1e3:.2f}|{b/1e3:.2f}' for _, a, b, _ in x) +
          f'   err {max(e for *_, e in x):.1e}   {min(a for _, a, _, _ in x)/med:.3f} {st.mean(a for _, a, _, _ in x)/med:.3f}')
for s in sorted(cub): print(f'cuBLAS {s}: {min(cub[s])/1e3:.2f}-{max(cub[s])/1e3:.2f}, median {st.median(cub[s])/1e3:.2f} ({len(cub[s])} processes)')
PY
step done
echo "status $status"
exit $status
