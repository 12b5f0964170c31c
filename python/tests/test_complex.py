"""Complex systems (complex128, complex64) through portla.scipy's cg, bicgstab, gmres, cgs and
tfqmr on the CPU backends, against SciPy's on a damped Helmholtz and a Hermitian matrix; BiCGSTAB
and GMRES on opencl against omp; the refusals of the methods and preconditioners without a
complex path; on cuda (skipped without a
GPU): host arrays against omp, CuPy and PyTorch complex arrays in place."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla._core as core
import portla.scipy as pscipy


def helmholtz(m, k2=0.5, damping=0.1):
    """-Lap - k^2 (1 + i damping) on an m x m grid (5 points, h = 1): complex symmetric,
    indefinite (k^2 above -Lap's smallest eigenvalue, 0.03 for m = 24)."""
    t = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(m, m))
    eye = sp.identity(m)
    lap = sp.kron(eye, t) + sp.kron(t, eye)
    return (lap - k2 * (1 + 1j * damping) * sp.identity(m * m)).tocsr()


def rhs(n, dtype=np.complex128):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


def relative_residual(A, x, b):
    A = A.astype(np.complex128)
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def counted(method, A, b, backend, **kw):
    """portla's solve (on `backend`) and SciPy's, each with its iteration count."""
    ours = []
    x, info = getattr(pscipy, method)(
        A, b, monitor=lambda i, r: ours.append(i), backend=backend, **kw
    )
    theirs = [0]

    def count(*args):
        theirs[0] += 1

    extra = {"callback_type": "pr_norm"} if method == "gmres" else {}
    xs, infos = getattr(sla, method)(A, b, callback=count, **extra, **kw)
    assert info == 0 and infos == 0
    return x, ours[-1], xs, theirs[0]


# Measured on the 2-core VM, 2026-11-28, m = 24, rtol 1e-8: BiCGSTAB 348 iterations, SciPy 389
# (BiCGSTAB's irregular convergence on an indefinite matrix: its count moves with rounding, so
# 25% either way); GMRES(20) 692, SciPy 691 (its minimised residual is monotone: 2%). CGS and
# TFQMR (2026-11-29, omp / reference): on Helmholtz CGS 139 / 136, SciPy 134 (its squared
# polynomial as irregular as BiCGSTAB's: 10%), TFQMR 282 / 277, SciPy 277 (5%); on the Hermitian
# matrix CGS 16 and TFQMR 35, as SciPy. BiCG and QMR (A^H and M^-H for the shadow sequence):
# 147 / 143 and 146 / 143 on Helmholtz (SciPy 143 and 143), 31 and 30 on the Hermitian matrix
# (31 and 30).
@pytest.mark.parametrize(
    "method, margin, matrix",
    [
        ("bicgstab", 0.25, "helmholtz"),
        ("gmres", 0.02, "helmholtz"),
        ("cgs", 0.1, "helmholtz"),
        ("cgs", 0.1, "hermitian"),
        ("tfqmr", 0.05, "helmholtz"),
        ("tfqmr", 0.05, "hermitian"),
        ("bicg", 0.1, "helmholtz"),
        ("bicg", 0.1, "hermitian"),
        ("qmr", 0.05, "helmholtz"),
        ("qmr", 0.05, "hermitian"),
    ],
)
@pytest.mark.parametrize("backend", ["omp", "reference"])
def test_against_scipy(method, margin, matrix, backend):
    A = helmholtz(24) if matrix == "helmholtz" else hermitian(24)
    b = rhs(A.shape[0])
    x, ours, xs, theirs = counted(method, A, b, backend, rtol=1e-8)
    assert x.dtype == np.complex128
    assert relative_residual(A, x, b) <= 1e-8
    assert abs(ours - theirs) <= margin * theirs, (ours, theirs)
    # the same solution up to the tolerance times cond(A) ~ 200
    assert np.linalg.norm(x - xs) <= 1e-5 * np.linalg.norm(xs)


@pytest.mark.parametrize("method", ["bicgstab", "gmres", "cgs", "tfqmr", "lgmres", "gcrotmk"])
def test_complex64_and_operators(method):
    A = helmholtz(12)
    n = A.shape[0]
    b = rhs(n, np.complex64)
    x, info = getattr(pscipy, method)(A.astype(np.complex64), b, rtol=1e-4)
    assert info == 0 and x.dtype == np.complex64
    assert relative_residual(A, x, b) <= 1e-4
    # a dense array (taken as CSR), a matrix-free LinearOperator and jacobi: the same system
    b = rhs(n)
    for op, M in [
        (A.toarray(), None),
        (sla.LinearOperator(A.shape, matvec=lambda v: A @ v, dtype=np.complex128), None),
        (A, "jacobi"),
        (A, sla.LinearOperator(A.shape, matvec=lambda v: v / A.diagonal(), dtype=np.complex128)),
    ]:
        x, info = getattr(pscipy, method)(op, b, rtol=1e-10, M=M)
        assert info == 0 and x.dtype == np.complex128
        assert relative_residual(A, x, b) <= 1e-10


def test_refusals():
    A = helmholtz(4)
    b = rhs(A.shape[0])
    with pytest.raises(ValueError, match=r"minres: complex values \(dtype complex128\) are not"):
        pscipy.minres(A, b)
    with pytest.raises(ValueError, match="minres: complex values"):
        pscipy.minres(A.real, b)
    with pytest.raises(ValueError, match=r"gcrotmk: truncate 'smallest' of complex values"):
        pscipy.gcrotmk(A, b, truncate="smallest")
    with pytest.raises(ValueError, match=r"lgmres: outer_v vectors kept between solves"):
        pscipy.lgmres(A, b, outer_v=[])
    with pytest.raises(ValueError, match=r"ilut preconditioner has no path for complex values"):
        pscipy.gmres(A, b, M="ilut")


def hermitian(m):
    """The 5-point Laplacian plus an antisymmetric coupling i/2 along x, diagonal 5: Hermitian
    positive definite (Gershgorin: 5 > 2 |-1 + i/2| + 2)."""
    t = sp.diags_array([-1.0 - 0.5j, 5.0, -1.0 + 0.5j], offsets=[-1, 0, 1], shape=(m, m))
    eye = sp.identity(m)
    s = sp.diags_array([-1.0, -1.0], offsets=[-1, 1], shape=(m, m))
    return (sp.kron(eye, t) + sp.kron(s, eye)).tocsr()


# Measured (2-core VM, 2026-11-28), m = 24, rtol 1e-10: CG 38 iterations, SciPy 38.
@pytest.mark.parametrize("backend", ["omp", "reference"])
def test_cg_hermitian_against_scipy(backend):
    A = hermitian(24)
    assert abs(A - A.conj().T).max() == 0
    b = rhs(A.shape[0])
    x, ours, xs, theirs = counted("cg", A, b, backend, rtol=1e-10)
    assert relative_residual(A, x, b) <= 1e-10
    assert abs(ours - theirs) <= 2, (ours, theirs)
    x, info = pscipy.cg(A.astype(np.complex64), b.astype(np.complex64), rtol=1e-4, M="jacobi")
    assert info == 0 and x.dtype == np.complex64 and relative_residual(A, x, b) <= 1e-4


def test_portla_solve_complex():
    import portla

    A = hermitian(10)
    b = rhs(A.shape[0])
    for solver in ("cg", "bicgstab", "gmres", "cgs", "tfqmr", "lgmres", "gcrotmk"):
        r = portla.solve(A, b, solver=solver, precond="jacobi", rtol=1e-10, backend="reference")
        assert r.converged and r.x.dtype == np.complex128 and r.backend == "reference"
        assert relative_residual(A, r.x, b) <= 1e-10
    with pytest.raises(ValueError, match="minres: complex values"):
        portla.solve(A, b, solver="minres")
    with pytest.raises(ValueError, match="ic0 preconditioner has no path for complex values"):
        portla.solve(A, b, solver="cg", precond="ic0")


# ---- cuda: host arrays on the cuda backend, CuPy and PyTorch arrays in place ----------------
# Skipped, with the reason, where portla's cuda backend, a GPU, CuPy or PyTorch is missing.

from test_gpu import _StandIn, _StandInCsr  # noqa: E402
from test_gpu import cupy, portla_cuda, stand_in_cupy, torch  # noqa: E402, F401  (fixtures)


@pytest.mark.parametrize("method", ["cg", "bicgstab", "gmres"])
def test_gpu_path_logic_with_complex_stand_ins(stand_in_cupy, method):
    """The GPU path's Python logic for complex arrays, on host stand-ins for CuPy (runs
    everywhere, on omp): taken in place, a dense complex A too, and the refusal of minres."""
    import sys

    sys.modules["cupy"].complex128 = np.complex128
    A_host = hermitian(12) if method == "cg" else helmholtz(12)
    A = _StandInCsr(A_host)
    b_host = rhs(A_host.shape[0])
    b = b_host.view(_StandIn)
    x0 = np.zeros_like(b_host).view(_StandIn)
    x, info = getattr(pscipy, method)(A, b, x0=x0, rtol=1e-10, backend="omp")
    assert info == 0 and x is x0 and x.dtype == np.complex128
    assert relative_residual(A_host, np.asarray(x), b_host) <= 1e-10
    _, si = core.run(method, A, b, x0=x0, backend="omp", rtol=1e-10)
    assert si.b_ptr == b.ctypes.data and si.x_ptr == x0.ctypes.data
    dense = np.ascontiguousarray(A_host.toarray()).view(_StandIn)
    x, info = getattr(pscipy, method)(dense, b, rtol=1e-10, backend="omp")
    assert info == 0 and relative_residual(A_host, np.asarray(x), b_host) <= 1e-10
    with pytest.raises(ValueError, match=r"minres: complex values \(dtype complex128\)"):
        pscipy.minres(A, b, backend="omp")


@pytest.mark.parametrize("method, margin", [("bicgstab", 0.25), ("gmres", 0.02), ("cg", 0.05)])
def test_cuda_against_omp(portla_cuda, method, margin):
    """The cuda backend's complex128 and complex64 solves against omp's: the same recurrences,
    counts apart by rounding only (the margins of the SciPy comparisons above)."""
    A = hermitian(24) if method == "cg" else helmholtz(24)
    for dtype, rtol in [(np.complex128, 1e-8), (np.complex64, 1e-4)]:
        b = rhs(A.shape[0], dtype)
        runs = {}
        for backend in ("cuda", "omp"):
            seen = []
            x, info = getattr(pscipy, method)(
                A.astype(dtype), b, rtol=rtol, backend=backend, monitor=lambda i, r: seen.append(i)
            )
            assert info == 0 and x.dtype == dtype
            assert relative_residual(A, x, b) <= 2 * rtol
            runs[backend] = seen[-1]
        assert abs(runs["cuda"] - runs["omp"]) <= margin * runs["omp"] + 2, runs


# opencl (PoCL here): the same recurrences as omp from the same kernels' sources, counts apart by
# rounding only (the margins of the SciPy comparisons above); a small grid keeps it fast.
@pytest.mark.parametrize("method, margin", [("bicgstab", 0.25), ("gmres", 0.02)])
@pytest.mark.parametrize("dtype, rtol", [(np.complex128, 1e-8), (np.complex64, 1e-4)])
def test_opencl_against_omp(method, margin, dtype, rtol):
    A = helmholtz(12).astype(dtype)
    b = rhs(A.shape[0], dtype)
    runs = {}
    for backend in ("opencl", "omp"):
        seen = []
        x, info = getattr(pscipy, method)(
            A, b, rtol=rtol, M="jacobi", backend=backend, monitor=lambda i, r: seen.append(i)
        )
        assert info == 0 and x.dtype == dtype
        assert relative_residual(A, x, b) <= 2 * rtol
        runs[backend] = seen[-1]
    assert abs(runs["opencl"] - runs["omp"]) <= margin * runs["omp"] + 2, runs


@pytest.mark.parametrize(
    "method", ["cg", "bicgstab", "gmres", "cgs", "tfqmr", "lgmres", "gcrotmk"]
)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_cupy_complex_in_place(cupy, method, dtype):
    import cupyx.scipy.sparse as csp

    A_host = (hermitian(24) if method == "cg" else helmholtz(24)).astype(dtype)
    b_host = rhs(A_host.shape[0], dtype)
    A, b = csp.csr_matrix(A_host), cupy.asarray(b_host)
    rtol = 1e-8 if dtype == np.complex128 else 1e-4
    x0 = cupy.zeros_like(b)
    x, info = getattr(pscipy, method)(A, b, x0=x0, rtol=rtol, maxiter=5000)
    assert info == 0 and x is x0 and x.dtype == dtype  # the solution in the caller's x0
    assert relative_residual(A_host, cupy.asnumpy(x), b_host) <= 2 * rtol
    _, si = core.run(method, A, b, rtol=rtol, max_iters=5000)
    assert si.backend == "cuda" and si.converged and si.b_ptr == b.data.ptr
    dense = cupy.asarray(A_host.toarray())
    x, info = getattr(pscipy, method)(dense, b, rtol=rtol, maxiter=5000)
    assert info == 0 and relative_residual(A_host, cupy.asnumpy(x), b_host) <= 2 * rtol
    with pytest.raises(ValueError, match=r"minres: complex values \(dtype complex"):
        pscipy.minres(A, b)


@pytest.mark.parametrize("method", ["cg", "bicgstab", "gmres"])
def test_torch_complex_sparse_csr(torch, method):
    A_host = hermitian(24) if method == "cg" else helmholtz(24)
    b_host = rhs(A_host.shape[0])
    A = torch.sparse_csr_tensor(
        torch.tensor(A_host.indptr, dtype=torch.int32),
        torch.tensor(A_host.indices, dtype=torch.int32),
        torch.tensor(A_host.data, dtype=torch.complex128),
        size=A_host.shape,
    ).cuda()
    b = torch.tensor(b_host).cuda()
    x, info = getattr(pscipy, method)(A, b, rtol=1e-8, maxiter=5000)
    assert info == 0 and x.dtype == torch.complex128 and x.is_cuda
    assert relative_residual(A_host, x.cpu().numpy(), b_host) <= 2e-8


@pytest.mark.parametrize("backend", ["reference", "omp", "opencl"])
@pytest.mark.parametrize("dtype, rtol", [(np.complex128, 1e-8), (np.complex64, 1e-4)])
def test_complex_preconditioners_and_formats(backend, dtype, rtol):
    """M = "block-jacobi" and "ilu0" on complex values, A as CSR and as a dense array: each
    converges to the true residual's tolerance, and ILU(0), an incomplete LU of this 5-point
    matrix, in far fewer GMRES iterations than none (measured on the 2-core VM, 2026-11-29,
    omp, m = 12, complex128: 497 without M, 227 with block Jacobi, 39 with ILU(0), the same for
    CSR and dense)."""
    A = helmholtz(12).astype(dtype)
    b = rhs(A.shape[0], dtype)
    counts = {}
    for M in (None, "block-jacobi", "ilu0"):
        for form in ("csr", "dense"):
            if M == "ilu0" and form == "dense":
                continue
            seen = []
            x, info = pscipy.gmres(
                A if form == "csr" else A.toarray(), b, M=M, rtol=rtol, restart=20,
                maxiter=2000, backend=backend, monitor=lambda i, r: seen.append(i)
            )
            assert info == 0 and x.dtype == dtype, (M, form)
            assert relative_residual(A, x, b) <= 2 * rtol, (M, form)
            counts[M, form] = seen[-1]
    assert counts["ilu0", "csr"] < 0.5 * counts[None, "csr"], counts


def young1c():
    """HB/young1c of the SuiteSparse collection (tests/data/suitesparse: source and licence in
    its README.md), a real complex acoustics matrix of 841 rows."""
    import os

    import scipy.io as sio

    root = os.environ.get("PORTLA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    path = os.path.join(root, "tests/data/suitesparse/young1c.mtx")
    try:  # SciPy 1.15 and later: a sparse array, without the warning about the default
        return sp.csr_array(sio.mmread(path, spmatrix=False))
    except TypeError:
        return sp.csr_array(sio.mmread(path))


# young1c, b = A 1, rtol 1e-8 (2-core VM, 2026-11-29, SciPy 1.17.1): GMRES(20) reference / omp
# 4137 / 4018 inner iterations, SciPy 4158; BiCGSTAB 418 / 399, SciPy 474 (its irregular
# convergence: 25%, as above); QMR 225 / 221, SciPy 236; BiCG 222 / 236, SciPy 236 (10%).
@pytest.mark.parametrize(
    "method, margin", [("gmres", 0.05), ("bicgstab", 0.25), ("qmr", 0.1), ("bicg", 0.1)]
)
def test_young1c_against_scipy(method, margin):
    A = young1c()
    b = A @ np.ones(A.shape[0], np.complex128)
    x, ours, xs, theirs = counted(method, A, b, "omp", rtol=1e-8, maxiter=20000)
    assert relative_residual(A, x, b) <= 2e-8
    assert abs(ours - theirs) <= margin * theirs, (ours, theirs)


# ILU(0) on young1c (same run): GMRES(20) 4137 -> 1840 iterations, BiCGSTAB 418 -> 141 on the
# reference backend; each backend converges with it in fewer than half the iterations without.
@pytest.mark.parametrize("backend", ["reference", "omp", "opencl"])
def test_young1c_with_ilu0(backend):
    A = young1c()
    b = A @ np.ones(A.shape[0], np.complex128)
    for method, without in (("gmres", 4137), ("bicgstab", 418)):
        seen = []
        x, info = getattr(pscipy, method)(
            A, b, M="ilu0", rtol=1e-8, maxiter=20000, backend=backend,
            monitor=lambda i, r: seen.append(i),
        )
        assert info == 0 and relative_residual(A, x, b) <= 2e-8, method
        assert seen[-1] < without / 2, (method, seen[-1])
