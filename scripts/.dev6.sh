#!/usr/bin/env bash
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu; P=$B/apps/portla/portla
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF -DPORTLA_WITH_MPI=OFF > /dev/null 2>&1
cmake --build $B -j 16 --target portla_cli > $OUT/build.log 2>&1 || { grep error $OUT/build.log | head; exit 1; }
for g in 128 256; do for lanes in 4 8 16; do
  PORTLA_CSR_LANES=$lanes $P solve --generate poisson3d:$g --assembled --format csr --backend cuda --json > $OUT/c.json
  python3 -c "import json; j=json.load(open('$OUT/c.json')); print('$g lanes $lanes', j['iterations'], '%.4f ms/it' % (1e3*j['time_per_iteration_s']))"
done; done
for f in tests/data/suitesparse/*.mtx; do :; done
