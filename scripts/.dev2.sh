#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build-gpu
R=$OUT/r; mkdir -p $R
echo "commit $(cat .device-commit)"; nproc; nvidia-smi -L; nvidia-smi topo -m 2>&1 | head -8
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1 || { tail -20 $R/cmake.log; exit 1; }
cmake --build $B -j 32 --target portla_cli test_dist test_dist_cli portla_comm_bench > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd $B && ctest -R "test_dist" --output-on-failure > $R/ctest_dist.log 2>&1); grep -E "tests passed|Failed|\*\*\*|Passed" $R/ctest_dist.log | head -8
mpirun --oversubscribe -np 2 -x NCCL_NVLS_ENABLE $B/bench/portla-comm-bench $R/comm_bench.json 2>&1 | tail -25
P=$B/apps/portla/portla
for np in 1 2; do mpirun --oversubscribe -np $np $P solve --generate poisson3d:128 --backend cuda --json > $R/np$np.json 2>&1; python3 -c "import json; j=json.load(open('$R/np$np.json')); print($np, j['device'], j['format'], j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']), j.get('communication'))"; done
timeout 420 scripts/scaling-bench.sh --gpus 2 --cases ${CASES:-weak,strong,assembled} --out $R/scaling $P
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
