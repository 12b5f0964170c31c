#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
B=build-gpu
R=$OUT/r; mkdir -p $R
echo "commit $(cat .device-commit)"
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1 || { tail -20 $R/cmake.log; exit 1; }
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1
(cmake --build build-py -j 8 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1 || grep -E "error" $R/build-py.log | head) &
cmake --build $B -j 10 --target portla_cli test_backend_cuda > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; exit 1; }
wait
echo "build $(( $(date +%s) - t0 )) s"
$B/tests/test_backend_cuda > $R/test_backend_cuda.log 2>&1; echo "test_backend_cuda rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/test_backend_cuda.log | tr '\n' ' ')"
compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_backend_cuda --gtest_filter='*Borrow*' > $R/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck.log | tr '\n' ' ')"
P=$B/apps/portla/portla
$P bench spmv-csr --backend cuda,cusparse --sizes 2097152,16777216 --json $R/spmv.json --quiet > $R/spmv.txt 2>&1; cat $R/spmv.txt | tail -12
for g in 128 256; do for f in csr ell; do
  $P solve --generate poisson3d:$g --assembled --format $f --backend cuda --json > $R/cg_${g}_$f.json 2>&1
  python3 -c "import json; j=json.load(open('$R/cg_${g}_$f.json')); print('$g $f', j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']), j['reason'])"
done; done
PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_gpu.py > $R/pytest.log 2>&1; echo "pytest gpu rc=$?"; tail -3 $R/pytest.log
PYTHONPATH=build-py/python timeout 300 python3 bench/peers.py --sizes 64,100,128 --matrices none --solvers cg --json $R/peers-cg.json > $R/peers.log 2>&1; echo "peers rc=$?"; grep -E "poisson|ms" $R/peers.log | grep -v "E1124\|XLA" | tail -20
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
