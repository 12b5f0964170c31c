#!/usr/bin/env bash
# Session 17 call 4: GPU tests of the merged tree (device plan, s17-csr boundary/scratch, s17-env
# switches): every cuda test binary, the switch regressions, memcheck and racecheck.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu
echo "commit $(cat .device-commit) $(date -u +%T)"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device test_gemm_cuda test_csr_index_cuda test_batch_direct_cuda test_perron_cuda test_preconditioners_cuda test_ilu_cuda test_core"
cmake --build $B -j 16 --target portla_cli $TESTS test_cli > $R/build.log 2>&1 || grep -E "error" $R/build.log | head
echo "== built $(date -u +%T)"
run() { local name=$1; shift; timeout 240 "$@" > $R/$name.log 2>&1; echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$name.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$name.log | head -6; }
for x in $TESTS; do run $x $B/tests/$x; done
run cli_switch $B/tests/test_cli --gtest_filter='CliErrors.*'
PORTLA_BATCH_WARP_MAX_ROWS=0 run batch_warp0 $B/tests/test_backend_cuda --gtest_filter='Batch*'
PORTLA_BATCH_REGISTERS=0 run batch_reg0 $B/tests/test_backend_cuda --gtest_filter='Batch*'
PORTLA_CLUSTER_SUMS=off run cluster_off $B/tests/test_backend_cuda --gtest_filter='Blas1*'
echo "== tests done $(date -u +%T)"
grep -h -B2 -A12 "Failure" $R/*.log | head -40
mc() { local name=$1; shift; timeout 200 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc matrix $B/tests/test_backend_cuda --gtest_filter='Matrix*:Solvers*HubRows*:Solvers*SolvesAgain*'
mc cg $B/tests/test_cg_device --gtest_filter='*PowerLaw*:*RowBlocks*:*Switches*'
mc idx $B/tests/test_csr_index_cuda
timeout 150 compute-sanitizer --tool racecheck $B/tests/test_backend_cuda --gtest_filter='*CsrPlanOnTheDevice*:Solvers*SolvesAgain*:Matrix*LongRows*' > $R/rc.log 2>&1; echo "racecheck: $(grep -E '^\[  (PASSED|FAILED)|RACECHECK SUMMARY' $R/rc.log | tr '\n' ' ')"
tar czf $OUT/logs.tgz -C $R .
echo "== end $(date -u +%T)"
