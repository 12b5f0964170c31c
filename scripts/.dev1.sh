#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu
echo "commit $(cat .device-commit)"; nproc; nvidia-smi -L
ompi_info --parsable --all 2>/dev/null | grep -i "mpi_built_with_cuda_support:value" || echo "no ompi cuda info"
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $OUT/cmake.log 2>&1 || { tail -20 $OUT/cmake.log; exit 1; }
cmake --build $B -j 16 --target portla_cli test_dist test_dist_cli test_backend_cuda > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd $B && ctest -R "test_dist" --output-on-failure > $OUT/ctest_dist.log 2>&1); grep -E "tests passed|Failed|\*\*\*|Passed|SKIP" $OUT/ctest_dist.log | head -20
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe -np 2 $B/tests/test_dist --gtest_filter='*DistBackend*/2' 2>&1 | grep -E "OK|FAIL|SKIP|PASSED" | head -12
(cd $B && ./tests/test_backend_cuda --gtest_filter='*tencil*' 2>&1 | tail -3)
P=$B/apps/portla/portla
for np in 1 2 4; do for g in "poisson3d:128" "poisson3d:128 --assembled"; do
  mpirun --oversubscribe -np $np $P solve --generate $g --backend cuda --json > $OUT/np${np}.json 2>$OUT/err.txt || cat $OUT/err.txt
  python3 -c "import json; j=json.load(open('$OUT/np${np}.json')); print($np, '$g', j['format'], j['iterations'], j['relative_residual'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']), j.get('communication'))"
done; done
for np in 1 2 4; do mpirun --oversubscribe -np $np $P solve tests/data/suitesparse/494_bus.mtx --backend cuda --precond jacobi --json > $OUT/bus.json 2>$OUT/err.txt || cat $OUT/err.txt; python3 -c "import json; j=json.load(open('$OUT/bus.json')); print($np, j['format'], j['iterations'], j['relative_residual'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']))"; done
timeout 300 scripts/scaling-bench.sh --gpus 1 --cases weak,strong,assembled,cpu --out $OUT/scaling $P
echo "total $(( $(date +%s) - t0 )) s"
