#!/usr/bin/env bash
# The whole GPU check in one run (on an H100 or H200, under 10 minutes): build for sm_90, run every
# GPU test (cuda and opencl binaries, CLI, Python, examples), the cuda tests under
# compute-sanitizer memcheck, then short CG runs on each GPU backend and under mpirun; logs and
# JSON go to $OUT.
#   usage: OUT=/some/dir scripts/gpu-check.sh [--bench|--bench-only] [SWEEP...]
# GPU_TESTS="test_x test_y" runs those test binaries (and memcheck of each) instead of every
# test. With --bench it also runs the benchmarks (all, or the named sweeps: see below); --bench-only
# skips the tests. Everything ends up in $OUT/results.tgz (one file
# to copy back), with a summary printed last.
set -uo pipefail
FINAL_OUT=${OUT:-$PWD/gpu-out}
OUT=$FINAL_OUT/raw
mkdir -p "$OUT"
export PORTLA_COMMIT=${PORTLA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
BUILD=${BUILD:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
status=0
step() { echo "== $* ($(date -u +%H:%M:%S))"; }
# Tests left out under memcheck: the pool test makes an allocation fail on purpose, and memcheck
# reports the failed cudaMallocAsync (and the cudaGetLastError that clears it) as API errors. It
# runs with the other tests, outside memcheck.
memcheck_filter() {
  [ "$1" = test_backend_cuda ] && echo "--gtest_filter=-*ArrayLargerThanTheMemoryOutsideThePool*"
}

# The extension in build-py, against the GPU machine's python3 (NumPy, SciPy, CuPy, PyTorch, JAX
# and nanobind are installed there; no venv).
build_python() {
  cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPORTLA_WITH_PYTHON=ON -DPORTLA_WITH_TESTS=OFF -DPORTLA_WITH_MPI=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" > "$OUT/cmake-py.log" 2>&1 &&
    cmake --build build-py -j "$(nproc)" --target _portla _portla_stub portla_python_files \
      > "$OUT/build-py.log" 2>&1 || { status=1; grep -E "error" "$OUT/build-py.log" | head; }
}

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
echo "commit $PORTLA_COMMIT" | tee "$OUT/commit.txt"

step "build"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
targets=()  # benchmarks alone need only the CLI; GPU_TESTS only those tests and the CLI
[ "${1:-}" = "--bench-only" ] && targets=(--target portla_cli)
if [ -n "${GPU_TESTS:-}" ] && [ "${1:-}" != "--bench-only" ]; then
  targets=(--target portla_cli)
  for t in $GPU_TESTS; do targets+=("$t"); done
fi
cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}" -- -k > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; status=1; }
grep -E "warning" "$OUT/build.log" | head -10

if [ -n "${GPU_TESTS:-}" ] && [ "${1:-}" != "--bench-only" ]; then
# GPU_TESTS="test_a test_b": only those test binaries are built and run, then each (or those of
# GPU_MEMCHECK) under memcheck (a short call); the whole ctest suite, its memcheck list, the CG
# timings and the opencl, Python and mpirun steps are skipped.
step "tests: $GPU_TESTS"
for t in $GPU_TESTS; do
  [ -x "$BUILD/tests/$t" ] || { echo "$t: no such test binary"; status=1; continue; }
  "$BUILD/tests/$t" > "$OUT/$t.log" 2>&1 || status=1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$OUT/$t.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]" "$OUT/$t.log" | head -5
done
for t in ${GPU_MEMCHECK:-$GPU_TESTS}; do
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
    "$BUILD/tests/$t" $(memcheck_filter "$t") > "$OUT/memcheck_$t.log" 2>&1 || status=1
  echo "memcheck $t: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/memcheck_$t.log" | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck_$t.log" | tr '\n' ' ')"
done
elif [ "${1:-}" != "--bench-only" ]; then
# Every test binary that runs on the GPU (cuda and opencl ones, the CLI, core, vendor, examples;
# the reference and omp binaries are CI's, on its CPU) with the opencl tests on NVIDIA's OpenCL
# device, one test per core; beside it the cuda tests under compute-sanitizer memcheck and the
# Python extension's build and tests on the GPU (CuPy / PyTorch arrays in place); then the
# multigrid benchmark, CG timings, CG on NVIDIA's OpenCL and mpirun. PoCL, a CPU device, is CI's.
step "GPU tests, memcheck and Python side by side"
P="$BUILD/apps/portla/portla"
gpu_cl=$("$P" info | grep -E "^  opencl:[0-9]+ .*NVIDIA" | grep -oE "opencl:[0-9]+" | head -1 | cut -d: -f2)
(cd "$BUILD" && PORTLA_OPENCL_DEVICE=${gpu_cl:-0} OMP_NUM_THREADS=4 ctest -j "$(nproc)" \
  -E '^test_[a-z_]+_(reference|omp)[.]' --output-on-failure > "$OUT/ctest.log" 2>&1) &
ctest_pid=$!
# (test_core, the host's readers and executors, is left out: its large-file readers take many
# minutes under memcheck, and its device paths run in test_backend_cuda's)
memcheck=(test_backend_cuda test_cg_device test_vendor test_batch_direct_cuda
          test_ilu_cuda test_preconditioners_cuda test_amg_cuda)
memcheck_summary() {
  echo "memcheck $1: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/memcheck_$1.log" | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck_$1.log" | tr '\n' ' ')"
}
for t in "${memcheck[@]}"; do  # each reports as it ends
  ( compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
      "$BUILD/tests/$t" $(memcheck_filter "$t") > "$OUT/memcheck_$t.log" 2>&1
    echo "$(memcheck_summary "$t") ($(date -u +%H:%M:%S))" ) &
done
( build_python || exit 1
  rc=0
  # one pytest per file: a crash in one stops only that file's tests
  for f in python/tests/test_*.py; do
    log="$OUT/pytest_$(basename "$f" .py).log"
    PYTHONPATH=build-py/python PORTLA_SOURCE_DIR=$PWD python3 -X faulthandler -m pytest -q -rs \
      -p no:cacheprovider "$f" > "$log" 2>&1 ||
      { echo "$f: pytest exit $?"; grep -A12 -E "Fatal Python error|^FAILED|^E " "$log" | head -30; rc=1; }
    cat "$log" >> "$OUT/pytest.log"
  done
  for e in examples/python/*.py; do
    log="$OUT/example_$(basename "$e" .py).log"
    PYTHONPATH=build-py/python python3 "$e" > "$log" 2>&1 &&
      echo "$e: $(tail -1 "$log")" || { echo "$e failed ($?)"; tail -3 "$log"; rc=1; }
  done
  exit $rc ) > "$OUT/python_step.log" 2>&1 &
python_pid=$!
wait "$ctest_pid" || status=1
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run" "$OUT/ctest.log" | head -40
grep -E "^Total Test time" "$OUT/ctest.log"
echo "slowest tests:"; grep -E "Test +#[0-9]+: .* sec$" "$OUT/ctest.log" | sed -E 's/.*: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' |
  sort -rn | head -12 | tr '\n' ';'; echo
wait "$python_pid" || status=1
echo "python: $(grep -cE "passed|failed" "$OUT/pytest.log") files: $(grep -E "passed|failed" "$OUT/pytest.log" | tr '\n' ' ')"
cat "$OUT/python_step.log"
wait
for t in "${memcheck[@]}"; do
  grep -q "ERROR SUMMARY: 0 errors" "$OUT/memcheck_$t.log" && grep -qE '^\[  PASSED' "$OUT/memcheck_$t.log" || status=1
done

step "CG on poisson3d:128, double: cuda, NVIDIA's OpenCL, omp"
"$P" info
for backend in cuda opencl omp; do
  PORTLA_OPENCL_DEVICE=${gpu_cl:-0} "$P" solve --generate poisson3d:128 --solver cg \
    --backend "$backend" --rtol 1e-8 --json > "$OUT/cg_poisson3d_128_$backend.json" || status=1
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], j['device'], j['iterations'], 'iters', '%.3f ms/iter' % (1e3*j['time_per_iteration_s']), j['reason'])" \
    "$OUT/cg_poisson3d_128_$backend.json" "$backend"
done
"$P" solve --generate poisson3d:128 --assembled --format csr --solver cg --backend cuda --rtol 1e-8 --json \
  > "$OUT/cg_poisson3d_128_cuda_csr.json" || status=1
"$P" solve tests/data/spd_fem_2d.mtx --backend cuda --precond jacobi || status=1

step "mpirun: two ranks on the GPU"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
for args in "--generate poisson3d:96" "--generate poisson3d:96 --assembled" \
            "tests/data/suitesparse/494_bus.mtx --precond jacobi"; do
  for halo in "" staged; do
    PORTLA_HALO=$halo mpirun --oversubscribe -np 2 -x NCCL_NVLS_ENABLE -x PORTLA_HALO "$P" \
      solve $args --backend cuda --json > "$OUT/mpirun.json" 2> "$OUT/mpirun.err" ||
      { status=1; tail -3 "$OUT/mpirun.err"; continue; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], j['format'], j['iterations'], 'iters', j['reason'], 'halo', j['communication']['halo'])" \
      "$OUT/mpirun.json" "$args"
  done
done
fi
if [ "${1:-}" = "--bench" ] || [ "${1:-}" = "--bench-only" ]; then
  shift
  # Sweep names: those of scripts/gpu-bench.sh (kernels, CG, CPU), plus `batch`
  # (scripts/batch-bench.sh; needs data/pelelm), `amg` (bench/amg.py: multigrid against CG + Jacobi
  # and Chebyshev), `eig` (scripts/bench-eig.py), `gemm`
  # (scripts/gemm-bench.sh), `ilu` (ILU(0) apply, levels vs cuSPARSE) and `real` (the
  # SuiteSparse set against SciPy, scripts/real-matrices.py) and `peers` (bench/peers.py: CuPy,
  # JAX; needs the Python step of the tests). No name: everything (well over 10 minutes).
  kernel_sweeps=() others=()
  for a in "$@"; do
    case $a in amg|batch|eig|gemm|real|ilu|peers) others+=("$a") ;; *) kernel_sweeps+=("$a") ;; esac
  done
  everything=$(( $# == 0 ))
  picked() { [ "$everything" = 1 ] || [[ " ${others[*]} " == *" $1 "* ]]; }
  tar_all() { tar czf "$FINAL_OUT/results.tgz" -C "$OUT" .; }
  if [ "$everything" = 1 ] || [ ${#kernel_sweeps[@]} -gt 0 ]; then
    OUT=$OUT BUILD=$BUILD TAR="$FINAL_OUT/results.tgz" scripts/gpu-bench.sh "${kernel_sweeps[@]}" || status=1
  fi
  if picked amg; then
    step "multigrid: CG + AMG against CG + Jacobi and CG + Chebyshev on the GPU (bench/amg.py)"
    python3 bench/amg.py --binary "$BUILD/apps/portla/portla" --backend cuda --no-pyamg \
      --variants classical,mixed,classical-l1 --problems poisson3d --sizes 64,128,256 \
      --json "$OUT/amg_poisson.json" || status=1
    python3 bench/amg.py --binary "$BUILD/apps/portla/portla" --backend cuda --no-pyamg \
      --variants classical,mixed,classical-l1,classical-l1-mixed,aggressive --problems contrast3d,anisotropic3d --sizes 128 \
      --json "$OUT/amg_hard.json" || status=1
    tar_all
  fi
  if picked batch; then
    step "batched solvers"
    OUT=$OUT/batch BUILD=$BUILD scripts/batch-bench.sh || status=1
    tar_all
  fi
  if picked eig; then
    step "dominant eigenpair, Hilbert float"
    python3 scripts/bench-eig.py --bin "$BUILD/apps/portla/portla" --out "$OUT/eig_hilbert_float.json" \
      --backends cuda,omp > "$OUT/eig_hilbert_float.txt" 2>&1 || status=1
    tail -20 "$OUT/eig_hilbert_float.txt"
    tar_all
  fi
  if picked ilu; then
    step "ILU(0) apply: level-scheduled kernels vs cuSPARSE SpSV (and omp)"
    "$BUILD/apps/portla/portla" bench ilu0-apply --backend omp,cuda,cusparse \
      --sizes 32768,262144,2097152 --json "$OUT/ilu0_apply.json" > "$OUT/ilu0_apply.txt" 2>&1 || status=1
    tail -20 "$OUT/ilu0_apply.txt"
    tar_all
  fi
  if picked real; then
    step "SuiteSparse set: every solver and preconditioner, omp and cuda, vs SciPy"
    python3 scripts/real-matrices.py --bin "$BUILD/apps/portla/portla" --backends omp,cuda \
      --out "$OUT/real_matrices.json" --table "$OUT/real_matrices.md" > "$OUT/real_matrices.log" 2>&1 || status=1
    tail -5 "$OUT/real_matrices.log"
    tar_all
  fi
  if picked peers; then
    step "peers: portla.scipy.cg against CuPy and JAX on the same CuPy CSR matrices"
    [ -d build-py/python/portla ] || build_python
    PYTHONPATH=build-py/python python3 bench/peers.py --sizes 64,100,128 --matrices none \
      --solvers cg --json "$OUT/peers-cg.json" > "$OUT/peers.log" 2>&1 || status=1
    grep -A12 "median ms" "$OUT/peers.log"
    tar_all
  fi
  if picked gemm; then
    step "matrix products"
    OUT=$OUT/gemm BUILD=$BUILD scripts/gemm-bench.sh --no-tests || status=1
    tar_all
  fi
fi
tar czf "$FINAL_OUT/results.tgz" -C "$OUT" . && rm -rf "$OUT"
echo "gpu-check status: $status"
exit $status
