#!/usr/bin/env bash
# Session 17 call 2: chunked row-block plans (SpMV), the fixed cost of portla.scipy.cg on the
# borrowed power-law matrix (timers + nsys), peers on the power-law matrix with its own b.
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
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I include -I src .dev/s17/spmv_bench3.cu -lcusparse -o /tmp/spmv_bench3 > /dev/null 2>&1 || echo "nvcc failed"
wait $PL; cat $R/plbin.log
timeout 120 /tmp/spmv_bench3 /tmp/pl_shuf 2>&1 | tee $R/spmv3.txt
wait $PY || { echo "build-py failed"; tail -20 $R/build-py.log; }
export PYTHONPATH=build-py/python
timeout 120 python3 .dev/s17/borrow_prof.py 2>&1 | tee $R/borrow.txt
timeout 150 nsys profile -o /tmp/prof --force-overwrite true python3 .dev/s17/borrow_prof.py > $R/nsys-run.txt 2>&1
nsys stats --report cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum /tmp/prof.nsys-rep > $R/nsys-stats.txt 2>&1
nsys stats --report cuda_api_trace /tmp/prof.nsys-rep 2>/dev/null | grep -v "cudaEventQuery\|cudaStreamIsCapturing" | tail -400 > $R/nsys-trace-tail.txt
head -60 $R/nsys-stats.txt
timeout 200 python3 bench/peers.py --sizes 64 --matrices none --powerlaw 3000000 --solvers cg \
  --repeats 3 --budget 10 --json $R/peers.json --plot $R/peers.png 2>&1 | tail -12 | tee $R/peers.txt
tar czf $OUT/c2.tgz -C $OUT r
