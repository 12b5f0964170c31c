#!/usr/bin/env bash
# Session 17 call 1: power-law SpMV variants (L1 carveout, cache hints) and peers on the
# real-matrix set, Poisson 128^3 and the power-law matrix (portla.scipy vs CuPy vs JAX).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $R/device.txt
echo "commit $(cat .device-commit)" | tee -a $R/device.txt
python3 .dev/s17/plbin.py /tmp/pl_shuf shuffle > $R/plbin.log 2>&1 &
PL=$!
( cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" &&
  cmake --build build-py -j 12 --target _portla _portla_stub portla_python_files ) > $R/build-py.log 2>&1 &
PY=$!
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s17/spmv_bench3.cu -lcusparse -o /tmp/spmv_bench3 || echo "nvcc failed"
wait $PL; cat $R/plbin.log
timeout 150 /tmp/spmv_bench3 /tmp/pl_shuf 2>&1 | tee $R/spmv3.txt
wait $PY || { echo "build-py failed"; tail -20 $R/build-py.log; }
PYTHONPATH=build-py/python timeout 330 python3 bench/peers.py --sizes 128 \
  --matrices 1138_bus,bcsstk09,bcsstk06,494_bus,cryg2500,watt_2,nnc1374 --powerlaw 3000000 \
  --solvers cg,gmres --repeats 5 --budget 15 --json $R/peers.json --plot $R/peers.png 2>&1 | tee $R/peers.txt
tar czf $OUT/c1.tgz -C $OUT r
