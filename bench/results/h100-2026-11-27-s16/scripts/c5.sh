#!/usr/bin/env bash
# Session 16 call 5: same-run power-law numbers, each step alone: CuPy (cuSPARSE SpMV + cg),
# portla CG per iteration, the standalone bench (touch floor, row blocks, cuSPARSE algs), Poisson.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
echo "commit $(cat .device-commit) $(date -u +%T)"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1
( cmake --build $B -j 14 --target portla_cli > $R/build.log 2>&1; touch /tmp/built ) &
python3 .dev/s16/plbin.py /tmp/pl_shuf shuffle; python3 .dev/s16/plbin.py /tmp/poi poisson
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s16/spmv_bench.cu -lcusparse -o /tmp/spmv_bench
python3 bench/powerlaw_matrix.py /tmp/pl.mtx --rows 3000000 --degree 10 --rhs /tmp/pl_b.mtx > $R/matrix.log 2>&1
while [ ! -f /tmp/built ]; do sleep 1; done
echo "== built $(date -u +%T)"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], d['format'], d['iterations'], 'it', round(d['time_per_iteration_s']*1e3,4), 'ms/it', 'solve', round(d.get('solve_seconds', d.get('time_s',0))*1e3,2), d.get('relative_residual'), d.get('kernels',{}).get('cg.direction'))" $1 2>/dev/null || tail -2 $1; }
for rep in 1 2; do
  timeout 60 $P solve /tmp/pl.mtx --rhs /tmp/pl_b.mtx --backend cuda --format csr --rtol 1e-8 --max-iters 600 --json > $R/pl_$rep.json 2>&1; j $R/pl_$rep.json
done
python3 - <<'PY'
import sys, time, json
sys.path.insert(0, "bench")
import numpy as np
from powerlaw_matrix import build, cupy_times
M = build(3000000, 10.0, 0.8, 10.0, 1)
for rep in range(2):
    cupy_times(M, "/tmp/cupy.json")
PY
timeout 100 /tmp/spmv_bench /tmp/pl_shuf | grep -vE "^P |persist"
timeout 60 /tmp/spmv_bench /tmp/poi | grep -vE "^P |persist"
echo "== end $(date -u +%T)"
