#!/usr/bin/env bash
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build-gpu; R=$OUT/r; mkdir -p $R
echo "commit $(cat .device-commit)"; t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=OFF > $R/cmake.log 2>&1 || { tail $R/cmake.log; exit 1; }
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF -DPython_EXECUTABLE=$(command -v python3) > $R/cmake-py.log 2>&1
(cmake --build build-py -j 4 --target _portla _portla_stub portla_python_files > $R/build-py.log 2>&1 || grep error $R/build-py.log | head) &
cmake --build $B -j 14 -- -k > $R/build.log 2>&1 || grep -E "error" $R/build.log | head -20
wait; echo "build $(( $(date +%s) - t0 )) s"
(cd $B && timeout 330 ctest -j 8 --output-on-failure > $R/ctest.log 2>&1); grep -E "tests passed|\(Failed\)|Timeout|Not Run" $R/ctest.log | head -20; grep -c "Skipped" $R/ctest.log
echo "ctest $(( $(date +%s) - t0 )) s"
PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD timeout 150 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.log 2>&1; grep -E "passed|failed|^FAILED" $R/pytest.log | tail -4
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/results.tgz -C $OUT r
