"""GPU arrays used in place: CuPy arrays and cupyx.scipy.sparse CSR matrices, PyTorch CUDA
tensors (dense and sparse CSR). Each test proves that no copy was made (the device pointers the
C++ solve used are the caller's) and compares with SciPy on the CPU. Skipped, with the reason,
where CuPy / PyTorch, a GPU or portla's cuda backend is missing. Also here: the host path's
zero-copy use of NumPy / SciPy arrays on the CPU backends (runs everywhere)."""

import numpy as np
import pytest
import scipy.sparse.linalg as sla

import portla
import portla._core as core
import portla.batch
import portla.scipy as pscipy
from test_scipy_compat import poisson2d, relres

SOLVERS = ["cg", "bicgstab", "gmres"]
DTYPES = [np.float64, np.float32]


def _portla_cuda():
    d = portla.info()
    cuda = [b for b in d["backends"] if b["name"] == "cuda"][0]
    if not cuda["compiled"]:
        pytest.skip("no GPU: portla was built without the cuda backend")
    if cuda["devices"] == 0:
        pytest.skip("no GPU: the cuda backend finds no device")


@pytest.fixture
def cupy():
    try:
        import cupy
        import cupyx.scipy.sparse  # noqa: F401
    except ImportError as e:
        pytest.skip(f"no GPU: CuPy is not installed ({e})")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no GPU: CuPy sees no device")
    except Exception as e:  # CUDARuntimeError without a driver
        pytest.skip(f"no GPU: CuPy cannot reach a device ({e})")
    _portla_cuda()
    return cupy


@pytest.fixture
def torch():
    try:
        import torch
    except ImportError as e:
        pytest.skip(f"no GPU: PyTorch is not installed ({e})")
    if not torch.cuda.is_available():
        pytest.skip("no GPU: torch.cuda.is_available() is False")
    _portla_cuda()
    return torch


def tolerance(dtype):
    return 1e-8 if dtype == np.float64 else 1e-4


def check_against_scipy(name, A_host, b_host, x_host, dtype):
    """Within the solver's tolerance of SciPy's solution, and converged on the true residual."""
    rtol = tolerance(dtype)
    A64 = A_host.astype(np.float64)
    # float32: portla's own test is on the float32 residual, which differs from the float64 one
    # by ~eps32 ||A|| ||x|| (~1e-5 ||b|| here).
    slack = 1.01 if dtype == np.float64 else 1.5
    assert relres(A64, x_host.astype(np.float64), b_host.astype(np.float64)) <= rtol * slack
    x_s, info = getattr(sla, name)(A64, b_host.astype(np.float64), rtol=1e-10, maxiter=5000)
    assert info == 0
    # cond(poisson2d(24)) ~ 240.
    assert np.linalg.norm(x_host - x_s) <= 1e3 * rtol * np.linalg.norm(x_s)


# ---- the host path: NumPy / SciPy arrays are not copied on the CPU backends ------------------


def test_host_arrays_are_used_in_place():
    A = poisson2d(12)
    b = np.linspace(1.0, 2.0, A.shape[0])
    op = core.operator(A, np.float64, "omp")
    assert op.values_ptr == A.data.ctypes.data  # the CSR values, borrowed
    x, info = core.run("cg", A, b, backend="omp", rtol=1e-10)
    assert info.b_ptr == b.ctypes.data  # b read in place
    assert info.x_ptr == x.ctypes.data  # the solve wrote into the array returned
    assert relres(A, x, b) <= 1e-10
    d = A.toarray()
    assert core.operator(d, np.float64, "reference").values_ptr == d.ctypes.data


# ---- the GPU path's Python logic, here on host stand-ins for CuPy (runs everywhere) ------------


class _StandIn(np.ndarray):
    """A NumPy array that portla._core takes for a CuPy array (its type's module starts with
    "cupy"); its memory is the host's, so the extension runs it on a CPU backend."""

    device = type("Device", (), {"id": 0})()


_StandIn.__module__ = "cupy_stand_in"


class _StandInCsr:
    format = "csr"

    def __init__(self, A):
        self.indptr, self.indices = A.indptr.view(_StandIn), A.indices.view(_StandIn)
        self.data, self.shape = A.data.view(_StandIn), A.shape


_StandInCsr.__module__ = "cupyx_stand_in"


@pytest.fixture
def stand_in_cupy(monkeypatch):
    import sys
    import types

    cupy = types.ModuleType("cupy")
    cupy.empty = lambda n, dtype: np.empty(n, dtype).view(_StandIn)
    cupy.float64 = np.float64
    cupy.linalg = types.SimpleNamespace(norm=np.linalg.norm)
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(ptr=0))
    sparse = types.ModuleType("cupyx.scipy.sparse")
    sparse.issparse = lambda a: isinstance(a, _StandInCsr)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupyx", types.ModuleType("cupyx"))
    monkeypatch.setitem(sys.modules, "cupyx.scipy", types.ModuleType("cupyx.scipy"))
    monkeypatch.setitem(sys.modules, "cupyx.scipy.sparse", sparse)


@pytest.mark.parametrize("name", SOLVERS)
def test_gpu_path_logic_on_stand_ins(stand_in_cupy, name):
    A_host = poisson2d(12)
    A = _StandInCsr(A_host)
    b = np.linspace(1.0, 2.0, A_host.shape[0]).view(_StandIn)
    x0 = np.zeros(A_host.shape[0]).view(_StandIn)
    x, info = getattr(pscipy, name)(A, b, x0=x0, rtol=1e-10, backend="omp")
    assert info == 0 and x is x0  # the solution in the caller's x0
    assert relres(A_host, np.asarray(x), np.asarray(b)) <= 1e-10
    x, info = pscipy.cg(A, b.reshape(-1, 1), rtol=1e-10, backend="omp")  # new x, (n, 1) b
    assert info == 0 and type(x) is _StandIn
    _, si = core.run(name, A, b, x0=x0, backend="omp", rtol=1e-10)
    assert si.b_ptr == b.ctypes.data and si.x_ptr == x0.ctypes.data
    op = core._gpu_operator(A, "omp", None)[0]
    assert op.values_ptr == A_host.data.ctypes.data
    seen = []
    pscipy.bicgstab(A, b, rtol=1e-10, backend="omp", callback=seen.append)
    assert len(seen) > 3 and all(type(s) is _StandIn for s in seen)


@pytest.mark.parametrize("name", SOLVERS)
def test_gpu_zero_rhs_zeroes_x0_in_place_on_stand_ins(stand_in_cupy, name):
    A = _StandInCsr(poisson2d(6))
    b = np.zeros(36).view(_StandIn)
    x0 = np.linspace(1.0, 2.0, 36).view(_StandIn)
    x, info = getattr(pscipy, name)(A, b, x0=x0, backend="omp")
    assert info == 0 and x is x0 and not np.asarray(x).any()  # b = 0: x = 0, as SciPy


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda A, b: pscipy.cg(A, np.asarray(b)), "host array"),
        (lambda A, b: pscipy.cg(A, b, x0=np.zeros(b.size)), "host array"),
        (lambda A, b: pscipy.cg(A, b.astype(np.float32)), "dtype"),
        (lambda A, b: pscipy.cg(A, b[:-1]), "dimension mismatch"),
        (lambda A, b: pscipy.cg(A, np.ones(2 * b.size).view(_StandIn)[::2]), "contiguous"),
        (lambda A, b: pscipy.cg(A, b, x0=b), "same array"),
        (lambda A, b: pscipy.cg(A, b.astype(np.complex128)), "dtype"),
        (lambda A, b: pscipy.cg(A, b, precision="single"), "precision"),
        (lambda A, b: pscipy.cg(A, b, M=sla.aslinearoperator(np.eye(b.size))), "M"),
        (lambda A, b: pscipy.cg(poisson2d(6), b), "host matrix"),
        (lambda A, b: pscipy.cg(A, b, x0=np.ones((b.size, 2)).view(_StandIn)), "vector"),
        (lambda A, b: portla.gemm(b.reshape(6, 6), b.reshape(6, 6)), "host"),
    ],
)
def test_gpu_path_errors_on_stand_ins(stand_in_cupy, make, match):
    A = _StandInCsr(poisson2d(6))
    b = np.ones(36).view(_StandIn)
    with pytest.raises(ValueError, match=match):
        make(A, b)


@pytest.fixture
def portla_cuda():
    _portla_cuda()


@pytest.mark.parametrize("name", ["cg", "bicgstab"])
def test_host_arrays_on_the_cuda_backend(portla_cuda, name):
    """NumPy/SciPy arrays with backend="cuda": copied to the GPU and x back (the staged path),
    the iterates handed to callback copied back each iteration."""
    A = poisson2d(24)
    b = np.linspace(1.0, 2.0, A.shape[0])
    x0 = np.full(A.shape[0], 0.5)
    seen = []
    x, info = getattr(pscipy, name)(A, b, x0=x0, rtol=1e-10, backend="cuda",
                                    callback=lambda xk: seen.append(xk.copy()))
    assert info == 0 and isinstance(x, np.ndarray) and np.all(x0 == 0.5)  # x0 untouched
    check_against_scipy(name, A, b, x, np.float64)
    assert len(seen) > 5 and np.array_equal(seen[-1], x)
    _, si = core.run(name, A, b, backend="cuda", rtol=1e-10)
    assert si.backend == "cuda" and si.b_ptr != b.ctypes.data  # a device copy


# ---- CuPy -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOLVERS)
def test_cupy_csr_in_place(cupy, name, dtype):
    import cupyx.scipy.sparse as csp

    A_host = poisson2d(24, dtype)
    b_host = np.linspace(1.0, 2.0, A_host.shape[0]).astype(dtype)
    A = csp.csr_matrix(A_host)
    b = cupy.asarray(b_host)
    x0 = cupy.zeros_like(b)
    x0_ptr, b_ptr, values_ptr = x0.data.ptr, b.data.ptr, A.data.data.ptr
    b_before = b.copy()

    x, info = getattr(pscipy, name)(A, b, x0=x0, rtol=tolerance(dtype), maxiter=5000)
    assert info == 0
    assert x is x0 and x.data.ptr == x0_ptr  # the solution is in the caller's x0
    assert isinstance(x, cupy.ndarray) and x.dtype == dtype and x.device.id == b.device.id
    assert bool((b == b_before).all())  # b untouched
    check_against_scipy(name, A_host, b_host, cupy.asnumpy(x), dtype)

    # The pointers the C++ solve used: the caller's b and x, and A's values array.
    x2 = cupy.zeros_like(b)
    _, si = core.run(name, A, b, x0=x2, rtol=tolerance(dtype), max_iters=5000)
    assert si.backend == "cuda" and si.converged
    assert si.b_ptr == b_ptr and si.x_ptr == x2.data.ptr
    if name == "cg":  # 576 rows: whole iterations in one block on the GPU
        assert si.kernels.get("cg.iterations") == "one-block", si.kernels
    op = core._gpu_operator(A, "auto", None)[0]
    assert op.values_ptr == values_ptr and op.backend == "cuda"
    assert A.data.data.ptr == values_ptr  # A unchanged too


def test_cupy_new_x_dense_and_float32(cupy):
    A_host = poisson2d(16)
    b_host = np.ones(A_host.shape[0])
    b = cupy.asarray(b_host)
    x, info = pscipy.cg(cupy.asarray(A_host.toarray()), b, rtol=1e-10)  # dense A, no x0
    assert info == 0 and isinstance(x, cupy.ndarray) and x.data.ptr != b.data.ptr
    check_against_scipy("cg", A_host, b_host, cupy.asnumpy(x), np.float64)
    dense = cupy.asarray(A_host.toarray())
    assert core._gpu_operator(dense, "auto", None)[0].values_ptr == dense.data.ptr
    r = portla.solve(dense, b, solver="bicgstab", precond="jacobi", rtol=1e-10)
    assert r.converged and isinstance(r.x, cupy.ndarray) and r.backend == "cuda"


def test_cupy_callback_gets_the_callers_array(cupy):
    import cupyx.scipy.sparse as csp

    A_host = poisson2d(16)
    A = csp.csr_matrix(A_host)
    b = cupy.ones(A.shape[0])
    seen, norms = [], []

    def callback(xk):
        seen.append(xk)
        norms.append(float(cupy.linalg.norm(b - A @ xk)))

    for name in ("cg", "bicgstab"):
        seen.clear()
        norms.clear()
        x, info = getattr(pscipy, name)(A, b, rtol=1e-8, callback=callback)
        assert info == 0 and len(seen) > 5 and all(s is x for s in seen)
        assert norms[-1] <= 1e-8 * float(cupy.linalg.norm(b)) * 1.01


def test_cupy_non_default_stream(cupy):
    import cupyx.scipy.sparse as csp

    A_host = poisson2d(24)
    with cupy.cuda.Stream(non_blocking=True):
        A = csp.csr_matrix(A_host)
        b = cupy.asarray(np.linspace(1.0, 2.0, A.shape[0])) * 3.0  # queued on this stream
        x, info = pscipy.cg(A, b, rtol=1e-10)
        x_host = cupy.asnumpy(x)
    assert info == 0
    check_against_scipy("cg", A_host, 3.0 * np.linspace(1.0, 2.0, A.shape[0]), x_host, np.float64)


def test_cupy_batch(cupy):
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (5, 6, 6)) + 8 * np.eye(6)
    b = rng.uniform(0.5, 1.5, (5, 6))
    r = portla.batch.solve(cupy.asarray(A), cupy.asarray(b), rtol=1e-12)
    assert isinstance(r.x, cupy.ndarray) and isinstance(r.iterations, cupy.ndarray)
    assert bool(r.converged.all()) and r.backend == "cuda"
    np.testing.assert_allclose(cupy.asnumpy(r.x), np.linalg.solve(A, b[..., None])[..., 0],
                               rtol=1e-9)


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda cp, A, b: pscipy.cg(A, cp.asnumpy(b)), "host array"),
        (lambda cp, A, b: pscipy.cg(A, b.astype(cp.float32)), "dtype"),
        (lambda cp, A, b: pscipy.cg(A, b[:-1]), "dimension mismatch"),
        (lambda cp, A, b: pscipy.cg(A, cp.ones(2 * b.size)[::2]), "contiguous"),
        (lambda cp, A, b: pscipy.cg(A, b, x0=b), "same array"),
        (lambda cp, A, b: pscipy.cg(A, b, backend="omp"), "runs on the CPU"),
        (lambda cp, A, b: pscipy.cg(A, b + 1j), "dtype"),
        (lambda cp, A, b: pscipy.cg(A, b, precision="single"), "precision"),
        (lambda cp, A, b: pscipy.cg(A, b, M=sla.aslinearoperator(np.eye(b.size))), "M"),
        (lambda cp, A, b: pscipy.cg(poisson2d(6), b), "host matrix"),
        (lambda cp, A, b: pscipy.cg(A, b, x0=cp.ones((b.size, 2))), "vector"),
    ],
)
def test_cupy_bad_input_is_value_error(cupy, make, match):
    import cupyx.scipy.sparse as csp

    A = csp.csr_matrix(poisson2d(6))
    b = cupy.ones(A.shape[0])
    with pytest.raises(ValueError, match=match):
        make(cupy, A, b)
    assert pscipy.cg(A, b)[1] == 0  # fine afterwards


# ---- PyTorch ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOLVERS)
def test_torch_sparse_csr_in_place(torch, name, dtype):
    A_host = poisson2d(24, dtype)
    b_host = np.linspace(1.0, 2.0, A_host.shape[0]).astype(dtype)
    coo = A_host.tocoo()
    indices = torch.tensor(np.vstack([coo.row, coo.col]), dtype=torch.int64)
    A = torch.sparse_coo_tensor(indices, torch.from_numpy(coo.data), coo.shape).coalesce()
    A = A.to_sparse_csr().cuda()  # int64 indices, converted once to int32 (documented)
    b = torch.from_numpy(b_host).cuda()
    x0 = torch.zeros_like(b)
    x0_ptr, b_ptr, values_ptr = x0.data_ptr(), b.data_ptr(), A.values().data_ptr()

    x, info = getattr(pscipy, name)(A, b, x0=x0, rtol=tolerance(dtype), maxiter=5000)
    assert info == 0 and x is x0 and x.data_ptr() == x0_ptr
    assert x.is_cuda and x.dtype == b.dtype
    check_against_scipy(name, A_host, b_host, x.cpu().numpy(), dtype)

    x2 = torch.zeros_like(b)
    _, si = core.run(name, A, b, x0=x2, rtol=tolerance(dtype), max_iters=5000)
    assert si.b_ptr == b_ptr and si.x_ptr == x2.data_ptr() and si.converged
    assert core._gpu_operator(A, "auto", None)[0].values_ptr == values_ptr


def test_torch_dense_new_x_and_grad(torch):
    A_host = poisson2d(12)
    A = torch.from_numpy(A_host.toarray()).cuda()
    b = torch.ones(A.shape[0], dtype=torch.float64, device="cuda", requires_grad=True)
    x, info = pscipy.bicgstab(A, b, rtol=1e-10)
    assert info == 0 and isinstance(x, torch.Tensor) and x.is_cuda
    check_against_scipy("bicgstab", A_host, np.ones(A.shape[0]), x.cpu().numpy(), np.float64)
    assert core._gpu_operator(A, "auto", None)[0].values_ptr == A.data_ptr()
    with pytest.raises(ValueError, match="host array"):
        pscipy.cg(A, torch.ones(A.shape[0], dtype=torch.float64))  # a CPU tensor
    with pytest.raises(ValueError, match="dtype"):
        pscipy.cg(A, b.detach().to(torch.int64))
