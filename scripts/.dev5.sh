#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
B=build-gpu
R=$OUT/r; mkdir -p $R
echo "commit $(cat .device-commit)"
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1 || { tail -20 $R/cmake.log; exit 1; }
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1
(cmake --build build-py -j 6 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1 || grep -E "error" $R/build-py.log | head) &
cmake --build $B -j 12 --target portla_cli test_backend_cuda test_cg_device test_cli > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; }
wait
echo "build $(( $(date +%s) - t0 )) s"
for t in test_cg_device test_backend_cuda; do $B/tests/$t > $R/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/$t.log | tr '\n' ' ')"; done
$B/tests/test_cli --gtest_filter='*AutoFormat*:*Cuda*:*Gpu*' > $R/test_cli.log 2>&1; echo "test_cli rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $R/test_cli.log | tr '\n' ' ')"
compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_cg_device --gtest_filter='*CsrAndEll*:*BlockSizes*:*IterationLimit*' > $R/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck.log | tr '\n' ' ')"
P=$B/apps/portla/portla
for g in 128 256; do for f in csr ell auto; do
  $P solve --generate poisson3d:$g --assembled --format $f --backend cuda --json > $R/cg_${g}_$f.json 2>&1
  python3 -c "import json; j=json.load(open('$R/cg_${g}_$f.json')); print('$g $f', j['format'], j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']), '%.2f ms' % (1e3*j['time_s']), j['reason'])"
done; done
$P solve --generate poisson3d:128 --backend cuda --json > $R/cg_128_mf.json; python3 -c "import json; j=json.load(open('$R/cg_128_mf.json')); print('128 matrix-free', j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']))"
PYTHONPATH=build-py/python timeout 300 python3 bench/peers.py --sizes 64,100,128 --matrices none --solvers cg --json $R/peers-cg.json > $R/peers.log 2>&1; echo "peers rc=$?"; grep -A12 "median ms" $R/peers.log
echo "total $(( $(date +%s) - t0 )) s"

$P bench spmv-csr --backend cuda,cusparse --sizes 2097152,16777216 --quiet 2>&1 | head -6
timeout 100 ncu --clock-control none --launch-skip 40 --launch-count 3 --section SpeedOfLight --section LaunchStats $P solve --generate poisson3d:128 --assembled --backend cuda --max-iters 60 > $OUT/ncu_ell.txt 2>&1
grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Grid Size|Waves" $OUT/ncu_ell.txt | head -30
tar czf $OUT/results.tgz -C $OUT r
