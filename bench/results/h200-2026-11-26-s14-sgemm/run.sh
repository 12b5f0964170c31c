#!/usr/bin/env bash
# Session 14's SGEMM call on the lent H100 (run from the repository root): build the CLI and
# test_gemm_cuda for sm_90, count the fast kernels' SASS, run test_gemm_cuda (every ring
# variant on the float tests), time the variants against cuBLAS (pedantic fp32) in the same
# process, 3 runs x 3 sizes, then test_gemm_cuda under compute-sanitizer memcheck.
#   usage: OUT=dir VARIANTS="regs a8s2 ..." [MEASURE=0] bench/results/.../sgemm/run.sh
set -uo pipefail
FINAL=${OUT:?}
OUT=$FINAL/raw
mkdir -p "$OUT/json"
export PATH=/usr/local/cuda/bin:$PATH
export PORTLA_COMMIT=$(cat .device-commit 2>/dev/null || echo unknown)
VARIANTS=${VARIANTS:-"regs a8s2 a8s3 a16s2 a16s3"}
BUILD=build-gpu
pack() { tar czf "$FINAL/sgemm.tgz" -C "$OUT" . 2>/dev/null; }
step() { pack; echo "== $* ($(date -u +%H:%M:%S))"; }
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

step "SASS of the float fast kernels"
obj=$(find $BUILD -name 'gemm_kernels.cu.o' | head -1)
cuobjdump -sass "$obj" > "$OUT/gemm_sass.txt" 2>&1
python3 - "$OUT/gemm_sass.txt" <<'PY' | tee "$OUT/sass_counts.txt"
import re, sys, collections
f, cnt = None, collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    m = re.search(r'Function : (\S+)', line)
    if m: f = m.group(1); continue
    if not f or not re.search(r'sgemm_(ring|fast)', f): continue
    m = re.search(r'/\*[0-9a-f]{4}\*/\s+(@!?U?P[T0-9]\s+)?([A-Z0-9_]+)', line)
    if m: cnt[f][m.group(2)] += 1
for f, c in cnt.items():
    name = re.sub(r'.*?(sgemm_\w+?_kernel)', r'\1', f)[:60]
    print(name, sum(c.values()), ' '.join(f'{k}:{v}' for k, v in c.most_common(12)))
PY

step "test_gemm_cuda (default kernel), then the float tests under each ring variant"
$BUILD/tests/test_gemm_cuda > "$OUT/test_gemm_cuda.log" 2>&1 || status=1
echo "default: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$OUT/test_gemm_cuda.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]|Failure" "$OUT/test_gemm_cuda.log" | head -5
for v in $VARIANTS; do
  PORTLA_GEMM_RING=$v $BUILD/tests/test_gemm_cuda --gtest_filter='Gemm/1.*' \
    > "$OUT/test_gemm_cuda_$v.log" 2>&1 || status=1
  echo "$v (float): $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$OUT/test_gemm_cuda_$v.log" | tr '\n' ' ')"
done

if [ "${MEASURE:-1}" = 1 ]; then
step "fast (each variant) and vendor in one process, 3 runs x 2048, 4096, 8192"
for run in 1 2 3; do
  for s in 2048 4096 8192; do
    for v in $VARIANTS; do
      PORTLA_GEMM_RING=$v $P gemm --backend cuda --precision float --variant fast,vendor \
        --reps 20 --m $s --n $s --k $s --json "$OUT/json/g_${v}_${s}_$run.json" > /dev/null 2>&1 ||
        { status=1; echo "failed: $v $s $run"; }
    done
  done
  nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$OUT/clocks.txt"
done
python3 - "$OUT/json" <<'PY' | tee "$OUT/summary.txt"
import json, glob, os, sys, collections
r = collections.defaultdict(list)
for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    _, v, s, run = os.path.basename(p)[:-5].split('_')
    j = {x['variant']: x for x in json.load(open(p))}
    f, c = j['fast'], j['vendor']
    r[(v, int(s))].append((f['gflops'] / c['gflops'], f['gflops'], c['gflops'], f['relative_error']))
print('fast / cuBLAS (same process), median of 20 calls each; three runs; TFLOP/s fast | cuBLAS')
for (v, s), x in sorted(r.items(), key=lambda t: (t[0][1], t[0][0])):
    print(f'{s:5d} {v:6s} ' + '  '.join(f'{q:.3f}' for q, *_ in x) + '   ' +
          '  '.join(f'{a/1e3:.1f}|{b/1e3:.1f}' for _, a, b, _ in x) + f'   err {max(e for *_, e in x):.1e}')
PY
fi

step "memcheck of test_gemm_cuda (default kernel)"
compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 $BUILD/tests/test_gemm_cuda \
  > "$OUT/memcheck_test_gemm_cuda.log" 2>&1 || status=1
echo "memcheck: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/memcheck_test_gemm_cuda.log" | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck_test_gemm_cuda.log" | tr '\n' ' ')"
step done
echo "status $status"
exit $status
