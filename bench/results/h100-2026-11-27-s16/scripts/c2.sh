#!/usr/bin/env bash
# Session 16 call 2: standalone SpMV variants on the power-law matrix, shuffled and hubs-first.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
( python3 .dev/s16/plbin.py /tmp/pl_shuf shuffle; python3 .dev/s16/plbin.py /tmp/pl_hubs keep ) > /tmp/plbin.log 2>&1 &
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s16/spmv_bench.cu -lcusparse -o /tmp/spmv_bench || exit 1
wait; cat /tmp/plbin.log
timeout 200 /tmp/spmv_bench /tmp/pl_shuf
timeout 200 /tmp/spmv_bench /tmp/pl_hubs
