#!/usr/bin/env bash
# Session 17 call 9: the review's mends (plan write pass guarded and checked against its count,
# more plan cases, the second-solve test at shift 1, PORTLA_CG_STENCIL digits, cluster-max test).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu
echo "commit $(cat .device-commit) $(date -u +%T)"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1
cmake --build $B -j 16 --target test_backend_cuda test_cg_device > $R/build.log 2>&1 || grep -E "error" $R/build.log | head
echo "== built $(date -u +%T)"
run() { local name=$1; shift; timeout 200 "$@" > $R/$name.log 2>&1; echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$name.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$name.log | head -6; }
run test_backend_cuda $B/tests/test_backend_cuda
run test_cg_device $B/tests/test_cg_device
grep -h -B2 -A12 "Failure" $R/*.log | head -30
timeout 120 compute-sanitizer --tool memcheck --leak-check full $B/tests/test_backend_cuda --gtest_filter='*CsrPlanOnTheDevice*:*SolvesAgain*:Blas1*Cluster*' > $R/mc.log 2>&1; echo "memcheck: $(grep -E '^\[  (PASSED|FAILED)' $R/mc.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc.log | tr '\n' ' ')"
tar czf $OUT/logs.tgz -C $R --exclude=build.log --exclude=cmake.log .
echo "== end $(date -u +%T)"
