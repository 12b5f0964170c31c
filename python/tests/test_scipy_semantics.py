"""portla.scipy's SciPy semantics that portla's own solvers do not share: cg through negative
curvature, lgmres and gcrotmk counting maxiter in cycles with SciPy's info codes, their vectors
kept between calls (outer_v, CU), and lgmres's least-squares step on a singular Krylov space."""

import numpy as np
import pytest
import scipy.sparse as sp

import portla
import portla.scipy as pscipy
from test_scipy_compat import counted


def indefinite(n=50):
    # Symmetric tridiagonal, diagonal -0.5 and off-diagonals -1: eigenvalues -0.5 - 2 cos(k pi /
    # (n + 1)) of both signs, none within 0.04 of zero.
    return sp.diags_array([-1.0, -0.5, -1.0], offsets=[-1, 0, 1], shape=(n, n)).tocsr()


@pytest.mark.parametrize("backend", ["reference", "omp"])
def test_cg_goes_on_through_negative_curvature(backend):
    A = indefinite()
    b = np.linspace(0.5, 1.5, 50)
    x, info = pscipy.cg(A, b, rtol=1e-8, maxiter=1000, backend=backend)
    assert info == 0
    assert np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b)
    # portla's own cg stops at the first p.Ap <= 0
    r = portla.solve(A, b, solver="cg", rtol=1e-8, max_iters=1000, backend=backend)
    assert r.reason == "indefinite"


def test_cg_stops_on_zero_curvature():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    b = np.array([1.0, 1.0])  # p = b, p.Ap = 2 > 0; then r = 0: converged
    x, info = pscipy.cg(A, b)
    assert info == 0
    b = np.array([1.0, -1.0])  # p.Ap = -2 < 0: on, and converged in one step too
    x, info = pscipy.cg(A, b)
    assert info == 0 and np.allclose(A @ x, b)
    b = np.array([1.0, 0.0])  # p.Ap = 0: no step possible
    x, info = pscipy.cg(A, b)
    assert info == -1


@pytest.mark.parametrize("solver", [pscipy.lgmres, pscipy.gcrotmk])
def test_cycle_solvers_count_maxiter_in_cycles(solver):
    A = sp.diags_array(np.linspace(1.0, 2.0, 20)).tocsr()
    b = np.ones(20)
    calls = []
    # One cycle solves it (20 distinct eigenvalues, at least 20 steps a cycle): SciPy's info is
    # maxiter all the same, its convergence test being at the start of the next cycle.
    x, info = solver(A, b, rtol=1e-10, maxiter=1, callback=lambda xk: calls.append(1))
    assert info == 1 and len(calls) == 1
    assert np.linalg.norm(b - A @ x) <= 1e-10 * np.linalg.norm(b)
    x, info = solver(A, b, rtol=1e-10, maxiter=2)
    assert info == 0
    A = A.tolil()
    A[1, 1] = np.nan
    x, info = solver(A.tocsr(), b, rtol=0, maxiter=10)
    assert info == 1  # the cycles begun, as SciPy's


def test_lgmres_outer_v_is_recycled():
    rng = np.random.default_rng(3)
    Am = sp.csr_array(np.eye(40) * 4 + rng.random((40, 40)))
    b = rng.random(40)
    A, count = counted(Am)
    outer_v = []
    x0, info = pscipy.lgmres(A, b, rtol=1e-12, inner_m=4, outer_k=6, outer_v=outer_v)
    first = count[0]
    assert info == 0 and 0 < len(outer_v) <= 6
    assert all(v.shape == (40,) and av.shape == (40,) for v, av in outer_v)
    count[0] = 0
    x1, info = pscipy.lgmres(
        A, b, rtol=1e-12, inner_m=4, outer_k=6, outer_v=outer_v, prepend_outer_v=True
    )
    assert info == 0 and np.allclose(x1, x0, rtol=1e-10)
    # Fewer applications than the first solve: SciPy 1.17's lgmres 48 then 40 here, portla's
    # one fewer each (x0 = 0 costs none).
    assert count[0] <= first - 5
    outer_v = []
    pscipy.lgmres(A, b, rtol=1e-12, inner_m=4, outer_v=outer_v, store_outer_Av=False)
    assert outer_v and all(av is None for _, av in outer_v)
    with pytest.raises(ValueError, match="outer_v"):
        pscipy.lgmres(Am, b, outer_v=[(np.ones(3), None)])


@pytest.mark.parametrize("discard_C", [False, True])
def test_gcrotmk_cu_is_recycled(discard_C):
    rng = np.random.default_rng(4)
    Am = sp.csr_array(np.eye(40) * 4 + rng.random((40, 40)))
    b = rng.random(40)
    A, count = counted(Am)
    CU = []
    x0, info = pscipy.gcrotmk(A, b, rtol=1e-12, m=4, k=6, CU=CU, discard_C=discard_C)
    first = count[0]
    assert info == 0 and 0 < len(CU) <= 6
    assert all((c is None) == discard_C and u.shape == (40,) for c, u in CU)
    count[0] = 0
    x1, info = pscipy.gcrotmk(A, b, rtol=1e-12, m=4, k=6, CU=CU, discard_C=discard_C)
    assert info == 0 and np.allclose(x1, x0, rtol=1e-10)
    assert count[0] < first / 2  # SciPy 1.17's gcrotmk: 33, then 2 (portla: 1)
    with pytest.raises(ValueError, match="CU"):
        pscipy.gcrotmk(Am, b, CU=[(None, np.ones(3))])


def test_lgmres_least_squares_on_a_nilpotent_matrix():
    A = np.triu(np.ones((4, 4)), 1)  # A^4 = 0: the Krylov space closes on a singular A
    for b in (np.ones(4), np.array([1.0, 1, 1, 0]), np.array([1.0, 1, 0, 0])):
        x, info = pscipy.lgmres(A, b, maxiter=1)
        K = np.c_[b, A @ b, A @ A @ b, A @ A @ A @ b]
        y = np.linalg.lstsq(A @ K, b, rcond=None)[0]
        assert np.isclose(np.linalg.norm(b - A @ x), np.linalg.norm(b - A @ K @ y))
