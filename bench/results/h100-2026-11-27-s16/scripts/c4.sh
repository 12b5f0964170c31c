#!/usr/bin/env bash
# Session 16 call 4: row blocks in the library: tests + memcheck, power-law CG per iteration,
# CuPy on the same matrix; standalone bench on Poisson 128^3 CSR (blocks vs groups).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
echo "commit $(cat .device-commit) $(date -u +%T)"
( python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx --cupy $R/cupy.json > $R/matrix.log 2>&1; touch /tmp/pl.done ) &
( python3 .dev/s16/plbin.py /tmp/poi poisson > /tmp/plbin.log 2>&1; nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s16/spmv_bench.cu -lcusparse -o /tmp/spmv_bench >> /tmp/plbin.log 2>&1 ) &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device"
cmake --build $B -j 16 --target portla_cli $TESTS > $R/build.log 2>&1 || grep error $R/build.log | head
echo "== built $(date -u +%T)"
for x in $TESTS; do
  timeout 150 $B/tests/$x > $R/$x.log 2>&1
  echo "$x: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$x.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$x.log | head -4
done
grep -B2 -A8 "Failure" $R/test_backend_cuda.log | head -30
mc() { local name=$1; shift; timeout 120 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc hubs $B/tests/test_backend_cuda --gtest_filter='*HubRows*:*LongRows*'
mc cg_pl $B/tests/test_cg_device --gtest_filter='*PowerLaw*'
timeout 60 compute-sanitizer --tool racecheck $B/tests/test_backend_cuda --gtest_filter='*LongRows*' > $R/rc.log 2>&1; echo "racecheck: $(grep -E '^\[  (PASSED|FAILED)|RACECHECK SUMMARY' $R/rc.log | tr '\n' ' ')"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', d.get('relative_residual'), d.get('kernels',{}).get('cg.direction'))" $1 2>/dev/null || tail -2 $1; }
while [ ! -f /tmp/pl.done ]; do sleep 1; done
tail -1 $R/matrix.log
for v in on off on; do
  PORTLA_CSR_SPLIT=$v timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$v.json 2>&1; j $R/pl_$v.json
done
for rep in 1 2; do
  $P solve --generate poisson3d:128 --assembled --format csr --backend cuda --json > $R/csr128.json 2>&1; j $R/csr128.json
done
wait; cat /tmp/plbin.log
timeout 60 /tmp/spmv_bench /tmp/poi | grep -vE "^P |persist"
echo "== end $(date -u +%T)"
