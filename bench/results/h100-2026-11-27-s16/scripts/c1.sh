#!/usr/bin/env bash
# Session 16, lead call 1 (H100): GPU tests of 3fa3b15 (+memcheck), MF 512^3, z-split A/B,
# power-law profile (ncu of one iteration's kernels), cuSPARSE/CuPy on the same matrix.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
t() { tar czf $OUT/s16c1.tgz -C $R --exclude='*.json' . ; }
echo "commit $(cat .device-commit) $(date -u +%T)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx --cupy $R/cupy.json > $R/matrix.log 2>&1; touch /tmp/pl.done ) &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
TESTS="test_backend_cuda test_cg_device test_gemm_cuda test_csr_index_cuda test_real_matrices_cuda"
cmake --build $B -j 16 --target portla_cli $TESTS > $R/build.log 2>&1 || grep error $R/build.log | head
echo "== built $(date -u +%T)"
for x in $TESTS; do
  timeout 150 $B/tests/$x > $R/$x.log 2>&1
  echo "$x: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' $R/$x.log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $R/$x.log | head -4
done
t
echo "== memcheck $(date -u +%T)"
mc() { local name=$1; shift; timeout 120 compute-sanitizer --tool memcheck --leak-check full "$@" > $R/mc_$name.log 2>&1; echo "memcheck $name: $(grep -E '^\[  (PASSED|FAILED)' $R/mc_$name.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $R/mc_$name.log | tr '\n' ' ')"; }
mc hubs $B/tests/test_backend_cuda --gtest_filter='*HubRows*:*LongRows*'
mc cg_pl $B/tests/test_cg_device --gtest_filter='*PowerLaw*:*Stencil*'
t
echo "== mf $(date -u +%T)"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', d.get('kernels',{}).get('cg.direction'))" $1 2>/dev/null || tail -2 $1; }
for rep in 1 2; do
  $P solve --generate poisson3d:512 --backend cuda --max-iters 200 --json > $R/mf512_$rep.json 2>&1; j $R/mf512_$rep.json
  PORTLA_CG_STENCIL=ring:256 $P solve --generate poisson3d:512 --backend cuda --max-iters 200 --json > $R/mf512z_$rep.json 2>&1; j $R/mf512z_$rep.json
done
for rep in 1 2; do for s in "" ring:2 ring:4; do
  PORTLA_CG_STENCIL=$s $P solve --generate poisson3d:128 --backend cuda --json > $R/mf128_$rep.json 2>&1; echo -n "128 [$s] "; j $R/mf128_$rep.json
done; done
t
echo "== power-law $(date -u +%T)"
while [ ! -f /tmp/pl.done ]; do sleep 1; done
tail -2 $R/matrix.log
for v in on off on; do
  PORTLA_CSR_SPLIT=$v timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$v.json 2>&1; j $R/pl_$v.json
done
timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format ell --rtol 1e-8 --max-iters 600 --json > $R/pl_ell.json 2>&1; j $R/pl_ell.json
t
echo "== ncu $(date -u +%T)"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread
timeout 120 ncu --launch-skip 60 --launch-count 6 --metrics $M $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --max-iters 40 --rtol 0 > $R/ncu_on.txt 2>&1
grep -vE "^==PROF==|^\s*$" $R/ncu_on.txt | grep -E "cg_|csr|kernel|Kernel|duration|dram__|lts__|l1tex|sm__|launch__" | head -120
t
echo "== end $(date -u +%T)"
