#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
B=build-gpu; R=$OUT/r; mkdir -p $R; P=$B/apps/portla/portla
echo "commit $(cat .device-commit)"; t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1 || { tail $R/cmake.log; exit 1; }
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1
(cmake --build build-py -j 4 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1 || grep error $R/build-py.log | head) &
cmake --build $B -j 12 --target portla_cli test_backend_cuda test_cg_device test_cli > $R/build.log 2>&1 || grep -E "error" $R/build.log | head -20
wait; echo "build $(( $(date +%s) - t0 )) s"
for t in test_cg_device test_backend_cuda; do $B/tests/$t > $R/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/$t.log | tr '\n' ' ')"; done
$B/tests/test_cli --gtest_filter='CliSolve.*' > $R/test_cli.log 2>&1; echo "test_cli CliSolve rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $R/test_cli.log | tr '\n' ' ')"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_cg_device > $R/memcheck_cg.log 2>&1; echo "memcheck cg rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck_cg.log | tr '\n' ' ')"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_backend_cuda --gtest_filter='Blas1*' > $R/memcheck_b.log 2>&1; echo "memcheck blas1 rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck_b.log | tr '\n' ' ')"
echo "tests $(( $(date +%s) - t0 )) s"
for g in 128 256; do for f in csr auto; do for how in "" pass; do
  PORTLA_CG_DIRECTION=$how $P solve --generate poisson3d:$g --assembled --format $f --backend cuda --json > $R/cg_${g}_${f}_${how:-default}.json 2>&1
  python3 -c "import json; j=json.load(open('$R/cg_${g}_${f}_${how:-default}.json')); print('$g $f ${how:-default}', j['format'], j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']))"
done; done; done
timeout 150 $P bench axpby dot fused-cg --backend cuda,cublas --sizes 2^12:2^27 --json $R/blas1.json > $R/blas1.txt 2>&1; grep -A12 "model T" $R/blas1.txt
echo "bench $(( $(date +%s) - t0 )) s"
PYTHONPATH=build-py/python timeout 150 python3 bench/peers.py --sizes 100,128 --matrices none --solvers cg --json $R/peers-cg.json > $R/peers.log 2>&1; grep -A8 "median ms" $R/peers.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
