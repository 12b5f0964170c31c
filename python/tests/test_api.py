"""portla.solve, info, perron, gemm; errors as Python exceptions; the GIL; the stubs."""

import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla
import portla.scipy as pscipy
from test_scipy_compat import poisson2d


def test_solve_result():
    A = poisson2d(16)
    b = np.ones(A.shape[0])
    r = portla.solve(A, b, solver="cg", precond="jacobi", rtol=1e-10)
    assert r.converged and r.reason == "converged"
    assert r.iterations > 0 and len(r.history) == r.iterations + 1
    assert r.relative_residual <= 1e-10
    assert np.isclose(r.residual_norm, np.linalg.norm(b - A @ r.x), rtol=1e-3, atol=1e-14)
    assert r.backend in ("omp", "cuda") and r.time_s > 0
    # the kernel variants: on cuda 256 rows take whole iterations in one block; none on CPUs
    assert r.kernels.get("cg.iterations") == "one-block" if r.backend == "cuda" else r.kernels == {}
    r = portla.solve(A, b, solver="gmres", precond="ilu0", restart=10, backend="reference")
    assert r.converged and r.backend == "reference" and r.kernels == {}
    r = portla.solve(A, b, solver="bicgstab", max_iters=3)
    assert not r.converged and r.reason == "max_iterations" and r.iterations == 3


def test_info():
    d = portla.info()
    names = [b["name"] for b in d["backends"]]
    assert names == ["reference", "omp", "cuda", "opencl"]
    assert d["auto"] in ("omp", "cuda") and d["omp_threads"] >= 1
    assert d["version"] == portla.__version__


def test_perron_and_gemm():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 1.5, (20, 20))
    p = portla.perron(a, eps=1e-10)
    lam = np.max(np.abs(np.linalg.eigvals(a)))
    assert p.converged and abs(p.eigenvalue - lam) <= 1e-6 * lam
    b = rng.uniform(0.5, 1.5, (20, 7))
    np.testing.assert_allclose(portla.gemm(a, b), a @ b, rtol=1e-12)
    assert portla.gemm(a.astype(np.float32), b.astype(np.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="positive matrix"):
        portla.perron(-a)
    with pytest.raises(ValueError, match="dimension mismatch"):
        portla.gemm(a, b.T)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda A, b: pscipy.cg(A, b[:-1]), ValueError, "dimension mismatch"),
        (lambda A, b: pscipy.cg(A, np.ones((b.size, 2))), ValueError, "expected a vector"),
        (lambda A, b: pscipy.cg(A, b, x0=np.ones(3)), ValueError, "dimension mismatch"),
        (lambda A, b: pscipy.cg(A[:, :-1], b), ValueError, "dimension|square"),
        (lambda A, b: pscipy.cg(A, b * np.nan), ValueError, "NaN or Inf"),
        (lambda A, b: pscipy.minres(A, b + 1j), ValueError, "complex"),
        (lambda A, b: pscipy.cg(A, np.array(["x"] * b.size)), ValueError, "numeric"),
        (lambda A, b: pscipy.minres(A.astype(complex), b), ValueError, "complex"),
        (lambda A, b: pscipy.cg(A, b, M="ilu7"), ValueError, "unknown preconditioner"),
        (lambda A, b: pscipy.cg(A, b, M=3), TypeError, "M"),
        (lambda A, b: pscipy.cg(A, b, atol=-1), ValueError, "atol"),
        (lambda A, b: pscipy.cg(A, b, rtol=np.nan), ValueError, "rtol|toleran"),
        (lambda A, b: pscipy.cg(A, b, backend="tpu"), ValueError, "tpu"),
        (lambda A, b: pscipy.cg(A, b, precision="half"), ValueError, "precision"),
        (lambda A, b: pscipy.cg(np.ones(3), b), ValueError, "shape"),
        (lambda A, b: portla.solve(A, b, solver="sor"), ValueError, "sor"),
        (lambda A, b: portla.solve(A, b, bogus=1), TypeError, "bogus"),
    ],
)
def test_bad_input_raises(call, error, match):
    A = poisson2d(6)
    b = np.ones(A.shape[0])
    with pytest.raises(error, match=match):
        call(A, b)


def test_int64_index_arrays_take_the_64_bit_offsets_path():
    # SciPy keeps int64 index arrays past 2^31 - 1 entries (or when given them): they go to
    # portla as 64-bit row offsets, which it keeps only where the entries need them.
    A = poisson2d(20)
    A64 = A.copy()
    A64.indptr = A64.indptr.astype(np.int64)
    A64.indices = A64.indices.astype(np.int64)
    assert A64.indptr.dtype == np.int64
    b = np.ones(A.shape[0])
    for backend in ("reference", "omp"):
        r32 = portla.solve(A, b, rtol=1e-10, backend=backend, history=False)
        r64 = portla.solve(A64, b, rtol=1e-10, backend=backend, history=False)
        assert r64.converged and r64.iterations == r32.iterations
        np.testing.assert_array_equal(r64.x, r32.x)
    n = A.shape[0]
    ptr, idx = A.indptr.astype(np.int64), A.indices.astype(np.int32)
    op = portla._portla.csr64_f64("reference", n, n, ptr, idx, A.data)
    assert op.index_width == "32" and op.nnz == A.nnz and op.format == "csr"
    assert portla._portla.csr_f64("reference", n, n, A.indptr, A.indices, A.data).index_width == "32"
    bad = ptr.copy()
    bad[3] = 2**40
    with pytest.raises(ValueError, match=r"row_ptrs\[3\]"):
        portla._portla.csr64_f64("reference", n, n, bad, idx, A.data)


def test_zero_diagonal_jacobi_is_value_error():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="diagonal"):
        pscipy.bicgstab(A, np.ones(2), M="jacobi")


def test_not_compiled_backend_is_runtime_error():
    if any(b["name"] == "cuda" and b["compiled"] for b in portla.info()["backends"]):
        pytest.skip("cuda is compiled into this build")
    with pytest.raises(RuntimeError, match="not compiled"):
        pscipy.cg(poisson2d(4), np.ones(16), backend="cuda")


def test_switch_with_a_value_it_does_not_know_is_value_error():
    # A PORTLA_* variable set to a value it does not know (docs/kernel-choices.md, "Options"): the
    # solve, which reads the variables when it makes its executor, raises ValueError with the
    # one-line message. In a child process: the omp threshold is a setting of the process.
    if not any(b["name"] == "omp" and b["compiled"] for b in portla.info()["backends"]):
        pytest.skip("the omp backend is not compiled into this build")
    code = (
        "import numpy as np, scipy.sparse as sp, portla\n"
        "A = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(50, 50), format='csr')\n"
        "try:\n"
        "    portla.solve(A, np.ones(50), backend='omp')\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    env = dict(os.environ, PORTLA_OMP_MIN_PARALLEL="12x")
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "PORTLA_OMP_MIN_PARALLEL=12x: expected an integer >= 0\n", r.stderr


def test_kernel_options_are_typed_and_default_to_the_environment():
    # portla.KernelOptions (C++ portla::KernelOptions, the same names): unset, the environment's
    # (the defaults here); set, every executor the package makes takes them.
    defaults = portla.kernel_options()
    assert defaults.cg_direction == "automatic" and defaults.cg_block_loop_rows == 4096
    assert defaults.packed_loads and defaults.cluster_max == 16 and defaults.csr_row == "chunked"
    assert defaults.host_sparse
    o = portla.KernelOptions()
    o.cg_direction = "fly"
    o.cg_block_loop_rows = 0
    o.csr_split = False
    o.host_sparse = False
    with pytest.raises(ValueError, match="cg_direction = 'flyy': expected automatic, pass or fly"):
        o.cg_direction = "flyy"
    assert o.slab_stencil == "automatic"
    o.slab_stencil = "points"
    with pytest.raises(ValueError, match="slab_stencil = 'rings': expected automatic, points"):
        o.slab_stencil = "rings"
    A = poisson2d(8)
    b = np.ones(A.shape[0])
    want = portla.solve(A, b)
    portla.set_kernel_options(o)
    try:
        assert portla.kernel_options().cg_direction == "fly"
        assert not portla.kernel_options().host_sparse
        got = portla.solve(A, b)
        assert got.converged and got.iterations == want.iterations
        np.testing.assert_allclose(got.x, want.x, rtol=1e-10, atol=0)
        bad = portla.KernelOptions()
        bad.cluster_max = 9
        with pytest.raises(ValueError, match="kernel options: cluster_max must be 16 or 8"):
            portla.set_kernel_options(bad)
        bad = portla.KernelOptions()
        bad.cg_stencil_ring_halo = 3
        with pytest.raises(ValueError, match="cg_stencil_ring_halo must be 0, 1, 2 or 4"):
            portla.set_kernel_options(bad)
    finally:
        portla.set_kernel_options(None)
    assert portla.kernel_options().cg_direction == "automatic"


def test_errors_from_python_callbacks_propagate():
    A = poisson2d(6)
    b = np.ones(A.shape[0])

    def boom(x):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        pscipy.cg(sla.LinearOperator(A.shape, matvec=boom), b)
    with pytest.raises(ValueError, match="dimension mismatch|reshape"):
        pscipy.gmres(sla.LinearOperator(A.shape, matvec=lambda x: x[:3]), b)
    with pytest.raises(KeyError, match="boom"):
        pscipy.bicgstab(A, b, M=sla.LinearOperator(A.shape, matvec=boom))
    with pytest.raises(ZeroDivisionError):
        pscipy.cg(A, b, monitor=lambda i, r: 1 / 0)
    # The interpreter and the library are fine afterwards.
    assert pscipy.cg(A, b)[1] == 0


def test_gil_is_released_during_a_solve():
    A = poisson2d(160)  # 25 600 unknowns, a few hundred CG iterations
    b = np.ones(A.shape[0])
    done = threading.Event()
    result = {}

    def work():
        # The sequential backend: long enough to tell on any machine (cuda took 5 ms on the H100).
        result["r"] = portla.solve(
            A, b, rtol=1e-10, max_iters=5000, history=False, backend="reference"
        )
        done.set()

    t = threading.Thread(target=work)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0)
    t.join()
    assert result["r"].converged
    assert result["r"].time_s > 0.02, "solve too short to tell"
    assert ticks > 100  # the main thread ran Python while C++ solved


def test_type_stubs_ship_with_the_package():
    pkg = pathlib.Path(portla.__file__).parent
    stub = (pkg / "_portla.pyi").read_text()
    assert "def solve_f64" in stub and "class Settings" in stub
    assert (pkg / "py.typed").exists()


def test_ctrl_c_stops_a_long_solve():
    import os
    import signal
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, portla\n"
        "from test_scipy_compat import poisson2d\n"
        "A = poisson2d(100)\n"
        "print('start', flush=True)\n"
        "portla.solve(A, np.ones(A.shape[0]), rtol=0.0, max_iters=10**8, history=False)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert "KeyboardInterrupt" in err
