#!/usr/bin/env bash
# s15batch device call 1: build new + base, batch tests, svg (register variants), ncu, pelelm, sizes, memcheck
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
W=/tmp/ws15b; rm -rf $W; mkdir -p $W/json
pack() { tar czf $OUT/r2.tgz -C $W . ; }
el() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( 455 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > $W/device.txt
cat .device-commit > $W/commit.txt; date -u > $W/date.txt
( cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $W/cmake.log 2>&1 &&
  cmake --build build-gpu -j12 --target portla_cli test_backend_cuda > $W/build.log 2>&1 ) &
NEWPID=$!
( cd ../base && cmake -S . -B build-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF -DPORTLA_WITH_TESTS=OFF > $W/cmake-base.log 2>&1 &&
  cmake --build build-base -j8 --target portla_cli > $W/build-base.log 2>&1 ) &
BASEPID=$!
wait $NEWPID || { el "new build failed"; grep -E "error" $W/build.log | head -20; pack; exit 1; }
wait $BASEPID || { el "base build failed"; grep -E "error" $W/build-base.log | head -20; }
el "built"
NEW=build-gpu/apps/portla/portla; BASE=../base/build-base/apps/portla/portla
TB=build-gpu/tests/test_backend_cuda
F='--gtest_filter=Batch*'
$TB $F > $W/test_default.log 2>&1; el "tests default: $(grep -E '^\[  (PASSED|FAILED) ' $W/test_default.log | tr '\n' ' ')"; grep "^\[  FAILED" $W/test_default.log | head
PORTLA_BATCH_WARP_MAX_ROWS=0 $TB $F > $W/test_block.log 2>&1; el "tests block: $(grep -E '^\[  (PASSED|FAILED) ' $W/test_block.log | tr '\n' ' ')"; grep "^\[  FAILED" $W/test_block.log | head
PORTLA_BATCH_REGISTERS=0 $TB $F > $W/test_noreg.log 2>&1; el "tests noreg: $(grep -E '^\[  (PASSED|FAILED) ' $W/test_noreg.log | tr '\n' ' ')"; grep "^\[  FAILED" $W/test_noreg.log | head
pack
bench() {
  local label=$1 bin=$2 envs=$3; shift 3
  local ts=() it="" conv=""
  for r in $(seq $REPS); do
    env $envs $bin batch "$@" --json > $W/one.json 2>$W/one.err
    read t it conv < <(python3 -c "import json;j=json.load(open('$W/one.json'));print(j['time_s'],j['iterations_mean'],j['num_converged'])" 2>/dev/null || echo "nan nan nan")
    ts+=($t)
  done
  python3 -c "import json;j=json.load(open('$W/one.json'));[j.pop(k,None) for k in ('iterations','residual_norm','rhs_norm','converged','reason')];json.dump(j,open('$W/json/$(echo $label | tr ' =' '__').json','w'))" 2>/dev/null
  local med=$(python3 -c "import statistics,sys;print('%.4f'%(1e3*statistics.median([float(x) for x in sys.argv[1:]])))" "${ts[@]}")
  echo "$label|$med|$it|$conv|${ts[*]}" | tee -a $W/bench.txt
}
B17=131072
REPS=3
el "== shared_vs_global n=64 2^17"
for s in cg bicgstab; do
  for v in "base|$BASE|X=0|" "base|$BASE|X=0|--global-memory" "new|$NEW|X=0|" "new|$NEW|X=0|--global-memory" "new-mb8|$NEW|PORTLA_BATCH_REG_MIN_BLOCKS=8|" "new-mb6|$NEW|PORTLA_BATCH_REG_MIN_BLOCKS=6|" "new-mb5|$NEW|PORTLA_BATCH_REG_MIN_BLOCKS=5|"; do
    IFS='|' read lab bin envs extra <<< "$v"
    pl=shared; [ -n "$extra" ] && pl=global
    bench "svg $s $pl $lab" $bin "$envs" --generate stencil3pt:64 --batch-size $B17 --solver $s --backend cuda $extra
  done
done
pack
el "== memcheck"
timeout 110 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 $TB $F > $W/memcheck.log 2>&1
el "memcheck rc=$?: $(grep -E '^\[  (PASSED|FAILED)' $W/memcheck.log | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $W/memcheck.log | tr '\n' ' ')"
pack
el "== pelelm 2^17 bicgstab jacobi"
REPS=2
for c in drm19 gri12 gri30 dodecane_lu isooctane; do
  n=$(grep -v '^%' data/pelelm/$c/0/A.mtx | head -1 | awk '{print $1}')
  for v in "base|$BASE|X=0" "new|$NEW|X=0" "new-mb5|$NEW|PORTLA_BATCH_REG_MIN_BLOCKS=5"; do
    IFS='|' read lab bin envs <<< "$v"
    [ $(left) -lt 40 ] && continue
    [ $c = isooctane ] && [ $lab = new-mb5 ] && continue
    bench "pelelm $c $lab" $bin "$envs" data/pelelm/$c --replicate-to $B17 --solver bicgstab --precond jacobi --rtol 1e-6 --max-iters $((2*n)) --backend cuda
  done
done
pack
el "== sizes 2^17"
REPS=1
for n in 16 96 128; do
  for s in cg bicgstab; do
    [ $(left) -lt 15 ] && continue
    for v in "base|$BASE|X=0" "new|$NEW|X=0"; do
      IFS='|' read lab bin envs <<< "$v"
      bench "size n=$n $s $lab" $bin "$envs" --generate stencil3pt:$n --batch-size $B17 --solver $s --backend cuda
    done
  done
done
pack
el "== done"
