#!/usr/bin/env bash
# Session 16 call 6: row blocks for every 32-bit CSR: GPU tests + memcheck + Python GPU tests,
# CG timings (power-law, Poisson 128^3 CSR with blocks and with PORTLA_CSR_SPLIT=off, ELL).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
echo "commit $(cat .device-commit) $(date -u +%T)"
( python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx > $R/matrix.log 2>&1; touch /tmp/pl.done ) &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device test_csr_index_cuda test_real_matrices_cuda"
cmake --build $B -j 16 --target portla_cli $TESTS > $R/build.log 2>&1 || grep error $R/build.log | head
echo "== built $(date -u +%T)"
( cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1 && cmake --build build-py -j 8 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1; touch /tmp/py.done ) &
for x in $TESTS; do
  timeout 200 $B/tests/$x > $R/$x.log 2>&1
  echo "$x: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$x.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$x.log | head -4
done
grep -B3 -A10 "Failure" $R/test_backend_cuda.log $R/test_cg_device.log | head -40
mc() { local name=$1; shift; timeout 150 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc matrix $B/tests/test_backend_cuda --gtest_filter='Matrix*:*HubRows*:*Csr*'
mc cg $B/tests/test_cg_device --gtest_filter='*PowerLaw*:*Csr*:*IterationLimit*:*Lanes*:*Work*'
timeout 60 compute-sanitizer --tool racecheck $B/tests/test_backend_cuda --gtest_filter='*LongRows*' > $R/rc.log 2>&1; echo "racecheck: $(grep -E '^\[  (PASSED|FAILED)|RACECHECK SUMMARY' $R/rc.log | tr '\n' ' ')"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', d.get('relative_residual'), d.get('kernels',{}).get('cg.direction'))" $1 2>/dev/null || tail -2 $1; }
for rep in 1 2; do
  $P solve --generate poisson3d:128 --assembled --format csr --backend cuda --json > $R/csr128_$rep.json 2>&1; j $R/csr128_$rep.json
  PORTLA_CSR_SPLIT=off $P solve --generate poisson3d:128 --assembled --format csr --backend cuda --json > $R/csr128off_$rep.json 2>&1; j $R/csr128off_$rep.json
  $P solve --generate poisson3d:128 --assembled --backend cuda --json > $R/ell128_$rep.json 2>&1; j $R/ell128_$rep.json
done
$P solve --generate poisson3d:160 --assembled --format csr --backend cuda --json > $R/csr160.json 2>&1; j $R/csr160.json
$P solve --generate poisson3d:160 --assembled --backend cuda --json > $R/ell160.json 2>&1; j $R/ell160.json
while [ ! -f /tmp/pl.done ]; do sleep 1; done
for rep in 1 2; do
  timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$rep.json 2>&1; j $R/pl_$rep.json
done
while [ ! -f /tmp/py.done ]; do sleep 1; done
grep -E "error" $R/build-py.log | head -5
PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.log 2>&1; grep -E "passed|failed|^FAILED" $R/pytest.log | tail -5
echo "== end $(date -u +%T)"
