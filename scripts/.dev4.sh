#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu
R=$OUT/r; mkdir -p $R
P=$B/apps/portla/portla
ls $P >/dev/null 2>&1 || { cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > $R/cmake.log 2>&1; cmake --build $B -j 16 --target portla_cli > $R/build.log 2>&1; }
for f in csr ell; do
  timeout 200 ncu --clock-control none --launch-skip 40 --launch-count 8 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    $P solve --generate poisson3d:128 --assembled --format $f --backend cuda --max-iters 60 > $R/ncu_$f.txt 2>&1
  echo "== $f"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|Theoretical Occ|L2 Hit|L1/TEX Hit" $R/ncu_$f.txt | head -90
done
timeout 100 ncu --clock-control none --launch-skip 40 --launch-count 4 --section SpeedOfLight $P solve --generate poisson3d:128 --backend cuda --max-iters 60 > $R/ncu_mf.txt 2>&1
echo "== mf"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput" $R/ncu_mf.txt | head -30
tar czf $OUT/results.tgz -C $OUT r
