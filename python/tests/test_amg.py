"""Smoothed aggregation multigrid from Python: M="amg" in portla.scipy, precond="amg" with its
options in portla.solve, on host matrices and (where a GPU is present) CuPy / PyTorch CSR
matrices in place; and the generated test matrices (portla.generate)."""

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg as sla

import portla
import portla._core as core
import portla.scipy as pscipy
from test_gpu import cupy, torch  # noqa: F401 (fixtures)
from test_scipy_compat import relres


def cg_iterations(A, b, M=None, **kwargs):
    """(x, info, iterations) of portla.scipy.cg, iterations counted by its callback."""
    count = [0]

    def callback(xk):
        count[0] += 1

    x, info = pscipy.cg(A, b, rtol=1e-8, M=M, callback=callback, maxiter=2000, **kwargs)
    return x, info, count[0]


@pytest.mark.parametrize("n", [16, 24])
def test_poisson3d_amg_takes_far_fewer_iterations(n):
    # Plain CG on the 3-D Poisson matrix needs O(n) iterations (the condition number grows as
    # n^2: 53 at n = 16, 80 at n = 24 for this b and 1e-8); smoothed aggregation keeps the
    # preconditioned operator's condition number bounded independently of n, and CG with one
    # V-cycle per iteration takes 8 and 9. The bound, at most 15 and at most a third of plain
    # CG's, leaves room for rounding and changed defaults while failing for any preconditioner
    # whose count grows like plain CG's (Jacobi is no better than none here: a constant diagonal).
    A = portla.generate(f"poisson3d:{n}")
    b = np.linspace(1.0, 2.0, A.shape[0])
    x0, info0, plain = cg_iterations(A, b)
    x1, info1, amg = cg_iterations(A, b, M="amg")
    assert info0 == 0 and info1 == 0
    assert relres(A, x1, b) <= 1e-8
    assert plain >= 2 * n  # the growth that multigrid removes
    assert amg <= 15, amg
    assert 3 * amg <= plain, (amg, plain)
    # The same solution as SciPy's.
    x_s, info = sla.cg(A, b, rtol=1e-10, maxiter=2000)
    assert info == 0
    assert np.linalg.norm(x1 - x_s) <= 1e-6 * np.linalg.norm(x_s)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_every_scipy_solver_takes_amg(name):
    A = portla.generate("fem2d:40")
    b = np.ones(A.shape[0])
    x, info = getattr(pscipy, name)(A, b, rtol=1e-8, M="amg", maxiter=200)
    assert info == 0
    assert relres(A, x, b) <= 1e-8


def test_amg_options_in_portla_solve():
    A = portla.generate("anisotropic3d:12")
    b = np.ones(A.shape[0])
    default = portla.solve(A, b, precond="amg")
    assert default.converged
    for options in (
        {"smoother": "jacobi", "sweeps": 2},
        {"smoother": "l1-jacobi", "cycle": "w"},
        {"smoother": "chebyshev", "chebyshev_degree": 3, "strength_threshold": 0.08},
        {"max_levels": 2, "coarse_size": 10, "method": "sa"},
        {"method": "classical", "strength_threshold": 0.25},
        {"method": "classical", "strength_threshold": 0.25, "cycle": "w"},
        {"method": "classical", "interpolation": "direct", "interp_max_entries": 0},
        {"method": "classical", "trunc_factor": 0.2, "interp_max_entries": 3},
        {"method": "classical", "coarsening": "hmis"},
        {"method": "classical", "aggressive_levels": 1},
        {"method": "classical", "aggressive_levels": 2, "coarsening": "hmis"},
        {
            "method": "classical",
            "aggressive_levels": 1,
            "aggressive_interpolation": "multipass-jacobi",
        },
        {"mixed_precision": True},
    ):
        r = portla.solve(A, b, precond="amg", amg=options)
        assert r.converged, options
        assert relres(A, r.x, b) <= 1e-8
    # One level of 512 rows (below the dense limit, solver/amg.hpp's kAmgMaxDenseRows): the
    # hierarchy is the dense LU of the matrix itself, an exact solve.
    small = portla.generate("poisson3d:8")
    exact = portla.solve(
        small, np.ones(512), precond="amg", amg={"max_levels": 1, "coarse_size": 4096}
    )
    assert exact.converged and exact.iterations <= 2
    a = core.amg_settings({"sweeps": 3, "cycle": "w"})
    assert (a.sweeps, a.cycle, a.smoother) == (3, "w", "chebyshev")


@pytest.mark.parametrize(
    "options,error",
    [
        ({"smoother": "gauss-seidel"}, ValueError),
        ({"cycle": "f"}, ValueError),
        ({"sweeps": 0}, ValueError),
        ({"sweeps": 1.5}, ValueError),
        ({"chebyshev_degree": 9}, ValueError),
        ({"max_levels": 0}, ValueError),
        ({"coarse_size": 0}, ValueError),
        ({"strength_threshold": -1.0}, ValueError),
        ({"method": "rs"}, ValueError),
        ({"interpolation": "standard"}, ValueError),
        ({"coarsening": "rs"}, ValueError),
        ({"trunc_factor": 1.0}, ValueError),
        ({"interp_max_entries": -1}, ValueError),
        ({"aggressive_levels": 1}, ValueError),
        ({"method": "classical", "aggressive_levels": -1}, ValueError),
        ({"method": "classical", "aggressive_levels": 1.5}, ValueError),
        ({"method": "classical", "aggressive_levels": "1"}, TypeError),
        ({"method": "classical", "aggressive_interpolation": "two-stage"}, ValueError),
        ({"levels": 3}, TypeError),
        ({"sweeps": "2"}, TypeError),
        ("fast", TypeError),
    ],
)
def test_bad_amg_options(options, error):
    A = portla.generate("poisson3d:6")
    b = np.ones(A.shape[0])
    with pytest.raises(error):
        portla.solve(A, b, precond="amg", amg=options)


def test_amg_bad_input():
    A = portla.generate("poisson2d:10")
    b = np.ones(A.shape[0])
    # The hierarchy is built from a sparse matrix's entries: not from a callback or dense A.
    op = sla.aslinearoperator(A)
    with pytest.raises(ValueError, match="csr"):
        pscipy.cg(op, b, M="amg")
    with pytest.raises(ValueError, match="csr"):
        pscipy.cg(A.toarray(), b, M="amg")
    # A zero diagonal entry is named.
    Z = A.tolil()
    Z[3, 3] = 0.0
    with pytest.raises(ValueError, match="diagonal"):
        pscipy.bicgstab(Z.tocsr(), b, M="amg")
    with pytest.raises(ValueError):
        pscipy.cg(A, b, M="amg-v")  # not a preconditioner's name
    with pytest.raises(TypeError):
        pscipy.cg(A, b, M=3)


@pytest.mark.parametrize(
    "spec,rows",
    [
        ("poisson3d:5", 125),
        ("anisotropic3d:6", 216),
        ("contrast3d:10", 1000),
        ("fem2d:9", 64),
    ],
)
def test_generate(spec, rows):
    A = portla.generate(spec)
    assert isinstance(A, scipy.sparse.csr_matrix)
    assert A.shape == (rows, rows) and A.dtype == np.float64
    assert A.has_sorted_indices
    assert (A != A.T).nnz == 0  # exactly symmetric
    assert (A.diagonal() > 0).all()
    assert np.linalg.eigvalsh(A.toarray())[0] > 0  # positive definite
    B = portla.generate(spec)  # deterministic
    assert (A != B).nnz == 0


@pytest.mark.parametrize("spec", ["poisson4d:3", "fem2d:1", "contrast3d:", "grid:4", ""])
def test_generate_bad_spec(spec):
    with pytest.raises(ValueError, match="fem2d:N|N must be"):
        portla.generate(spec)


def test_generate_not_a_string():
    with pytest.raises(TypeError):
        portla.generate(16)


# ---- GPU: the hierarchy built on the device from the caller's CSR arrays ---------------------


def test_cupy_csr_amg(cupy):
    import cupyx.scipy.sparse as csp

    A_host = portla.generate("poisson3d:16")
    b_host = np.linspace(1.0, 2.0, A_host.shape[0])
    A = csp.csr_matrix(A_host)
    b = cupy.asarray(b_host)
    values_ptr = A.data.data.ptr
    x, info, its = cg_iterations(A, b, M="amg")
    assert info == 0 and isinstance(x, cupy.ndarray)
    assert its <= 15
    assert relres(A_host, cupy.asnumpy(x), b_host) <= 1e-8
    assert A.data.data.ptr == values_ptr
    r = portla.solve(A, b, precond="amg", amg={"smoother": "l1-jacobi"})
    assert r.converged and r.backend == "cuda"


def test_torch_csr_amg(torch):
    A_host = portla.generate("fem2d:40")
    b_host = np.ones(A_host.shape[0])
    A = torch.sparse_csr_tensor(
        torch.from_numpy(A_host.indptr.astype(np.int64)),
        torch.from_numpy(A_host.indices.astype(np.int64)),
        torch.from_numpy(A_host.data),
        A_host.shape,
    ).cuda()
    b = torch.from_numpy(b_host).cuda()
    x, info = pscipy.cg(A, b, rtol=1e-8, M="amg")
    assert info == 0 and x.is_cuda
    assert relres(A_host, x.cpu().numpy(), b_host) <= 1e-8
