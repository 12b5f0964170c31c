#!/usr/bin/env bash
# Session 17 call 6: Python on the GPU (pytest, the borrow's fixed cost with the device plan,
# peers on the power-law matrix) and the one test changed after call 5.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH
B=build-gpu
echo "commit $(cat .device-commit) $(date -u +%T)"
( cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" &&
  cmake --build build-py -j 10 --target _portla _portla_stub portla_python_files ) > $R/build-py.log 2>&1 &
PY=$!
( cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF &&
  cmake --build $B -j 6 --target test_backend_cuda ) > $R/build.log 2>&1 &
TB=$!
wait $PY || { echo "build-py failed"; grep error $R/build-py.log | head; }
echo "== python built $(date -u +%T)"
export PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD
timeout 100 python3 .dev/s17/borrow_prof.py 2>&1 | tee $R/borrow.txt
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.log 2>&1; tail -4 $R/pytest.log
wait $TB || { echo "build failed"; grep error $R/build.log | head; }
echo "== tests built $(date -u +%T)"
timeout 100 $B/tests/test_backend_cuda --gtest_filter='Solvers*SolvesAgain*:Solvers*Hub*' > $R/solvers.log 2>&1; echo "solvers: $(grep -E '^\[  (PASSED|FAILED)' $R/solvers.log | tr '\n' ' ')"
timeout 150 python3 bench/peers.py --sizes 32 --matrices none --powerlaw 3000000 --solvers cg \
  --repeats 3 --budget 5 --json $R/peers.json --plot $R/peers.png 2>&1 | tail -9 | tee $R/peers.txt
tar czf $OUT/logs.tgz -C $R .
echo "== end $(date -u +%T)"
