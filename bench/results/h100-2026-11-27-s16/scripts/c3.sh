#!/usr/bin/env bash
# Session 16 call 3: SpMV variants + ncu of the main ones (shuffled power-law matrix).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
( python3 .dev/s16/plbin.py /tmp/pl_shuf shuffle ) > /tmp/plbin.log 2>&1 &
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s16/spmv_bench.cu -lcusparse -o /tmp/spmv_bench || exit 1
wait; cat /tmp/plbin.log
timeout 100 /tmp/spmv_bench /tmp/pl_shuf
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
NCU=1 timeout 200 ncu --csv --print-units base -k regex:"^(?!.*[Mm]emset)" --metrics $M /tmp/spmv_bench /tmp/pl_shuf > /tmp/ncu.csv 2> /tmp/ncu.err; tail -3 /tmp/ncu.err
grep -v "^==" /tmp/ncu.csv > /tmp/ncu2.csv; python3 .dev/s16/ncusum.py /tmp/ncu2.csv; cp /tmp/ncu.csv $OUT/
