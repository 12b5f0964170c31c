#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
python3 .dev/s16/plbin.py /tmp/pl_shuf shuffle > /tmp/plbin.log 2>&1 &
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s16/spmv_bench2.cu -lcusparse -o /tmp/spmv_bench2 || exit 1
wait
for r in 1 2; do timeout 100 /tmp/spmv_bench2 /tmp/pl_shuf; done
