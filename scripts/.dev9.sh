#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build-gpu; R=$OUT/r; mkdir -p $R; P=$B/apps/portla/portla
echo "commit $(cat .device-commit)"; t0=$(date +%s)
(cd $B && timeout 300 ctest -j 8 -I 0,0,0,$(cat ../.rest-tests) --output-on-failure > $R/ctest_rest.log 2>&1); grep -E "tests passed|\(Failed\)|Timeout|Not Run" $R/ctest_rest.log | head -20
echo "ctest $(( $(date +%s) - t0 )) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_cg_device > $R/memcheck_cg.log 2>&1; echo "memcheck cg rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck_cg.log | tr '\n' ' ')"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $B/tests/test_backend_cuda --gtest_filter='Matrix*:Solvers*' > $R/memcheck_m.log 2>&1; echo "memcheck matrix rc=$? $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' $R/memcheck_m.log | tr '\n' ' ')"
for g in 128 256; do for f in csr auto; do
  $P solve --generate poisson3d:$g --assembled --format $f --backend cuda --json > $R/cg_${g}_$f.json 2>&1
  python3 -c "import json; j=json.load(open('$R/cg_${g}_$f.json')); print('$g $f', j['format'], j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']), '%.2f ms' % (1e3*j['time_s']))"
done; done
$P bench spmv-csr --backend cuda,cusparse --sizes 2097152,16777216 --json $R/spmv.json --quiet 2>&1 | head -6
PYTHONPATH=build-py/python timeout 200 python3 bench/peers.py --sizes 100,128 --matrices none --solvers cg --json $R/peers-cg.json > $R/peers.log 2>&1; grep -A8 "median ms" $R/peers.log
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
