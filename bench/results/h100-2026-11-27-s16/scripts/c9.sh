#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
python3 .dev/s16/plbin.py /tmp/pl_shuf shuffle > /tmp/plbin.log 2>&1 &
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -lineinfo -I include -I src .dev/s16/spmv_bench2.cu -lcusparse -o /tmp/spmv_bench2 || exit 1
wait
NCU=1 timeout 200 ncu -k combo_kernel --launch-skip 2 --launch-count 1 --section MemoryWorkloadAnalysis_Tables --section SourceCounters --section MemoryWorkloadAnalysis --print-details all /tmp/spmv_bench2 /tmp/pl_shuf > /tmp/ncu_full.txt 2>&1
grep -vE "^==PROF==|^\s*$|^blocks|^touch|^cusparse" /tmp/ncu_full.txt | sed -E 's/ +/ /g' | cut -c1-220 | head -150
