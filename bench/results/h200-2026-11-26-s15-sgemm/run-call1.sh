#!/usr/bin/env bash
# Session 15's SGEMM call on the lent H100 (run from the repository root): build the CLI and
# test_gemm_cuda for sm_90, count the ring kernels' SASS, run test_gemm_cuda (and its float tests
# under every variant of PORTLA_GEMM_RING), time each variant against cuBLAS (pedantic fp32) in
# the same process (3 runs at 4096^3, the variant order rotated per run; 1 run at 2048^3 and
# 8192^3), profile s14's kernel, the chosen one and cuBLAS's with Nsight Compute, then
# compute-sanitizer memcheck of test_gemm_cuda if time is left.
#   usage: OUT=dir [VARIANTS="s14 rowa ..."] [MEASURE=1] [NCU=1] bench/results/.../sgemm/run.sh
set -uo pipefail
FINAL=${OUT:?}
OUT=$FINAL/raw
mkdir -p "$OUT/json" "$OUT/ncu"
export PATH=/usr/local/cuda/bin:$PATH
export PORTLA_COMMIT=$(cat .device-commit 2>/dev/null || echo unknown)
read -ra V <<< "${VARIANTS:-s14 step rowa rowau rowag16 rowas4 rowas2}"
BUILD=build-gpu
T0=$(date +%s)
pack() { tar czf "$FINAL/sgemm.tgz" -C "$OUT" . 2>/dev/null; }
step() { pack; echo "== $* ($(date -u +%H:%M:%S), +$(( $(date +%s) - T0 )) s)"; }
status=0

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee "$OUT/device.txt"
echo "commit $PORTLA_COMMIT" | tee -a "$OUT/device.txt"

step build
cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPORTLA_WITH_PYTHON=OFF > "$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
cmake --build $BUILD -j 16 --target portla_cli test_gemm_cuda > "$OUT/build.log" 2>&1 ||
  { grep -E "error" "$OUT/build.log" | head -20; pack; exit 1; }
grep -iE "warning" "$OUT/build.log" | head -5
P=$BUILD/apps/portla/portla

step "SASS of the float ring kernels"
obj=$(find $BUILD -name 'gemm_kernels.cu.o' | head -1)
cuobjdump -sass "$obj" > "$OUT/gemm_sass.txt" 2>&1
python3 - "$OUT/gemm_sass.txt" <<'PY' | tee "$OUT/sass_counts.txt"
import re, sys, collections
f, ins = None, collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.search(r'Function : (\S+)', line)
    if m: f = m.group(1); ins[f] = []; continue
    m = re.search(r'/\*([0-9a-f]{4,5})\*/\s+(.*?);', line)
    if f and m: ins[f].append((int(m.group(1), 16), m.group(2).strip()))
for f, body in ins.items():
    if not re.search(r'sgemm_ring', f): continue
    loops = []
    for addr, i in body:
        m = re.search(r'BRA (0x[0-9a-f]+)', i)
        if m and int(m.group(1), 16) < addr:
            lo = int(m.group(1), 16)
            loops.append(str(sum(1 for a, _ in body if lo <= a <= addr)))
    print(re.sub(r'.*?(sgemm_\w+?_kernel)', r'\1', f)[:100], len(body), 'loops:', ' '.join(loops))
PY
rm -f "$OUT/gemm_sass.txt"

step "test_gemm_cuda (default kernel), then the float tests under each variant (in parallel)"
$BUILD/tests/test_gemm_cuda > "$OUT/test_gemm_cuda.log" 2>&1 || status=1
echo "default: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$OUT/test_gemm_cuda.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]|Failure" "$OUT/test_gemm_cuda.log" | head -5
for v in "${V[@]}"; do
  PORTLA_GEMM_RING=$v $BUILD/tests/test_gemm_cuda --gtest_filter='Gemm/1.*' \
    > "$OUT/test_gemm_cuda_$v.log" 2>&1 &
done
wait
for v in "${V[@]}"; do
  echo "$v (float): $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$OUT/test_gemm_cuda_$v.log" | tr '\n' ' ')"
  grep -qE '^\[  PASSED  \] 7 tests' "$OUT/test_gemm_cuda_$v.log" || status=1
done

run_one() {  # variant size run
  PORTLA_GEMM_RING=$1 $P gemm --backend cuda --precision float --variant fast,vendor \
    --reps 20 --m $2 --n $2 --k $2 --json "$OUT/json/g_$1_$2_$3.json" > /dev/null 2>&1 ||
    { status=1; echo "failed: $1 $2 $3"; }
}
if [ "${MEASURE:-1}" = 1 ]; then
step "fast (each variant) then cuBLAS in one process: 3 runs at 4096, variant order rotated"
n=${#V[@]}
for run in 1 2 3; do
  for ((i = 0; i < n; i++)); do run_one "${V[$(( (i + run - 1) % n ))]}" 4096 $run; done
  nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$OUT/clocks.txt"
done
step "one run at 2048 and 8192"
for s in 2048 8192; do for v in "${V[@]}"; do run_one $v $s 1; done; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$OUT/clocks.txt"
python3 - "$OUT/json" <<'PY' | tee "$OUT/summary.txt"
import json, glob, os, sys, collections, statistics as st
r = collections.defaultdict(list); cub = collections.defaultdict(list)
for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    _, v, s, run = os.path.basename(p)[:-5].split('_')
    j = {x['variant']: x for x in json.load(open(p))}
    f, c = j['fast'], j['vendor']
    r[(v, int(s))].append((f['gflops'] / c['gflops'], f['gflops'], c['gflops'], f['relative_error']))
    cub[int(s)].append(c['gflops'])
print('fast / cuBLAS (same process), median of 20 calls each; TFLOP/s fast | cuBLAS; '
      'last column: mean fast over cuBLAS median of the size')
for (v, s), x in sorted(r.items(), key=lambda t: (t[0][1], t[0][0])):
    med = st.median(cub[s])
    print(f'{s:5d} {v:8s} ' + '  '.join(f'{q:.3f}' for q, *_ in x) + '   ' +
          '  '.join(f'{a/1e3:.2f}|{b/1e3:.2f}' for _, a, b, _ in x) +
          f'   err {max(e for *_, e in x):.1e}   {st.mean(a for _, a, _, _ in x)/med:.3f}')
for s in sorted(cub): print(f'cuBLAS {s}: {min(cub[s])/1e3:.2f}-{max(cub[s])/1e3:.2f}, median {st.median(cub[s])/1e3:.2f}')
PY
fi

if [ "${NCU:-1}" = 1 ]; then
step "Nsight Compute: s14, ${NCU_PICK:-rowa}, cuBLAS (4096^3, one kernel each)"
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
 --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis \
 --section MemoryWorkloadAnalysis --section SourceCounters"
prof() {  # name env-variant portla-variant kernel-filter...
  local name=$1 env=$2 var=$3; shift 3
  PORTLA_GEMM_RING=$env timeout 120 ncu --clock-control none $SECTIONS "$@" -o "$OUT/ncu/$name" \
    $P gemm --backend cuda --precision float --variant $var --reps 1 --m 4096 --n 4096 --k 4096 \
    > "$OUT/ncu/${name}_run.log" 2>&1 || echo "ncu $name failed"
  ncu --import "$OUT/ncu/$name.ncu-rep" --page details > "$OUT/ncu/${name}_details.txt" 2>&1
  ncu --import "$OUT/ncu/$name.ncu-rep" --page source --csv --print-source sass \
    > "$OUT/ncu/${name}_source.csv" 2>&1
  grep -E "^  [a-zA-Z_].*\(|Registers Per|Shared Memory Config|Block Size|Grid Size|Duration|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|Achieved Occ|No Eligible|Stall" \
    "$OUT/ncu/${name}_details.txt" | head -40
}
prof s14 s14 fast -k regex:ring -c 1
prof ${NCU_PICK:-rowa} ${NCU_PICK:-rowa} fast -k regex:ring -c 1
prof cublas rowa vendor -c 2
ls -la "$OUT/ncu" | head
fi

if [ $(( $(date +%s) - T0 )) -lt ${MEMCHECK_BEFORE:-330} ]; then
step "memcheck of test_gemm_cuda (default kernel)"
compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 $BUILD/tests/test_gemm_cuda \
  > "$OUT/memcheck_test_gemm_cuda.log" 2>&1 || status=1
echo "memcheck: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/memcheck_test_gemm_cuda.log" | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck_test_gemm_cuda.log" | tr '\n' ' ')"
else
  echo "memcheck skipped (time)"
fi
step done
echo "status $status"
exit $status
