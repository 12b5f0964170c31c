#!/usr/bin/env bash
# Session 17 call 3: the device plan (cuda/csr_plan.cu): GPU tests + memcheck, the borrow's fixed
# cost (portla.scipy.cg, power-law), power-law CG per iteration (CLI, set-up times).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
echo "commit $(cat .device-commit) $(date -u +%T)"
( python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx > $R/matrix.log 2>&1; touch /tmp/pl.done ) &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device"
cmake --build $B -j 16 --target portla_cli $TESTS > $R/build.log 2>&1 || grep error $R/build.log | head
echo "== built $(date -u +%T)"
( cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" &&
  cmake --build build-py -j 8 --target _portla _portla_stub portla_python_files ) > $R/build-py.log 2>&1 &
PY=$!
timeout 200 $B/tests/test_backend_cuda --gtest_filter='Matrix*:Solvers*' > $R/test_backend_cuda.log 2>&1
timeout 200 $B/tests/test_cg_device > $R/test_cg_device.log 2>&1
for x in $TESTS; do
  echo "$x: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$x.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$x.log | head -4
done
grep -B3 -A10 "Failure" $R/test_backend_cuda.log $R/test_cg_device.log | head -30
mc() { local name=$1; shift; timeout 150 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc matrix $B/tests/test_backend_cuda --gtest_filter='Matrix*'
mc cg $B/tests/test_cg_device --gtest_filter='*PowerLaw*:*RowBlocks*'
timeout 100 compute-sanitizer --tool racecheck $B/tests/test_backend_cuda --gtest_filter='*CsrPlanOnTheDevice*' > $R/rc.log 2>&1; echo "racecheck: $(grep -E '^\[  (PASSED|FAILED)|RACECHECK SUMMARY' $R/rc.log | tr '\n' ' ')"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', d.get('relative_residual'), d.get('kernels',{}).get('cg.direction'), 'setup', d.get('setup'))" $1 2>/dev/null || tail -2 $1; }
while [ ! -f /tmp/pl.done ]; do sleep 1; done
for rep in 1 2; do
  timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$rep.json 2>&1; j $R/pl_$rep.json
done
wait $PY || { echo "build-py failed"; tail -5 $R/build-py.log; }
PYTHONPATH=build-py/python timeout 100 python3 .dev/s17/borrow_prof.py 2>&1 | tee $R/borrow.txt
tar czf $OUT/logs.tgz -C $R .
echo "== end $(date -u +%T)"
