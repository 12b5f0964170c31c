#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
B=build-gpu
R=$OUT/r; mkdir -p $R
echo "commit $(cat .device-commit)"; nvidia-smi -L
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1 || { tail -20 $R/cmake.log; exit 1; }
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1 || { tail -20 $R/cmake-py.log; }
cmake --build $B -j 16 --target portla_cli test_backend_cuda test_cg_device test_real_matrices_cuda test_preconditioners_cuda > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; exit 1; }
cmake --build build-py -j 16 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1 || { grep -E "error" $R/build-py.log | head -20; }
echo "build $(( $(date +%s) - t0 )) s"
for t in test_backend_cuda test_cg_device test_real_matrices_cuda test_preconditioners_cuda; do
  $B/tests/$t > $R/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)|^\[  FAILED' $R/$t.log | tr '\n' ' ')"
done
echo "tests $(( $(date +%s) - t0 )) s"
for t in test_backend_cuda test_cg_device; do
  timeout 240 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 $B/tests/$t > $R/memcheck_$t.log 2>&1
  echo "memcheck $t rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY|LEAK SUMMARY' $R/memcheck_$t.log | tr '\n' ' ')"
done
echo "memcheck $(( $(date +%s) - t0 )) s"
PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD timeout 300 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.log 2>&1; echo "pytest rc=$?"; tail -40 $R/pytest.log
echo "pytest $(( $(date +%s) - t0 )) s"
PYTHONPATH=build-py/python timeout 240 python3 bench/peers.py --sizes 64,100,128 --matrices none --solvers cg --json $R/peers-cg.json > $R/peers.log 2>&1; echo "peers rc=$?"; tail -30 $R/peers.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
