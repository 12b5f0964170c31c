#!/usr/bin/env bash
# Session 17 call 5: GPU tests of the merged tree (device plan rewritten, s17-csr, s17-env,
# cluster_sum's entry barrier), memcheck, racecheck; dot T0 (cluster sums) against cuBLAS;
# power-law CG per iteration and set-up (CLI).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
echo "commit $(cat .device-commit) $(date -u +%T)"
( python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx > $R/matrix.log 2>&1; touch /tmp/pl.done ) &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device test_gemm_cuda test_csr_index_cuda test_batch_direct_cuda test_perron_cuda test_preconditioners_cuda test_ilu_cuda test_core"
cmake --build $B -j 16 --target portla_cli $TESTS test_cli > $R/build.log 2>&1 || grep -E "error" $R/build.log | head
echo "== built $(date -u +%T)"
run() { local name=$1; shift; timeout 240 "$@" > $R/$name.log 2>&1; echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$name.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$name.log | head -6; }
for x in $TESTS; do run $x $B/tests/$x; done
run cli_switch $B/tests/test_cli --gtest_filter='CliErrors.*'
PORTLA_BATCH_WARP_MAX_ROWS=0 run batch_warp0 $B/tests/test_backend_cuda --gtest_filter='Batch*'
PORTLA_BATCH_REGISTERS=0 run batch_reg0 $B/tests/test_backend_cuda --gtest_filter='Batch*'
PORTLA_CLUSTER_SUMS=off run cluster_off $B/tests/test_backend_cuda --gtest_filter='Blas1*:Solvers*'
echo "== tests done $(date -u +%T)"
grep -h -B2 -A12 "Failure" $R/*.log | head -30
mc() { local name=$1; shift; timeout 200 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc matrix $B/tests/test_backend_cuda --gtest_filter='Matrix*:Solvers*HubRows*:Solvers*SolvesAgain*:Blas1*'
mc cg $B/tests/test_cg_device --gtest_filter='*PowerLaw*:*RowBlocks*:*Switches*'
rc() { local name=$1; shift; timeout 150 compute-sanitizer --tool racecheck "$@" > $R/rc_$name.log 2>&1; echo "racecheck $name: $(grep -E '^\[  (PASSED|FAILED)|RACECHECK SUMMARY' $R/rc_$name.log | tr '\n' ' ')"; }
rc plan $B/tests/test_backend_cuda --gtest_filter='*CsrPlanOnTheDevice*:Solvers*SolvesAgain*:Matrix*LongRows*:Blas1*'
echo "== sanitizers done $(date -u +%T)"
timeout 90 $P bench dot --backend cuda,cublas --sizes 2^10:2^22 --reps 40 --max-time 0.2 --calls-per-sample 20 --quiet --json $R/dot_stream.json > $R/dot_stream.txt 2>&1; sed -n '/^model/,$p' $R/dot_stream.txt
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', d.get('relative_residual'), d.get('kernels',{}).get('cg.direction'), 'setup', d.get('setup'))" $1 2>/dev/null || tail -2 $1; }
while [ ! -f /tmp/pl.done ]; do sleep 1; done
for rep in 1 2; do
  timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$rep.json 2>&1; j $R/pl_$rep.json
done
tar czf $OUT/logs.tgz -C $R .
echo "== end $(date -u +%T)"
